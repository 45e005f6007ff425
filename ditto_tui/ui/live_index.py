"""LiveIndex: the app's near-duplicate index plus a cache of families per (k, mode).

The UI owns one. Workers feed it (bulk loads, change batches) and compute family listings;
the UI thread reads. Mutations and family computations take one lock; everything the UI
thread calls per keystroke is lock-free: ``fingerprint``/``in``/``len`` read a mirror dict
and :meth:`peek` returns a listing already cached for the current generation (or None, in
which case the caller asks a worker to compute it). So a long computation in a worker never
freezes the screen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from ditto_tui.core.family_paths import Linkage
from ditto_tui.core.index import Match, NearIndex
from ditto_tui.core.pairs import PairsLookup, UniquePairs

MODES = ("chain", "star")


class LiveIndex:
    """Thread-safe wrapper of :class:`NearIndex` with cached family listings."""

    def __init__(self, max_k: int = 8) -> None:
        self._index = NearIndex(max_k)
        self._lock = threading.RLock()
        self._fps: dict[str, int] = {}
        self._cache: dict[tuple[int, str], tuple[int, list]] = {}

    @property
    def max_k(self) -> int:
        return self._index.max_k

    # -- lock-free reads ------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._fps)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._fps

    def fingerprint(self, doc_id: str) -> int:
        """The fingerprint of ``doc_id``; KeyError when absent."""
        return self._fps[doc_id]

    def ids(self) -> list[str]:
        return list(self._fps)

    def peek(self, k: int, mode: str = "chain") -> list | None:
        """The listing at ``(k, mode)`` if already computed for the current content."""
        entry = self._cache.get((k, mode))
        if entry is not None and entry[0] == self._index.generation:
            return entry[1]
        return None

    # -- mutations ---------------------------------------------------------------------------
    def apply(
        self,
        added: Mapping[str, int],
        changed: Mapping[str, int],
        removed: Iterable[str],
        *,
        pairs: PairsLookup | None = None,
    ) -> None:
        """Apply one change batch: removals first, then additions/replacements. A bulk
        rebuild asks ``pairs`` for stored near pairs (see :meth:`NearIndex.add_many`)."""
        with self._lock:
            for doc_id in removed:
                if self._index.remove(doc_id):
                    self._fps.pop(doc_id, None)
            merged = {i: int(fp) for i, fp in {**added, **changed}.items()}
            if len(merged) > 32:
                ids = list(merged)
                self._index.add_many(ids, [merged[i] for i in ids], pairs=pairs)
            else:
                for doc_id, fp in merged.items():
                    self._index.add(doc_id, fp)
            self._fps.update(merged)

    def take_computed_pairs(self) -> UniquePairs | None:
        """The near pairs the last bulk rebuild computed, if the content is unchanged since
        (to be stored for the next open); handed over once."""
        with self._lock:
            return self._index.take_computed_pairs()

    # -- computations (may be slow: call from a worker) ------------------------------------------
    def families(self, k: int, mode: str = "chain") -> list:
        """Every family (singletons included) at threshold ``k``, ditto's order; cached per
        content generation."""
        cached = self.peek(k, mode)
        if cached is not None:
            return cached
        with self._lock:
            generation = self._index.generation
            listing = self._index.families(k, mode=mode)
            self._cache[(k, mode)] = (generation, listing)
            return listing

    def warm(
        self, ks: Sequence[int], mode: str, cancelled: Callable[[], bool] = lambda: False
    ) -> None:
        """Compute and cache the listings for ``ks`` (from a worker)."""
        for k in ks:
            if cancelled():
                return
            self.families(k, mode)

    @property
    def generation(self) -> int:
        """Increases on every change of the content (lock-free read)."""
        return self._index.generation

    def linkage(self) -> Linkage:
        """A snapshot of the index's pairs and merge order (``core.family_paths``)."""
        with self._lock:
            return self._index.linkage()

    def near(self, fp: int, k: int) -> list[Match]:
        """Every document within ``k`` bits of ``fp``, sorted by (distance, id)."""
        with self._lock:
            return self._index.near(fp, k)
