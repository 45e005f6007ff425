"""Exact all-pairs Hamming join over 64-bit fingerprints, vectorised with numpy.

The join is the permuted-table scheme of Manku, Jain and Das Sarma (2007): the 64 bits
are cut into ``m`` blocks and, for a distance bound ``k < m``, any two fingerprints
within ``k`` bits agree on at least ``m - k`` whole blocks (pigeonhole). One table per
choice of ``c = m - k`` blocks sorts the fingerprints by those blocks' bits; only
fingerprints in the same run of equal keys are compared. ``m = k + 1`` is ditto's plain
banding (one block per table); larger ``m`` gives fewer, wider keys at the price of more
tables. A pair found in several tables is kept only in the first table, in
lexicographic order of block choices, whose blocks all agree, so each pair is reported
once without a set or a sort.

The pigeonhole argument holds for *any* partition of the 64 bits, so the blocks need
not be contiguous nor equally wide. Fingerprints of real text are far from uniform
(some bits are almost constant, unrelated documents are often only 14-28 bits apart),
which makes contiguous blocks very unequal filters. :func:`choose_design` therefore
looks at a sample of pairs of the actual fingerprints: it estimates how often each bit
differs, deals the bits into blocks of equal selectivity (a bit permutation applied
once to every fingerprint), and ranks designs by the candidate counts measured on the
sample, falling back to the uniform-key model when the data look random.

Candidates are verified two ways. Runs of up to ``_ROW_RUN`` fingerprints are laid
out by decreasing length and position ``p`` is compared with ``p + o`` for each offset
``o`` in one contiguous pass over all of them; longer runs, one at a time, are
compared as rings (``i`` against ``i + o`` modulo the run length, ``o`` up to half of
it), a block of offsets per broadcast, about a nanosecond per candidate. A pair found
in an earlier table is recognised from its XOR with a has-zero-field test.

Everything here is a pure function of its arguments: no caching, no globals with state
(the pair sample uses a fixed seed).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ditto_tui.core.fingerprint import engine
from ditto_tui.core.fingerprint.simhash import popcount64
from ditto_tui.core.index.radix import stable_order

__all__ = [
    "PairsLookup",
    "TableDesign",
    "UniquePairs",
    "all_pairs",
    "choose_design",
    "fingerprints_digest",
    "group_positions",
    "iter_unique_pairs",
    "ring_rows",
    "unique_pairs",
]

_U64 = np.uint64
_ALL = (1 << 64) - 1
# Rough per-element costs (seconds) used only to rank designs; measured on one core.
_COST_SORT = 35e-9  # per fingerprint per table: key extraction + packed sort + run split
_COST_CAND = 12e-9  # per candidate pair in a short run: gather, xor, popcount, filter
_COST_TILE = 1e-9  # per candidate pair in a very long run (broadcast)
_COST_TILE_RUN = 36e-9  # ... plus this over the square root of the run size
_COST_TABLE = 60e-6  # fixed numpy overhead per table
# The compiled join (measured on one core: 1M fingerprints, k 3 and 8): per fingerprint per
# radix pass of a table's sort, per candidate pair, and per table.
_C_COST_PASS = 4.5e-9
_C_COST_CAND = 1.5e-9
_C_COST_TABLE = 20e-6
_MAX_TABLES = 1500
# Data-aware design: inputs with at least _SAMPLE_MIN_N distinct fingerprints are
# sampled with _SAMPLE_PAIRS random pairs; a permuted design is used only when its
# estimated cost is below _PERMUTE_GAIN times the best contiguous one.
_SAMPLE_MIN_N = 2048
_SAMPLE_PAIRS = 1 << 16
_PERMUTE_GAIN = 0.8
# Verification: runs up to _ROW_RUN positions by offsets, longer ones by broadcasting
# blocks of about _ROW_BLOCK comparisons.
_ROW_RUN = 256
_ROW_BLOCK = 1 << 16
# Threads: from this many distinct fingerprints the tables are shared among threads.
_THREADS_FROM = 20_000


@dataclass(frozen=True, slots=True)
class TableDesign:
    """A permuted-table design: ``m`` blocks of bits, tables = every ``c``-subset.

    By default block ``i`` covers bits ``[i*64//m, (i+1)*64//m)`` from the least
    significant bit, exactly ditto's banding when ``m = k + 1`` and ``c = 1``.
    ``order`` (a permutation of ``0..63``) first moves original bit ``order[j]`` to
    position ``j``; ``widths`` (``m`` positive ints summing to 64) then cuts the
    permuted bits into contiguous blocks of those widths. Either may be ``None``
    (identity order, equal widths); ``ValueError`` on an invalid layout.
    """

    m: int
    c: int
    widths: tuple[int, ...] | None = None
    order: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.widths is not None and (
            len(self.widths) != self.m or sum(self.widths) != 64 or min(self.widths) < 1
        ):
            raise ValueError(f"widths {self.widths} must be {self.m} positive ints summing to 64")
        if self.order is not None and sorted(self.order) != list(range(64)):
            raise ValueError("order must be a permutation of 0..63")

    @property
    def blocks(self) -> tuple[tuple[int, int], ...]:
        """``(offset, width)`` of each block, in permuted bit positions."""
        if self.widths is None:
            return tuple(
                (i * 64 // self.m, (i + 1) * 64 // self.m - i * 64 // self.m) for i in range(self.m)
            )
        offs = itertools.accumulate(self.widths, initial=0)
        return tuple(zip(offs, self.widths, strict=False))

    @property
    def tables(self) -> list[tuple[int, ...]]:
        return list(itertools.combinations(range(self.m), self.c))

    def block_masks(self) -> list[int]:
        """Mask of each block over the *original* (unpermuted) bit positions."""
        order = self.order if self.order is not None else range(64)
        return [sum(1 << order[j] for j in range(off, off + w)) for off, w in self.blocks]

    def permute(self, u: np.ndarray) -> np.ndarray:
        """``u`` with its bits moved by ``order`` (``u`` itself when there is none).
        Hamming distances are unchanged."""
        if self.order is None or tuple(self.order) == tuple(range(64)):
            return u
        return _permute_bits(u, self.order)


def _permute_bits(u: np.ndarray, order: tuple[int, ...]) -> np.ndarray:
    """Move bit ``order[j]`` of every element to bit ``j`` (one lookup per byte)."""
    lut = np.zeros((8, 256), _U64)
    values = np.arange(256)
    for j, bit in enumerate(order):
        byte, pos = divmod(bit, 8)
        lut[byte, (values >> pos) & 1 == 1] |= _U64(1 << j)
    as_bytes = _bytes_le(u)
    out: np.ndarray = lut[0][as_bytes[:, 0]]
    for byte in range(1, 8):
        out |= lut[byte][as_bytes[:, byte]]
    return out


def _bytes_le(u: np.ndarray) -> np.ndarray:
    """``(n, 8)`` uint8 view of uint64 values, least significant byte first."""
    return np.ascontiguousarray(u, dtype="<u8").view(np.uint8).reshape(-1, 8)


def _block_mask(off: int, width: int) -> int:
    return ((1 << width) - 1) << off


def _sym_poly(values: list[float], c: int) -> float:
    """Elementary symmetric polynomial ``e_c`` of ``values``."""
    e = [1.0] + [0.0] * c
    for v in values:
        for j in range(c, 0, -1):
            e[j] += e[j - 1] * v
    return e[c]


def _pair_sample(u: np.ndarray) -> np.ndarray:
    """XORs of ``_SAMPLE_PAIRS`` random pairs of distinct positions (fixed seed)."""
    n = len(u)
    rng = np.random.default_rng(0x5EED)
    a = rng.integers(0, n, _SAMPLE_PAIRS)
    b = (a + rng.integers(1, n, _SAMPLE_PAIRS)) % n
    sample: np.ndarray = u[a] ^ u[b]
    return sample


def _balanced_layout(m: int, pdiff: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Deal the 64 bits into ``m`` blocks of about equal selectivity.

    A bit that differs with probability ``p`` between two random fingerprints carries
    ``-log2(1 - p)`` bits of filtering; bits are taken from the most selective and each
    goes to the block with the least so far (ties: fewer bits, lower index). Returns
    ``(widths, order)`` for :class:`TableDesign`."""
    info = -np.log2(np.clip(1.0 - pdiff, 1e-12, 1.0))
    total = [0.0] * m
    members: list[list[int]] = [[] for _ in range(m)]
    for bit in np.argsort(-info, kind="stable").tolist():
        j = min(range(m), key=lambda b: (total[b], len(members[b]), b))
        members[j].append(bit)
        total[j] += float(info[bit])
    order = tuple(bit for block in members for bit in sorted(block))
    return tuple(len(block) for block in members), order


def _radix_passes(design: TableDesign) -> float:
    """Mean number of bytes a table's key touches: the compiled join's radix passes."""
    passes = [sum(1 for byte in range(8) if (mask >> (8 * byte)) & 0xFF)
              for mask in (sum(_block_mask(*design.blocks[b]) for b in chosen)
                           for chosen in design.tables)]
    return sum(passes) / len(passes)


def _design_cost(design: TableDesign, n: int, sample: np.ndarray | None) -> float:
    """Estimated seconds for ``design`` on ``n`` distinct fingerprints.

    Candidates are at least what uniformly random keys would give (a lower bound for
    any key distribution); ``sample`` (XORs of random pairs) measures the real count:
    a pair agreeing on ``a`` blocks is a candidate in ``comb(a, c)`` tables. With the
    numpy join a candidate costs less the longer the runs of equal keys are (broadcasts
    over whole runs instead of per-run and per-offset overheads); fitted on real and
    random data. The compiled join sorts a table in one radix pass per byte of its key
    and compares candidates one by one, far cheaper: fewer, narrower tables pay."""
    tables = math.comb(design.m, design.c)
    pairs = n * (n - 1) / 2
    cand = pairs * _sym_poly([2.0**-w for _, w in design.blocks], design.c)
    if sample is not None:
        agree = np.zeros(len(sample), np.int64)
        for mask in design.block_masks():
            agree += (sample & _U64(mask)) == 0
        per_pair = np.array([math.comb(a, design.c) for a in range(design.m + 1)], float)
        cand = max(cand, pairs * float(per_pair[agree].mean()))
    if engine.compiled() is not None:
        passes = _radix_passes(design)
        return tables * (n * _C_COST_PASS * passes + _C_COST_TABLE) + cand * _C_COST_CAND
    partners = 2 * cand / (tables * n)  # mean run length - 1, weighted by candidates
    per_cand = min(_COST_CAND, _COST_TILE + _COST_TILE_RUN / math.sqrt(max(partners, 1.0)))
    return tables * (n * _COST_SORT + _COST_TABLE) + cand * per_cand


def choose_design(n: int, k: int, fps: np.ndarray | None = None) -> TableDesign | None:
    """Cheapest exact design for ``n`` unique fingerprints at distance ``k``, or ``None``
    when brute force is cheaper (small ``n``, or ``k`` so large that no table helps).

    Assumes ``0 <= k < 64``. Without ``fps`` (the ``n`` distinct fingerprints, uint64)
    the estimate models uniformly random fingerprints and blocks are contiguous; with
    them, a sample of pairs measures the candidates and the bits may be permuted into
    balanced blocks. The choice is deterministic for given arguments.
    """
    sample = pdiff = None
    if fps is not None and n >= _SAMPLE_MIN_N:
        sample = _pair_sample(np.asarray(fps, _U64))
        bits = np.unpackbits(_bytes_le(sample), axis=1, bitorder="little")
        pdiff = bits.mean(axis=0, dtype=np.float64)
    best: TableDesign | None = None
    best_cost = n * (n - 1) / 2 * _COST_CAND * 1.5
    best_perm: TableDesign | None = None
    best_perm_cost = math.inf
    for m in range(k + 1, 65):
        c = m - k
        t = math.comb(m, c)
        if t > _MAX_TABLES:
            if m > k + 2:
                break
            continue
        table_cost = _C_COST_PASS * 2 if engine.compiled() is not None else _COST_SORT
        if t * (n * table_cost + _COST_TABLE) >= min(best_cost, best_perm_cost):
            break  # tables alone cost more, and their number grows with m
        design = TableDesign(m, c)
        cost = _design_cost(design, n, sample)
        if cost < best_cost:
            best, best_cost = design, cost
        if pdiff is not None:
            widths, order = _balanced_layout(m, pdiff)
            permuted = TableDesign(m, c, widths, order)
            cost = _design_cost(permuted, n, sample)
            if cost < best_perm_cost:
                best_perm, best_perm_cost = permuted, cost
    if best_perm is not None and best_perm_cost < _PERMUTE_GAIN * best_cost:
        return best_perm
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
    a: list[np.ndarray], b: list[np.ndarray], d: list[np.ndarray],
    dtype: type[np.signedinteger] = np.int64,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The parts joined, indices as ``dtype`` (each index < 2**31 for int32)."""
    if not a:
        return np.empty(0, dtype), np.empty(0, dtype), np.empty(0, np.uint8)
    return (
        np.concatenate(a, dtype=dtype, casting="unsafe"),
        np.concatenate(b, dtype=dtype, casting="unsafe"),
        np.concatenate(d).astype(np.uint8, copy=False),
    )


def _table_key(
    u: np.ndarray, blocks: tuple[tuple[int, int], ...], chosen: tuple[int, ...]
) -> tuple[np.ndarray, int]:
    """Concatenated bits of the chosen blocks as one unsigned key, and its width."""
    spans: list[list[int]] = []  # adjacent chosen blocks are extracted together
    for b in chosen:
        off, width = blocks[b]
        if spans and spans[-1][0] + spans[-1][1] == off:
            spans[-1][1] += width
        else:
            spans.append([off, width])
    key = None
    shift = 0
    for off, width in spans:
        part = u >> _U64(off) if off else u.copy()
        if off + width < 64:
            part &= _U64((1 << width) - 1)
        if key is None:
            key = part
        else:
            part <<= _U64(shift)
            key |= part
        shift += width
    assert key is not None
    return key, shift


def _runs(
    u: np.ndarray, blocks: tuple[tuple[int, int], ...], chosen: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices of ``u`` grouped by equal key, only runs of length >= 2 (``seq``), and
    the start (in ``seq``) and length of each run."""
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
        empty = np.empty(0, np.int64)
        return empty, empty, empty
    inrun = np.zeros(n, bool)
    inrun[1:] = same
    inrun[:-1] |= same
    pos = np.flatnonzero(inrun)
    sk = skey[pos]
    first = np.ones(len(pos), bool)
    first[1:] = sk[1:] != sk[:-1]
    starts = np.flatnonzero(first)
    return order[pos], starts, np.diff(np.append(starts, len(pos)))


def _earlier_test(
    blocks: tuple[tuple[int, int], ...], chosen: tuple[int, ...]
) -> tuple[np.uint64, np.uint64, np.uint64] | None:
    """Constants for :func:`_first_table` in the table of ``chosen`` blocks: the
    blocks that, if also equal, would have made an earlier table report the pair (the
    blocks before ``chosen[-1]`` that are not chosen); ``None`` if there are none."""
    earlier = [j for j in range(chosen[-1]) if j not in chosen]
    if not earlier:
        return None
    mask = sum(_block_mask(*blocks[j]) for j in earlier)
    low = sum(1 << blocks[j][0] for j in earlier)
    high = sum(1 << (blocks[j][0] + blocks[j][1] - 1) for j in earlier)
    return _U64(mask ^ _ALL), _U64(low), _U64(high)


def _first_table(x: np.ndarray, test: tuple[np.uint64, np.uint64, np.uint64]) -> np.ndarray:
    """Which XORs ``x`` are non-zero on every block of ``test`` (see
    :func:`_earlier_test`), i.e. belong to this table and no earlier one.

    The has-zero-field trick: with the other bits set, subtracting the low bit of every
    tested block borrows through the lowest all-zero tested block (if any) and sets its
    high bit, which was clear in ``x``; a non-zero field never borrows and cannot turn
    its high bit on. Exact, five vectorised operations."""
    others, low, high = test
    y = x | others
    y -= low
    y &= high
    passed: np.ndarray = (y & x) == y
    return passed


class _Pairs:
    """Accumulates verified pairs (original indices and distances)."""

    __slots__ = ("a", "b", "d")

    def __init__(self) -> None:
        self.a: list[np.ndarray] = []
        self.b: list[np.ndarray] = []
        self.d: list[np.ndarray] = []

    def add(self, a: np.ndarray, b: np.ndarray, d: np.ndarray) -> None:
        if len(a):
            self.a.append(a)
            self.b.append(b)
            self.d.append(d)


def _short_runs(
    vs: np.ndarray,
    seq: np.ndarray,
    starts: np.ndarray,
    lens: np.ndarray,
    k: int,
    test: tuple[np.uint64, np.uint64, np.uint64] | None,
    out: _Pairs,
) -> None:
    """Pairs within ``k`` inside runs of at most ``_ROW_RUN`` positions.

    The runs are laid out by decreasing length; for each offset ``o`` one contiguous
    pass compares position ``p`` with ``p + o`` over the prefix of runs longer than
    ``o``. Comparisons that cross into the next run are wasted but harmless: hits are
    checked against the run end afterwards (they are rare)."""
    if not len(lens):
        return
    by_len = np.argsort((_ROW_RUN - lens).astype(np.uint16), kind="stable")  # radix sort
    lens, starts = lens[by_len], starts[by_len]
    ends = np.cumsum(lens)
    total = int(ends[-1])
    here = np.arange(total)
    pos = here + np.repeat(starts - (ends - lens), lens)
    vm = vs[pos]
    idx = seq[pos]
    room = np.repeat(ends, lens) - here  # positions left in the run, this one included
    neg = -lens
    xbuf = np.empty(total, _U64)
    dbuf = np.empty(total, np.uint8)
    hbuf = np.empty(total, bool)
    for off in range(1, int(lens[0])):
        longer = int(np.searchsorted(neg, -off, side="left"))  # runs longer than off
        size = int(ends[longer - 1]) - off
        x = np.bitwise_xor(vm[:size], vm[off : size + off], out=xbuf[:size])
        dist, hits = _verify(x, dbuf[:size], hbuf[:size], k, test)
        if not len(hits):
            continue
        hits = hits[room[hits] > off]
        out.add(idx[hits], idx[hits + off], dist[hits])


def _verify(
    x: np.ndarray,
    dbuf: np.ndarray,
    hbuf: np.ndarray,
    k: int,
    test: tuple[np.uint64, np.uint64, np.uint64] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Distances of the XORed candidates ``x`` (into ``dbuf``) and the positions within
    ``k`` that this table reports (``test``: only where it is the pair's first table)."""
    dist = popcount64(x, dbuf)
    hits = np.flatnonzero(np.less_equal(dist, k, out=hbuf))
    if test is not None and len(hits):
        hits = hits[_first_table(x[hits], test)]
    return dist, hits


def _long_run(
    vs: np.ndarray,
    seq: np.ndarray,
    start: int,
    length: int,
    k: int,
    test: tuple[np.uint64, np.uint64, np.uint64] | None,
    out: _Pairs,
    bufs: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """Pairs within ``k`` inside one long run (``length`` entries from ``start``), all of
    its rows at once (:func:`ring_rows`)."""
    stop = start + length
    for _ in ring_rows(vs[start:stop], seq[start:stop], 0, length, k, test, out.add, bufs=bufs):
        pass


def ring_rows(
    vs: np.ndarray,
    ids: np.ndarray,
    lo: int,
    hi: int,
    k: int,
    test: tuple[np.uint64, np.uint64, np.uint64] | None,
    add: Callable[[np.ndarray, np.ndarray, np.ndarray], None],
    *,
    block: int = _ROW_BLOCK,
    bufs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> Iterator[None]:
    """Pairs within ``k`` of one run ``vs`` (positions ``ids``) compared as a ring, for
    its rows ``lo:hi``: row ``i`` against ``(i + o) mod n`` for ``o = 1 .. n // 2`` (for
    ``o = n / 2`` only ``i < n / 2``), so the rows of a run, whole or in slices, meet every
    pair once. Blocks of offsets (about ``block`` cells each) are one broadcast over a
    sliding window of the run followed by its first half, so nothing is compared twice or
    across runs; each block's pairs go to ``add``, then it yields. ``bufs`` are scratch
    buffers (XOR, distance, hit flags), used when large enough."""
    n = len(vs)
    half = n // 2
    rows = hi - lo
    if rows <= 0 or half == 0:
        return
    ring = np.concatenate((vs, vs[:half]))
    windows = sliding_window_view(ring[lo:], rows)  # windows[o] = ring[lo + o : hi + o]
    base = vs[None, lo:hi]
    per = max(1, block // rows)
    cells = per * rows
    if bufs is None or len(bufs[0]) < cells:
        bufs = (np.empty(cells, _U64), np.empty(cells, np.uint8), np.empty(cells, bool))
    xbuf, dbuf, hbuf = bufs
    for o0 in range(1, half + 1, per):
        count = min(per, half + 1 - o0)
        size = count * rows
        x = xbuf[:size]
        np.bitwise_xor(windows[o0 : o0 + count], base, out=x.reshape(count, rows))
        dist, hits = _verify(x, dbuf[:size], hbuf[:size], k, test)
        if len(hits):
            step, i = np.divmod(hits, rows)
            off = step + o0
            i += lo
            if 2 * half == n:
                keep = (off < half) | (i < half)
                hits, i, off = hits[keep], i[keep], off[keep]
            j = i + off
            j[j >= n] -= n
            add(ids[i], ids[j], dist[hits])
        yield


def _join_tables(
    v: np.ndarray,
    blocks: tuple[tuple[int, int], ...],
    tables: list[tuple[int, ...]],
    outs: list[_Pairs],
    k: int,
    first: int,
    step: int,
    errors: list[BaseException],
) -> None:
    """The pairs of tables ``first, first + step, ...`` of the (permuted) fingerprints
    ``v``, each into its own ``outs`` entry; an exception is appended to ``errors``."""
    bufs = (np.empty(_ROW_BLOCK, _U64), np.empty(_ROW_BLOCK, np.uint8), np.empty(_ROW_BLOCK, bool))
    module = engine.compiled()
    try:
        for at in range(first, len(tables), step):
            if errors:
                return  # another worker failed: the join is lost anyway
            chosen = tables[at]
            out = outs[at]
            test = _earlier_test(blocks, chosen)
            if module is not None:  # the whole table in C (sort, runs, verify)
                mask = sum(_block_mask(*blocks[b]) for b in chosen)
                lo, hi, d = module.join_table(v, k, mask,
                                              None if test is None else tuple(map(int, test)))
                out.add(np.frombuffer(lo, np.uint32), np.frombuffer(hi, np.uint32),
                        np.frombuffer(d, np.uint8))
                continue
            seq, starts, lens = _runs(v, blocks, chosen)
            if len(seq) == 0:
                continue
            vs = v[seq]
            short = lens <= _ROW_RUN
            _short_runs(vs, seq, starts[short], lens[short], k, test, out)
            for s, n_run in zip(starts[~short].tolist(), lens[~short].tolist(), strict=True):
                _long_run(vs, seq, s, n_run, k, test, out, bufs)
    except BaseException as exc:  # (MemoryError, ...) re-raised by the caller
        errors.append(exc)


def unique_pairs(
    u: np.ndarray, k: int, design: TableDesign | None | bool = True, *, threads: int = 1,
    dtype: type[np.signedinteger] = np.int64,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All index pairs ``(a, b)``, ``a < b``, with ``popcount(u[a] ^ u[b]) <= k``.

    ``u`` must hold *distinct* fingerprints (uint64); with duplicates a pair may be missed
    or repeated. Returns ``(a, b, d)`` as ``dtype`` (int64, or int32 when ``len(u) <
    2**31``: half the memory, and no int64 copy is made on the way), ``dtype`` and uint8
    arrays in no particular order, each pair exactly once. ``design=True`` lets the cost
    model choose (looking at ``u``), ``None`` forces brute force, a :class:`TableDesign`
    forces that design, which must be exact for ``k`` (``m - c >= k``, else
    ``ValueError``). ``threads`` > 1 shares the tables among that many threads from
    ``_THREADS_FROM`` fingerprints (the result is the same arrays, in the same order).
    """
    u = np.ascontiguousarray(u, dtype=_U64)
    n = len(u)
    if dtype is not np.int64 and n >= 2**31:
        raise ValueError(f"{n} fingerprints do not fit {dtype.__name__} indices")
    if k < 0 or n < 2:
        return _cat([], [], [], dtype)
    if k >= 64:
        a, b = np.triu_indices(n, 1)
        return a.astype(dtype), b.astype(dtype), popcount64(u[a] ^ u[b]).astype(np.uint8)
    if design is True:
        design = choose_design(n, k, u)
    if design is None or design is False:
        a, b, d = _brute_pairs(u, k)
        return a.astype(dtype, copy=False), b.astype(dtype, copy=False), d
    assert isinstance(design, TableDesign)
    if design.m - design.c < k or design.c < 1:
        raise ValueError(f"design m={design.m} c={design.c} is not exact for k={k}")
    v = design.permute(u)
    tables = design.tables
    outs = [_Pairs() for _ in tables]
    workers = min(threads, len(tables)) if n >= _THREADS_FROM else 1
    errors: list[BaseException] = []
    # numpy releases the GIL in the sorts and passes: tables run side by side
    pool = [
        threading.Thread(
            target=_join_tables, args=(v, design.blocks, tables, outs, k, w, workers, errors),
            name=f"ditto-tui join {w}", daemon=True,
        )
        for w in range(1, workers)
    ]
    for thread in pool:
        thread.start()
    _join_tables(v, design.blocks, tables, outs, k, 0, workers, errors)
    for thread in pool:
        thread.join()
    if errors:
        raise errors[0]
    # (in table order whatever the threads: the same arrays as one thread gives)
    a, b, d = _cat(
        [x for out in outs for x in out.a],
        [x for out in outs for x in out.b],
        [x for out in outs for x in out.d],
        dtype,
    )
    del outs  # (the parts: as large as the result; 24M pairs are 190 MB in int32)
    lo = np.minimum(a, b)
    np.maximum(a, b, out=b)
    return lo, b, d


def iter_unique_pairs(
    u: np.ndarray, k: int, design: TableDesign | None | bool = True
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`unique_pairs` in chunks, one table at a time (one thread), so only one
    table's pairs are held at once: chunks ``(a, b, d)`` (positions as unsigned or signed
    integers, any order within a pair, and distances) whose union is exactly the pairs of ``unique_pairs(u, k,
    design)``, each pair once."""
    u = np.ascontiguousarray(u, dtype=_U64)
    n = len(u)
    if k < 0 or n < 2 or k >= 64:
        yield unique_pairs(u, k)
        return
    if design is True:
        design = choose_design(n, k, u)
    if design is None or design is False:
        yield _brute_pairs(u, k)
        return
    assert isinstance(design, TableDesign)
    if design.m - design.c < k or design.c < 1:
        raise ValueError(f"design m={design.m} c={design.c} is not exact for k={k}")
    v = design.permute(u)
    tables = design.tables
    for t in range(len(tables)):
        slot = _Pairs()
        errors: list[BaseException] = []
        _join_tables(v, design.blocks, tables, [slot] * len(tables), k, t, len(tables), errors)
        if errors:
            raise errors[0]
        if slot.a:  # as the join made them (uint32 positions from the compiled one)
            yield _joined(slot.a), _joined(slot.b), _joined(slot.d)


def _joined(parts: list[np.ndarray]) -> np.ndarray:
    """``parts`` as one array, without a copy when there is one part."""
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def group_positions(fps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unique values, positions grouped by value (in position order inside a group),
    group starts and counts: one stable sort (a radix sort in the compiled engine)."""
    order = stable_order(fps)
    ordered = fps[order]
    first = np.ones(len(ordered), bool)
    first[1:] = ordered[1:] != ordered[:-1]
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, len(ordered)))
    return ordered[starts], order, starts, counts


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
    u, order, starts, counts = group_positions(fps)
    ua, ub, ud = unique_pairs(u, min(k, 64))
    parts_i: list[np.ndarray] = []
    parts_j: list[np.ndarray] = []
    parts_d: list[np.ndarray] = []
    # pairs across two distinct values: the cartesian product of their position groups
    if len(ua):
        na, nb = counts[ua], counts[ub]
        tot = na * nb
        single = tot == 1  # the usual case: both values occur once
        parts_i.append(order[starts[ua[single]]])
        parts_j.append(order[starts[ub[single]]])
        parts_d.append(ud[single])
        if not single.all():
            multi = ~single
            ua, ub, ud, nb, tot = ua[multi], ub[multi], ud[multi], nb[multi], tot[multi]
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
    bits = max(1, (n - 1).bit_length())
    if 2 * bits + 7 <= 64:  # one packed sort of (lo, hi, d) instead of a lexsort
        packed = (lo.astype(_U64) << _U64(bits + 7)) | (hi.astype(_U64) << _U64(7)) | d
        packed.sort()
        low = _U64((1 << bits) - 1)
        lo = (packed >> _U64(bits + 7)).astype(np.int64)
        hi = ((packed >> _U64(7)) & low).astype(np.int64)
        return lo, hi, (packed & _U64(127)).astype(np.uint8)
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


def fingerprints_digest(u: np.ndarray) -> str:
    """Digest of the *sorted distinct* fingerprints ``u`` (32 hex digits): the key under
    which the result of :func:`unique_pairs` over ``u`` may be stored and reused."""
    data = np.ascontiguousarray(u, dtype="<u8").tobytes()
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True, eq=False)
class UniquePairs:
    """What ``unique_pairs(u, k)`` returns for the sorted distinct fingerprints ``u`` whose
    :func:`fingerprints_digest` is ``digest``: index pairs ``i < j`` into ``u`` (int32) with
    their distances ``d <= k`` (uint8), each pair once. A pure function of ``(u, k)``, so
    it can be persisted and handed back to :meth:`NearIndex.add_many` for the same ``u``."""

    digest: str
    k: int
    i: np.ndarray
    j: np.ndarray
    d: np.ndarray

    def __len__(self) -> int:
        return len(self.d)

    @classmethod
    def compute(
        cls, u: np.ndarray, k: int, digest: str | None = None, *, threads: int = 1
    ) -> UniquePairs:
        """Run :func:`unique_pairs` over the sorted distinct ``u`` (with ``threads``)."""
        a, b, d = unique_pairs(u, k, threads=threads, dtype=np.int32)
        return cls(digest if digest is not None else fingerprints_digest(u), k, a, b, d)

    def fits(self, n: int, digest: str, k: int) -> bool:
        """Whether these are the pairs of ``n`` distinct fingerprints with ``digest`` at
        ``k``: digest and k equal, arrays of one length, indices in ``0 <= i < j < n``."""
        if self.digest != digest or self.k != k:
            return False
        if not len(self.i) == len(self.j) == len(self.d):
            return False
        if len(self.i) == 0:
            return True
        return bool(
            int(self.i.min()) >= 0 and int(self.j.max()) < n and bool((self.i < self.j).all())
        )


#: Looks up stored pairs by ``(digest, k)``; None when there are none.
PairsLookup = Callable[[str, int], "UniquePairs | None"]
