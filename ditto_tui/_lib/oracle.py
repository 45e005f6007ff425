"""html-distance's Oracle ("have I seen a page within r bits?") over the exact index."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ditto_tui._lib.index import check_k
from ditto_tui._lib.pipelines import FingerprintLike
from ditto_tui.core.fingerprint.simhash import as_fingerprint, as_fingerprint_array, popcount64
from ditto_tui.core.index.near_index import NearIndex

__all__ = ["Oracle"]


class Oracle:
    """Remembers fingerprints and answers whether one close to a query was seen.

    The Go package html-distance answers this with a BK-tree; this answers the same
    question exactly with a banded index. Semantics, and where they follow Go:

    * ``seen(fp, r)`` is Go's ``Seen(f, r)``: **strictly** closer than ``r``
      (``distance < r``), so ``r = 0`` is never seen and ``r = 1`` means "exactly this
      fingerprint". ``seen_within(fp, k)`` is the inclusive form used by ditto
      and the rest of this library (``distance <= k``, so ``seen_within(fp, k) ==
      seen(fp, k + 1)``).
    * Go's tree always contains the fingerprint 0 as its root, so there a query within
      ``r`` of 0 (``popcount(fp) < r``) is "seen" even when nothing was. This oracle
      does not answer with that artefact unless built with ``go_sentinel=True``, which
      reproduces Go's answers exactly.

    Contracts: ``see`` and the queries on a fingerprint not yet seen cost one index
    probe (``see`` of a fingerprint already seen is O(1)); identical fingerprints are
    stored once. Radii up to ``k + 1`` (``seen``) or ``k`` (``seen_within``) use the
    index; larger ones scan every distinct fingerprint (vectorised, O(n)). Answers are
    deterministic and exact (equal to a scan of everything seen) for every radius. Not
    thread-safe: use one thread or one lock. Fingerprints are checked as
    :func:`~ditto_tui.distance` checks them (an int in ``[0, 2**64)`` or 16 hex digits;
    ``ValueError`` out of range, ``TypeError`` for another type); a radius is any int
    (a negative one is never seen, one above 64 always is once anything was),
    ``TypeError`` for a non-integer.
    """

    def __init__(self, k: int = 8, *, go_sentinel: bool = False) -> None:
        k = check_k(k, low=0, high=64)
        self._index = NearIndex(k)
        self._go_sentinel = go_sentinel
        self._fps: list[int] = []
        self._array: np.ndarray | None = None

    @property
    def k(self) -> int:
        """Largest inclusive radius served by the index (larger radii scan)."""
        return self._index.max_k

    def __len__(self) -> int:
        """Number of distinct fingerprints seen."""
        return len(self._fps)

    def see(self, fp: FingerprintLike) -> Oracle:
        """Remember ``fp``; returns the oracle itself (Go's ``See`` chains the same way)."""
        value = as_fingerprint(fp, "fp")
        key = format(value, "016x")
        if key not in self._index:
            self._index.add(key, value)
            self._fps.append(value)
            self._array = None
        return self

    def see_many(self, fps: Iterable[FingerprintLike] | np.ndarray) -> Oracle:
        """Remember every fingerprint of ``fps`` (same as ``see`` on each, in one pass).

        Much faster than a loop of :meth:`see` for large batches (a batch of at least a
        quarter of what was seen is merged in one vectorised rebuild). Every value is
        checked before any is remembered.
        """
        values = as_fingerprint_array(fps, "fps")
        if values.ndim != 1:
            raise ValueError(f"fps must be 1-D, got shape {values.shape}")
        new = list(dict.fromkeys(values.tolist()))
        keys = [format(v, "016x") for v in new]
        fresh = [(k, v) for k, v in zip(keys, new, strict=True) if k not in self._index]
        if fresh:
            self._index.add_many([k for k, _ in fresh], np.array([v for _, v in fresh], np.uint64))
            self._fps.extend(v for _, v in fresh)
            self._array = None
        return self

    def seen(self, fp: FingerprintLike, r: int) -> bool:
        """Go's ``Seen(f, r)``: was a fingerprint at distance **< r** from ``fp`` seen?"""
        return self.seen_within(fp, check_k(r, "r") - 1)

    def seen_within(self, fp: FingerprintLike, k: int) -> bool:
        """Was a fingerprint at distance **<= k** from ``fp`` seen?"""
        value = as_fingerprint(fp, "fp")
        k = min(check_k(k), 64)
        if k < 0:
            return False
        if self._go_sentinel and value.bit_count() <= k:
            return True
        if not self._fps:
            return False
        if k <= self._index.max_k:
            return bool(self._index.near(value, k))
        if self._array is None:
            self._array = np.array(self._fps, dtype=np.uint64)
        return bool((popcount64(self._array ^ np.uint64(value)) <= k).any())

