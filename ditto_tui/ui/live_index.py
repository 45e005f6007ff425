"""LiveIndex: the app's near-duplicate index plus a cache of families per (k, mode).

The UI owns one. Workers may feed it (bulk loads, change batches) while the UI thread asks
for families: every access goes through one lock, and each call is short (the index does
the heavy lifting vectorised). Family listings are cached per index generation, so moving
the k slider back and forth costs nothing after the first visit, and :meth:`warm` lets a
worker precompute every k ahead of the user.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence

from ditto_tui.core.index import Match, NearIndex

MODES = ("chain", "star")


class LiveIndex:
    """Thread-safe wrapper of :class:`NearIndex` with cached family listings."""

    def __init__(self, max_k: int = 8) -> None:
        self._index = NearIndex(max_k)
        self._lock = threading.RLock()
        self._cache: dict[tuple[int, str], list] = {}
        self._generation = -1

    @property
    def max_k(self) -> int:
        return self._index.max_k

    def __len__(self) -> int:
        with self._lock:
            return len(self._index)

    def __contains__(self, doc_id: object) -> bool:
        with self._lock:
            return doc_id in self._index

    @property
    def generation(self) -> int:
        with self._lock:
            return self._index.generation

    def fingerprint(self, doc_id: str) -> int:
        """The fingerprint of ``doc_id``; KeyError when absent."""
        with self._lock:
            return self._index.fingerprint(doc_id)

    def load(self, fingerprints: Mapping[str, int]) -> None:
        """Add or replace many documents at once (vectorised)."""
        if not fingerprints:
            return
        ids = list(fingerprints)
        with self._lock:
            self._index.add_many(ids, [int(fingerprints[i]) for i in ids])

    def apply(
        self,
        added: Mapping[str, int],
        changed: Mapping[str, int],
        removed: Iterable[str],
    ) -> None:
        """Apply one change batch: removals first, then additions/replacements."""
        with self._lock:
            for doc_id in removed:
                self._index.remove(doc_id)
            merged = {**added, **changed}
            if len(merged) > 32:
                ids = list(merged)
                self._index.add_many(ids, [int(merged[i]) for i in ids])
            else:
                for doc_id, fp in merged.items():
                    self._index.add(doc_id, int(fp))

    def families(self, k: int, mode: str = "chain") -> list:
        """Every family (singletons included) at threshold ``k``, ditto's order."""
        with self._lock:
            generation = self._index.generation
            if generation != self._generation:
                self._cache.clear()
                self._generation = generation
            key = (k, mode)
            cached = self._cache.get(key)
            if cached is None:
                cached = self._index.families(k, mode=mode)
                self._cache[key] = cached
            return cached

    def cached(self, k: int, mode: str) -> bool:
        """True when :meth:`families` would answer from the cache."""
        with self._lock:
            return self._generation == self._index.generation and (k, mode) in self._cache

    def warm(self, ks: Sequence[int], mode: str, cancelled=lambda: False) -> None:
        """Compute and cache the listings for ``ks`` (from a worker)."""
        for k in ks:
            if cancelled():
                return
            self.families(k, mode)

    def near(self, fp: int, k: int) -> list[Match]:
        """Every document within ``k`` bits of ``fp``, sorted by (distance, id)."""
        with self._lock:
            return self._index.near(fp, k)

    def ids(self) -> list[str]:
        with self._lock:
            return self._index.ids()
