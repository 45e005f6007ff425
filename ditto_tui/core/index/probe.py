"""Multi-index hash tables for Hamming-radius queries over 64-bit fingerprints.

Norouzi et al.'s multi-index hashing: the 64 bits are cut into ``m`` blocks and block ``i``
is probed within ``r_i`` bits, with ``sum(r_i + 1) = max_k + 1``, so any fingerprint
within ``max_k`` of a query lands in at least one probe (pigeonhole). :class:`ProbeDesign`
picks ``m`` with a cost model (``m = max_k + 1`` with ``r_i = 0`` is ditto's plain
banding); :class:`ProbeTable` is one block's sorted key array plus a slot array (no Python
object per entry).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ditto_tui.core.index.radix import stable_order

__all__ = ["ProbeDesign", "ProbeTable"]

_U64 = np.uint64


@dataclass(frozen=True, slots=True)
class ProbeDesign:
    """Multi-index hashing layout: ``m`` contiguous blocks, block ``i`` probed within
    ``radii[i]`` bits. Exact for distances up to ``sum(r + 1 for r in radii) - 1``."""

    m: int
    radii: tuple[int, ...]

    @property
    def blocks(self) -> tuple[tuple[int, int], ...]:
        return tuple(
            (i * 64 // self.m, (i + 1) * 64 // self.m - i * 64 // self.m) for i in range(self.m)
        )

    @property
    def probes(self) -> int:
        return sum(
            sum(math.comb(w, j) for j in range(r + 1))
            for (_, w), r in zip(self.blocks, self.radii, strict=True)
        )

    @classmethod
    def for_k(cls, max_k: int, m: int) -> ProbeDesign:
        q, rem = divmod(max_k + 1, m)
        return cls(m, tuple(q + (1 if i < rem else 0) - 1 for i in range(m)))

    @classmethod
    def choose(cls, max_k: int, n_ref: int = 1_000_000) -> ProbeDesign | None:
        """Cheapest design for ``max_k`` at about ``n_ref`` entries, with at most ~40 bytes
        of tables per entry; ``None`` means a linear scan is cheaper."""
        best: ProbeDesign | None = None
        best_cost = n_ref * 3e-9
        for m in range(1, max_k + 2):
            design = cls.for_k(max_k, m)
            if any(r < 0 for r in design.radii):
                continue
            probes = design.probes
            if probes > 50_000:
                continue
            width = min(w for _, w in design.blocks)
            key_bytes = _key_dtype(max(w for _, w in design.blocks)).itemsize
            if m * (key_bytes + 4) > 40:
                continue
            cost = m * 25e-6 + probes * 6e-8 + probes * n_ref / 2.0**width * 2e-8
            if cost < best_cost:
                best, best_cost = design, cost
        return best


def _key_dtype(width: int) -> np.dtype:
    if width <= 8:
        return np.dtype(np.uint8)
    if width <= 16:
        return np.dtype(np.uint16)
    if width <= 32:
        return np.dtype(np.uint32)
    return np.dtype(np.uint64)


_BUCKET = 8  # mean entries a directory bucket when the directory is sized
_BUCKET_MAX = 64  # past this mean the directory is sized again


def _spans(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position of the ranges ``[lo, hi)`` and the range each came from."""
    lens = hi - lo
    nz = np.flatnonzero(lens)
    lens = lens[nz]
    total = int(lens.sum())
    owner = np.repeat(nz, lens)
    idx = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(lens) - lens - lo[nz], lens)
    return idx, owner


def _variants(width: int, radius: int, dtype: np.dtype) -> np.ndarray:
    """All ``width``-bit masks with at most ``radius`` bits set."""
    out = [0]
    for r in range(1, radius + 1):
        out.extend(sum(1 << b for b in combo) for combo in itertools.combinations(range(width), r))
    return np.array(out, dtype=dtype)


