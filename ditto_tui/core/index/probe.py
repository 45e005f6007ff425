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
    if width <= 16:
        return np.dtype(np.uint16)
    if width <= 32:
        return np.dtype(np.uint32)
    return np.dtype(np.uint64)


def _variants(width: int, radius: int, dtype: np.dtype) -> np.ndarray:
    """All ``width``-bit masks with at most ``radius`` bits set."""
    out = [0]
    for r in range(1, radius + 1):
        out.extend(sum(1 << b for b in combo) for combo in itertools.combinations(range(width), r))
    return np.array(out, dtype=dtype)


class ProbeTable:
    """One block's sorted keys and the distinct-entry slots they belong to."""

    __slots__ = ("dtype", "keys", "mask", "off", "slots", "variants")

    def __init__(self, off: int, width: int, radius: int) -> None:
        self.off = _U64(off)
        self.mask = _U64((1 << width) - 1)
        self.dtype = _key_dtype(width)
        self.variants = _variants(width, radius, self.dtype)
        self.keys = np.empty(0, self.dtype)
        self.slots = np.empty(0, np.uint32)

    def key(self, fps: np.ndarray) -> np.ndarray:
        return ((fps >> self.off) & self.mask).astype(self.dtype)

    def build(self, fps: np.ndarray, slots: np.ndarray) -> None:
        keys = self.key(fps)
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.slots = slots[order].astype(np.uint32)

    def insert(self, fps: np.ndarray, slots: np.ndarray) -> None:
        keys = self.key(fps)
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        where = np.searchsorted(self.keys, keys, side="right")
        self.keys = np.insert(self.keys, where, keys)
        self.slots = np.insert(self.slots, where, slots[order].astype(np.uint32))

    def candidates(self, fp: np.ndarray) -> np.ndarray:
        probes = self.key(fp) ^ self.variants
        lo = np.searchsorted(self.keys, probes, side="left")
        hi = np.searchsorted(self.keys, probes, side="right")
        lens = hi - lo
        total = int(lens.sum())
        if total == 0:
            return np.empty(0, np.uint32)
        if len(lens) == 1:
            return self.slots[int(lo[0]) : int(hi[0])]
        nz = lens > 0
        lo, lens = lo[nz], lens[nz]
        idx = np.arange(total) - np.repeat(np.cumsum(lens) - lens - lo, lens)
        found: np.ndarray = self.slots[idx]
        return found

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.slots.nbytes
