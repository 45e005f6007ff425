"""Exact all-pairs Hamming join over 64-bit fingerprints, vectorised with numpy.

The join is the permuted-table scheme of Manku, Jain and Das Sarma (2007): the 64 bits
are cut into ``m`` contiguous blocks and, for a distance bound ``k < m``, any two
fingerprints within ``k`` bits agree on at least ``m - k`` whole blocks (pigeonhole).
One table per choice of ``c = m - k`` blocks sorts the fingerprints by those blocks'
bits; only fingerprints in the same run of equal keys are compared. ``m = k + 1`` is
ditto's plain banding (one block per table); larger ``m`` gives fewer, wider keys at the
price of more tables, and a cost model picks the cheapest design (or brute force for
small inputs). A pair found in several tables is kept only in the first table, in
lexicographic order of block choices, whose blocks all agree, so each pair is reported
once without a set or a sort.

Everything here is a pure function of its arguments: no caching, no globals with state.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ditto_tui.core.simhash import popcount64

__all__ = ["TableDesign", "all_pairs", "choose_design", "unique_pairs"]

_U64 = np.uint64
# Rough per-element costs (seconds) used only to rank designs; measured on one core.
_COST_SORT = 25e-9  # per fingerprint per table: key extraction + packed sort + run split
_COST_CAND = 12e-9  # per candidate pair: gather, xor, popcount, filter
_COST_TABLE = 60e-6  # fixed numpy overhead per table
_MAX_TABLES = 1500


@dataclass(frozen=True, slots=True)
class TableDesign:
    """A permuted-table design: ``m`` contiguous blocks, tables = every ``c``-subset.

    ``blocks[i] = (offset, width)`` covers bits ``[i*64//m, (i+1)*64//m)`` from the least
    significant bit, exactly ditto's banding when ``m = k + 1`` and ``c = 1``.
    """

    m: int
    c: int

    @property
    def blocks(self) -> tuple[tuple[int, int], ...]:
        return tuple(
            (i * 64 // self.m, (i + 1) * 64 // self.m - i * 64 // self.m) for i in range(self.m)
        )

    @property
    def tables(self) -> list[tuple[int, ...]]:
        return list(itertools.combinations(range(self.m), self.c))


def _block_mask(off: int, width: int) -> int:
    return ((1 << width) - 1) << off


def choose_design(n: int, k: int) -> TableDesign | None:
    """Cheapest exact design for ``n`` unique fingerprints at distance ``k``, or ``None``
    when brute force is cheaper (small ``n``, or ``k`` so large that no table helps).

    Assumes ``0 <= k < 64``; the estimate models uniformly random fingerprints.
    """
    best: TableDesign | None = None
    best_cost = n * (n - 1) / 2 * _COST_CAND * 1.5
    for m in range(k + 1, 65):
        c = m - k
        t = math.comb(m, c)
        if t > _MAX_TABLES:
            if m > k + 2:
                break
            continue
        design = TableDesign(m, c)
        widths = [w for _, w in design.blocks]
        avg_bits = sum(widths) * c / m
        cost = t * (n * _COST_SORT + _COST_TABLE) + t * n * n / 2 / 2.0**avg_bits * _COST_CAND
        if cost < best_cost:
            best, best_cost = design, cost
    return best


def _brute_pairs(u: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = len(u)
    out_a: list[np.ndarray] = []
    out_b: list[np.ndarray] = []
    out_d: list[np.ndarray] = []
    step = max(1, 4_000_000 // max(n, 1))
    for start in range(0, n, step):
        rows = u[start : start + step]
        cols = u[start:]
        dist = popcount64(rows[:, None] ^ cols[None, :])
        ri, ci = np.nonzero(dist <= k)
        keep = ci > ri
        ri, ci = ri[keep], ci[keep]
        out_a.append(ri + start)
        out_b.append(ci + start)
        out_d.append(dist[ri, ci])
    return _cat(out_a, out_b, out_d)


def _cat(
    a: list[np.ndarray], b: list[np.ndarray], d: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not a:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.uint8)
    return (
        np.concatenate(a).astype(np.int64, copy=False),
        np.concatenate(b).astype(np.int64, copy=False),
        np.concatenate(d).astype(np.uint8, copy=False),
    )


def _table_key(
    u: np.ndarray, blocks: tuple[tuple[int, int], ...], chosen: tuple[int, ...]
) -> tuple[np.ndarray, int]:
    """Concatenated bits of the chosen blocks as one unsigned key, and its width."""
    key = np.zeros(len(u), _U64)
    shift = 0
    for b in chosen:
        off, width = blocks[b]
        part = (u >> _U64(off)) & _U64((1 << width) - 1)
        key |= part << _U64(shift) if shift else part
        shift += width
    return key, shift


def _runs_sorted(
    u: np.ndarray, blocks: tuple[tuple[int, int], ...], chosen: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of ``u`` grouped by equal key (only runs of length >= 2), and for each
    position the exclusive end of its run."""
    n = len(u)
    key, bits = _table_key(u, blocks, chosen)
    idx_bits = max(1, int(n - 1).bit_length())
    if bits + idx_bits <= 64:
        packed = np.sort((key << _U64(idx_bits)) | np.arange(n, dtype=_U64))
        skey = packed >> _U64(idx_bits)
        order = (packed & _U64((1 << idx_bits) - 1)).astype(np.int64)
    else:
        order = np.argsort(key)
        skey = key[order]
    same = skey[1:] == skey[:-1]
    if not same.any():
        return np.empty(0, np.int64), np.empty(0, np.int64)
    inrun = np.zeros(n, bool)
    inrun[1:] |= same
    inrun[:-1] |= same
    pos = np.flatnonzero(inrun)
    seq = order[pos]
    # run boundaries inside the compressed sequence
    sk = skey[pos]
    start = np.ones(len(pos), bool)
    start[1:] = sk[1:] != sk[:-1]
    starts = np.flatnonzero(start)
    ends = np.append(starts[1:], len(pos))
    end = np.repeat(ends, np.diff(np.append(starts, len(pos))))
    return seq, end


def unique_pairs(
    u: np.ndarray, k: int, design: TableDesign | None | bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All index pairs ``(a, b)``, ``a < b``, with ``popcount(u[a] ^ u[b]) <= k``.

    ``u`` must hold *distinct* fingerprints (uint64); with duplicates a pair may be missed
    or repeated. Returns ``(a, b, d)`` as int64, int64, uint8 arrays in no particular
    order, each pair exactly once. ``design=True`` lets the cost model choose, ``None``
    forces brute force, a :class:`TableDesign` forces that design, which must be
    exact for ``k`` (``m - c >= k``, else ``ValueError``).
    """
    u = np.ascontiguousarray(u, dtype=_U64)
    n = len(u)
    if k < 0 or n < 2:
        return _cat([], [], [])
    if k >= 64:
        a, b = np.triu_indices(n, 1)
        return a.astype(np.int64), b.astype(np.int64), popcount64(u[a] ^ u[b]).astype(np.uint8)
    if design is True:
        design = choose_design(n, k)
    if design is None or design is False:
        return _brute_pairs(u, k)
    assert isinstance(design, TableDesign)
    if design.m - design.c < k or design.c < 1:
        raise ValueError(f"design m={design.m} c={design.c} is not exact for k={k}")
    blocks = design.blocks
    bmasks = [_U64(_block_mask(off, w)) for off, w in blocks]
    out_a: list[np.ndarray] = []
    out_b: list[np.ndarray] = []
    out_d: list[np.ndarray] = []
    for chosen in design.tables:
        # blocks that, if also equal, would have made an earlier table report the pair
        earlier = [bmasks[j] for j in range(chosen[-1]) if j not in chosen]
        seq, end = _runs_sorted(u, blocks, chosen)
        if len(seq) == 0:
            continue
        positions = np.arange(len(seq))
        active = np.flatnonzero(end > positions + 1)
        off = 1
        while len(active):
            a = seq[active]
            b = seq[active + off]
            x = u[a] ^ u[b]
            d = popcount64(x)
            keep = d <= k
            if earlier and keep.any():
                sel = np.flatnonzero(keep)
                xs = x[sel]
                ok = np.ones(len(sel), bool)
                for mask in earlier:
                    ok &= (xs & mask) != 0
                keep = sel[ok]
            if len(keep):
                out_a.append(a[keep])
                out_b.append(b[keep])
                out_d.append(d[keep])
            off += 1
            active = active[end[active] > active + off]
    a, b, d = _cat(out_a, out_b, out_d)
    lo = np.minimum(a, b)
    hi = np.maximum(a, b)
    return lo, hi, d


def _group_positions(fps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unique values, positions grouped by value, group starts and counts."""
    u, inv, counts = np.unique(fps, return_inverse=True, return_counts=True)
    order = np.argsort(inv, kind="stable")
    starts = np.cumsum(counts) - counts
    return u, order, starts, counts


def all_pairs(fps: np.ndarray | list[int], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every position pair ``(i, j)``, ``i < j``, whose fingerprints are within ``k`` bits.

    Exact (same set as a brute-force double loop), for any ``k``: ``k < 0`` gives no
    pairs, ``k >= 64`` gives all pairs. Identical fingerprints are distinct positions and
    pair with distance 0; they are collapsed internally, so the cost is the join over
    distinct values plus the size of the output. Returns ``(i, j, d)`` as int64, int64,
    uint8 arrays sorted by ``(i, j)``. ``fps`` values must fit in 64 unsigned bits
    (``OverflowError``/``ValueError`` otherwise).
    """
    fps = (
        np.asarray(fps, dtype=_U64)
        if not isinstance(fps, np.ndarray)
        else fps.astype(_U64, copy=False)
    )
    n = len(fps)
    if k < 0 or n < 2:
        return _cat([], [], [])
    u, order, starts, counts = _group_positions(fps)
    ua, ub, ud = unique_pairs(u, min(k, 64))
    parts_i: list[np.ndarray] = []
    parts_j: list[np.ndarray] = []
    parts_d: list[np.ndarray] = []
    # pairs across two distinct values: the cartesian product of their position groups
    if len(ua):
        na, nb = counts[ua], counts[ub]
        tot = na * nb
        rep = np.repeat(np.arange(len(ua)), tot)
        within = np.arange(int(tot.sum())) - np.repeat(np.cumsum(tot) - tot, tot)
        nbr = nb[rep]
        parts_i.append(order[starts[ua][rep] + within // nbr])
        parts_j.append(order[starts[ub][rep] + within % nbr])
        parts_d.append(ud[rep])
    # pairs inside a group of identical values (distance 0)
    gi, gj = _pairs_within_groups(order, starts, counts)
    parts_i.append(gi)
    parts_j.append(gj)
    parts_d.append(np.zeros(len(gi), np.uint8))
    i, j, d = _cat(parts_i, parts_j, parts_d)
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    srt = np.lexsort((hi, lo))
    return lo[srt], hi[srt], d[srt]


def _pairs_within_groups(
    order: np.ndarray, starts: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    big = counts >= 2
    if not big.any():
        return np.empty(0, np.int64), np.empty(0, np.int64)
    seq = order[np.repeat(big, counts)]
    cnt = counts[big]
    ends = np.cumsum(cnt)
    end = np.repeat(ends, cnt)
    out_i: list[np.ndarray] = []
    out_j: list[np.ndarray] = []
    positions = np.arange(len(seq))
    active = np.flatnonzero(end > positions + 1)
    off = 1
    while len(active):
        out_i.append(seq[active])
        out_j.append(seq[active + off])
        off += 1
        active = active[end[active] > active + off]
    return np.concatenate(out_i), np.concatenate(out_j)