class ProbeTable:
    """One block's entries (distinct-entry slots) sorted by their key (the block's bits),
    packed: a directory over the key's high ``hb`` bits (the start of each bucket) and,
    per entry, the low bits of its key (one byte when the directory is sized, for 21-bit
    keys at 1M entries) and its slot; 5.3 bytes an entry instead of 8 for a sorted key
    array. The directory is sized for about ``_BUCKET`` entries a bucket, and again when
    insertions have made buckets much larger."""

    __slots__ = ("dtype", "hb", "lb", "low", "low_mask", "mask", "off", "slots", "start",
                 "variants", "width")

    def __init__(self, off: int, width: int, radius: int) -> None:
        self.off = _U64(off)
        self.width = width
        self.mask = _U64((1 << width) - 1)
        self.dtype = _key_dtype(width)
        self.variants = _variants(width, radius, self.dtype)
        self.slots = np.empty(0, np.uint32)
        self._split(0, np.empty(0, self.dtype))

    def key(self, fps: np.ndarray) -> np.ndarray:
        return ((fps >> self.off) & self.mask).astype(self.dtype)

    def _split(self, n: int, keys: np.ndarray) -> None:
        """Size the directory for ``n`` entries and fill it from their sorted ``keys``."""
        hb = 0
        while hb < self.width and hb < 30 and n >> (hb + 1) >= _BUCKET:
            hb += 1
        self.hb, self.lb = hb, self.width - hb
        self.low_mask = (1 << self.lb) - 1
        wide = keys.astype(np.uint64)
        self.low = (wide & _U64(self.low_mask)).astype(_key_dtype(self.lb))
        buckets = (wide >> _U64(self.lb)).astype(np.int64)
        self.start = np.zeros((1 << hb) + 1, np.uint32)
        np.cumsum(np.bincount(buckets, minlength=1 << hb), out=self.start[1:])

    def _keys(self) -> np.ndarray:
        """Every entry's key, in order (from the directory and the low bits)."""
        counts = self.start[1:].astype(np.int64) - self.start[:-1]
        high = np.repeat(np.arange(1 << self.hb, dtype=np.uint64), counts)
        return (high << _U64(self.lb)) | self.low.astype(np.uint64)

    def build(self, fps: np.ndarray, slots: np.ndarray) -> None:
        keys = self.key(fps)
        order = stable_order(keys)
        self.slots = slots[order].astype(np.uint32)
        self._split(len(order), keys[order])

    def insert(self, fps: np.ndarray, slots: np.ndarray) -> None:
        keys = self.key(fps)
        order = np.argsort(keys, kind="stable")
        keys, slots = keys[order].astype(np.uint64), slots[order]
        bucket = (keys >> _U64(self.lb)).astype(np.int64)
        low = (keys & _U64(self.low_mask)).astype(self.low.dtype)
        # after the entries of its bucket with a low part no larger than its own
        lo, hi = self.start[bucket].astype(np.int64), self.start[bucket + 1].astype(np.int64)
        idx, owner = _spans(lo, hi)
        before = np.bincount(owner[self.low[idx] <= low[owner]], minlength=len(keys))
        where = lo + before
        self.low = np.insert(self.low, where, low)
        self.slots = np.insert(self.slots, where, slots.astype(np.uint32))
        added = np.zeros(len(self.start), np.uint32)
        np.cumsum(np.bincount(bucket, minlength=1 << self.hb), out=added[1:])
        self.start += added
        n = len(self.slots)
        if n >> self.hb > _BUCKET_MAX and self.hb < min(self.width, 30):
            self._split(n, self._keys())

    def candidates(self, fp: np.ndarray) -> np.ndarray:
        probes = (self.key(fp) ^ self.variants).astype(np.uint64)
        bucket = (probes >> _U64(self.lb)).astype(np.int64)
        lo, hi = self.start[bucket].astype(np.int64), self.start[bucket + 1].astype(np.int64)
        idx, owner = _spans(lo, hi)
        if not len(idx):
            return np.empty(0, np.uint32)
        want = (probes & _U64(self.low_mask)).astype(self.low.dtype)
        found: np.ndarray = self.slots[idx[self.low[idx] == want[owner]]]
        return found

    @property
    def nbytes(self) -> int:
        return self.low.nbytes + self.slots.nbytes + self.start.nbytes
