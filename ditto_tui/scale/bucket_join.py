"""The numpy side of the Spark pairs join: block keys out, verified pairs back (no Spark here).

The Spark job (:mod:`ditto_tui.scale.pairs`) explodes every distinct fingerprint into one
row per table of a :class:`~ditto_tui.core.index.pairs.TableDesign` -- ``(bucket, fp)`` where
``bucket`` packs the table number above the table's key bits (:func:`explode`) -- shuffles
the rows by ``bucket``, and hands each partition to :func:`bucket_pairs`, which verifies
every bucket (one run of equal keys) with the in-process kernel of
:mod:`ditto_tui.core.index.pairs`: short runs by offsets, long runs as rings, and runs above
``split`` members by a second, data-aware table design over the run (further key bits), so a
hot key is one task's in-memory problem, never a quadratic join. A pair is reported only
in the first table (lexicographic order of block choices) whose blocks all agree -- a
has-zero-field test on the XOR -- so every pair comes out exactly once without a
``distinct``. Pure functions of their arguments.

Skew: a bucket the driver's sample predicts to be *hot* (:func:`hot_buckets`: thousands of
members, as when every document is an edit of one text) is replicated into ``S`` parts
(:func:`replicate_hot`), each a separate shuffle key; part ``s`` compares only its slice
of the bucket's rows against the rest of the bucket as a ring (:func:`iter_bucket_pairs`),
so one bucket's quadratic work and output are spread over ``S`` tasks. Every verifier
yields its pairs in chunks of at most about ``chunk`` pairs, so a task's memory is bounded
by its input and one chunk, never by its output.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

from ditto_tui.core.index.pairs import (
    _ROW_BLOCK,
    _ROW_RUN,
    TableDesign,
    _balanced_layout,
    _bytes_le,
    _cat,
    _earlier_test,
    _first_table,
    _long_run,
    _pair_sample,
    _Pairs,
    _short_runs,
    _sym_poly,
    _table_key,
    ring_rows,
    unique_pairs,
)

__all__ = [
    "CHUNK",
    "MAX_TABLES",
    "SPLIT",
    "bucket_bits",
    "bucket_pairs",
    "choose_spark_design",
    "explode",
    "hot_buckets",
    "iter_bucket_pairs",
    "replicate_hot",
]

_U64 = np.uint64
#: Most tables a Spark design may have (each one replicates every fingerprint once).
MAX_TABLES = 128
#: Runs (buckets) longer than this are split by a further design over their own bits.
SPLIT = 4096
#: Runs up to this long are compared as a ring (every pair, streamed); longer ones by a
#: further data-aware design over their own bits (all their pairs at once).
RING_MAX = 1 << 16
#: Pairs a verifier gathers before it yields them (bounds a task's memory).
CHUNK = 1 << 20
#: A bucket predicted to hold more than this many fingerprints is hot (replicated).
HOT = 2048
#: Comparisons one part of a hot bucket should get, and the most parts of one bucket.
HOT_COMPARISONS = 20_000_000
MAX_PARTS = 256
_RING_BLOCK = 1 << 18
#: Receives verified pairs (positions, positions, distances); yields what was gathered.
_Add = Callable[[np.ndarray, np.ndarray, np.ndarray], None]
_Flush = Callable[[], Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]]
#: Estimated seconds per exploded row (explode, shuffle, sort in the task) and per
#: candidate pair (numpy verify) on one local core; only their ratio ranks designs.
ROW_COST = 1.0e-6
CAND_COST = 4.0e-9


def bucket_bits(design: TableDesign) -> int:
    """Bits of the widest table key of ``design`` (the table number sits above them)."""
    widths = [w for _, w in design.blocks]
    return max(sum(widths[b] for b in chosen) for chosen in design.tables)


def _fits(design: TableDesign) -> bool:
    tables = math.comb(design.m, design.c)
    return bucket_bits(design) + max(1, (tables - 1).bit_length()) <= 63


def choose_spark_design(n: int, k: int, sample: np.ndarray | None = None) -> TableDesign:
    """An exact design for ``n`` distinct fingerprints at distance ``k`` (``0 <= k < 64``).

    Minimises ``tables * n * ROW_COST + candidates * CAND_COST`` over ``m = k + 1, ...``
    with at most :data:`MAX_TABLES` tables. With ``sample`` (distinct fingerprints drawn
    from the input, uint64) the candidates are measured on random pairs of the sample and
    the bits may be dealt into blocks of equal selectivity (the in-process index's
    data-aware layout); without it fingerprints are modelled as uniformly random.
    """
    if not 0 <= k < 64:
        raise ValueError(f"k must be in 0..63, got {k}")
    pairs = max(n, 1) * max(n - 1, 0) / 2.0
    xs = pdiff = None
    if sample is not None and len(sample) >= 64:
        xs = _pair_sample(np.ascontiguousarray(sample, _U64))
        xs = xs[xs != 0]
        bits = np.unpackbits(_bytes_le(xs), axis=1, bitorder="little")
        pdiff = bits.mean(axis=0, dtype=np.float64)

    def cost(design: TableDesign) -> float:
        tables = math.comb(design.m, design.c)
        cand = pairs * _sym_poly([2.0 ** -w for _, w in design.blocks], design.c)
        if xs is not None and len(xs):
            agree = np.zeros(len(xs), np.int64)
            for mask in design.block_masks():
                agree += (xs & _U64(mask)) == 0
            per_pair = np.array([math.comb(a, design.c) for a in range(design.m + 1)], float)
            cand = max(cand, pairs * float(per_pair[agree].mean()))
        return tables * n * ROW_COST + cand * CAND_COST

    best = TableDesign(k + 1, 1)
    best_cost = cost(best)
    for m in range(k + 1, 65):
        c = m - k
        if math.comb(m, c) > MAX_TABLES:
            break
        candidates = [TableDesign(m, c)]
        if pdiff is not None:
            widths, order = _balanced_layout(m, pdiff)
            candidates.append(TableDesign(m, c, widths, order))
        for design in candidates:
            if not _fits(design):
                continue
            value = cost(design)
            if value < best_cost * 0.95:  # fewer tables unless clearly cheaper
                best, best_cost = design, value
    return best


def explode(fps: np.ndarray, design: TableDesign) -> tuple[np.ndarray, np.ndarray]:
    """One ``(bucket, fp)`` row per table per fingerprint: ``bucket`` (int64) is the table
    number shifted above :func:`bucket_bits`, or'ed with the table's key of the permuted
    bits; ``fp`` is ``fps`` repeated (same dtype), table after table."""
    u = np.ascontiguousarray(fps).view(_U64)
    v = design.permute(u)
    shift = _U64(bucket_bits(design))
    keys = []
    for t, chosen in enumerate(design.tables):
        key, _ = _table_key(v, design.blocks, chosen)
        keys.append(key | (_U64(t) << shift))
    bucket = np.concatenate(keys) if keys else np.empty(0, _U64)
    return bucket.view(np.int64), np.tile(np.ascontiguousarray(fps), len(keys))


def _runs_of(sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Starts and lengths of the runs of at least two equal values of a sorted array."""
    n = len(sorted_keys)
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    edge = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
    starts = np.concatenate(([0], edge))
    lens = np.diff(np.append(starts, n))
    keep = lens >= 2
    return starts[keep], lens[keep]


def hot_buckets(
    sample: np.ndarray, n: int, design: TableDesign, hot: int = HOT,
    comparisons: int = HOT_COMPARISONS,
) -> dict[int, int]:
    """Buckets that ``sample`` (distinct fingerprints drawn from ``n``, uint64 or int64)
    predicts to hold more than ``hot`` of the ``n``: ``{bucket: parts}``, ``parts`` (2 ..
    :data:`MAX_PARTS`) giving each part about ``comparisons`` of the bucket's
    ``size * (size - 1) / 2``. Empty without a sample."""
    if len(sample) == 0 or n <= hot:
        return {}
    bucket, _ = explode(np.ascontiguousarray(sample).view(np.int64), design)
    keys, counts = np.unique(bucket, return_counts=True)
    size = counts * (n / len(sample))
    out: dict[int, int] = {}
    for key, est in zip(keys[size > hot].tolist(), size[size > hot].tolist(), strict=True):
        parts = math.ceil(est * (est - 1) / 2 / comparisons)
        if parts >= 2:
            out[int(key)] = min(MAX_PARTS, parts)
    return out


def replicate_hot(
    bucket: np.ndarray, hot: dict[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of :func:`explode` with a ``part`` (int32): a row of a hot bucket (a key of
    ``hot``) once per part ``0 .. hot[bucket] - 1``, any other row once as part 0.
    Returns ``(positions, bucket, part)``: the input row of each output row, its bucket
    and its part."""
    rows = np.arange(len(bucket))
    part = np.zeros(len(bucket), np.int32)
    if not hot or not len(bucket):
        return rows, bucket, part
    keys = np.fromiter(hot, np.int64, len(hot))
    parts = np.fromiter(hot.values(), np.int64, len(hot))
    order = np.argsort(keys)
    keys, parts = keys[order], parts[order]
    at = np.minimum(np.searchsorted(keys, bucket), len(keys) - 1)
    copies = np.where(keys[at] == bucket, parts[at], 1)
    rows = np.repeat(rows, copies)
    starts = np.cumsum(copies) - copies
    part = (np.arange(len(rows)) - np.repeat(starts, copies)).astype(np.int32)
    return rows, bucket[rows], part


def bucket_pairs(
    bucket: np.ndarray, fps: np.ndarray, design: TableDesign, k: int, split: int = SPLIT
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Verified pairs among rows made by :func:`explode` (any subset holding whole
    buckets): ``(fp_a, fp_b, distance)`` with ``fp_a < fp_b`` as int64, each pair within
    ``k`` once -- from the first table where its blocks agree. Fingerprints must be
    distinct within a table; ``design`` must be exact for ``k``. (All of
    :func:`iter_bucket_pairs` at once.)"""
    chunks = list(iter_bucket_pairs(bucket, fps, design, k, split=split))
    a, b, d = _cat([c[0] for c in chunks], [c[1] for c in chunks], [c[2] for c in chunks])
    u = np.ascontiguousarray(fps).view(np.int64)
    fa, fb = u[a], u[b]
    return np.minimum(fa, fb), np.maximum(fa, fb), d


def iter_bucket_pairs(
    bucket: np.ndarray,
    fps: np.ndarray,
    design: TableDesign,
    k: int,
    *,
    part: np.ndarray | None = None,
    hot: dict[int, int] | None = None,
    split: int = SPLIT,
    chunk: int = CHUNK,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """:func:`bucket_pairs` as chunks of about ``chunk`` pairs ``(a, b, d)``: *positions*
    into ``fps`` (int64) and distances (uint8), in no order within a pair.

    With ``hot`` and ``part`` (rows made by :func:`replicate_hot`, any subset holding
    whole ``(bucket, part)`` groups), the group ``(bucket, s)`` of a hot bucket of ``S``
    parts gives only the pairs whose first member, in the ring order of the bucket (its
    members sorted by permuted value), is in slice ``s`` of ``S``: the parts of a bucket
    together give its pairs once."""
    if design.m - design.c < k or design.c < 1:
        raise ValueError(f"design m={design.m} c={design.c} is not exact for k={k}")
    u = np.ascontiguousarray(fps).view(_U64)
    v = design.permute(u)
    out = _Pairs()
    size = [0]

    def flush() -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        if size[0] >= chunk:
            yield _cat(out.a, out.b, out.d)
            out.a, out.b, out.d = [], [], []
            size[0] = 0

    def add(a: np.ndarray, b: np.ndarray, d: np.ndarray) -> None:
        out.add(a, b, d)
        size[0] += len(a)

    shift = bucket_bits(design)
    tables = design.tables
    plain = np.ones(len(bucket), bool)
    if hot and part is not None:
        plain = ~np.isin(bucket, np.fromiter(hot, np.int64, len(hot)))
        yield from _hot_groups(bucket, part, v, np.flatnonzero(~plain), hot, design, k,
                               add, flush)
    rows = np.flatnonzero(plain)
    order = rows[np.argsort(bucket[rows], kind="stable")]
    starts, lens = _runs_of(bucket[order])
    if len(starts):
        table_of = (bucket[order][starts] >> shift).astype(np.int64)
        bufs = (np.empty(_ROW_BLOCK, _U64), np.empty(_ROW_BLOCK, np.uint8),
                np.empty(_ROW_BLOCK, bool))
        for t in np.unique(table_of).tolist():
            test = _earlier_test(design.blocks, tables[t])
            mine = table_of == t
            for _ in _table_runs(v, order, starts[mine], lens[mine], k, test, split, add,
                                 bufs):
                yield from flush()
    if size[0]:
        yield _cat(out.a, out.b, out.d)


def _hot_groups(
    bucket: np.ndarray,
    part: np.ndarray,
    v: np.ndarray,
    rows: np.ndarray,
    hot: dict[int, int],
    design: TableDesign,
    k: int,
    add: _Add,
    flush: _Flush,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The slices of the hot ``(bucket, part)`` groups among ``rows``."""
    if not len(rows):
        return
    shift = bucket_bits(design)
    order = rows[np.lexsort((v[rows], part[rows], bucket[rows]))]
    key = bucket[order]
    sub = part[order]
    edge = np.flatnonzero((key[1:] != key[:-1]) | (sub[1:] != sub[:-1])) + 1
    bounds = np.concatenate(([0], edge, [len(order)])).tolist()
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        seq = order[lo:hi]
        b = int(key[lo])
        parts = hot[b]
        s = int(sub[lo])
        test = _earlier_test(design.blocks, design.tables[int(b >> shift)])
        n = len(seq)
        for _ in ring_rows(v[seq], seq, s * n // parts, (s + 1) * n // parts, k, test, add,
                             block=_RING_BLOCK):
            yield from flush()


def _table_runs(
    v: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    lens: np.ndarray,
    k: int,
    test: tuple[np.uint64, np.uint64, np.uint64] | None,
    split: int,
    add: _Add,
    bufs: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> Iterator[None]:
    """Verify the runs of one table (positions ``order[start : start + len]`` of ``v``),
    handing pairs to ``add``; yields whenever some may have been added."""
    local = np.cumsum(lens) - lens  # run starts within seq
    positions = np.arange(int(lens.sum())) + np.repeat(starts - local, lens)
    seq = order[positions]
    vs = v[seq]
    short = lens <= _ROW_RUN
    out = _Pairs()
    _short_runs(vs, seq, local[short], lens[short], k, test, out)
    for a, b, d in zip(out.a, out.b, out.d, strict=True):
        add(a, b, d)
    yield
    for s, n in zip(local[~short].tolist(), lens[~short].tolist(), strict=True):
        if n <= split:
            out = _Pairs()
            _long_run(vs, seq, s, n, k, test, out, bufs)
            for a, b, d in zip(out.a, out.b, out.d, strict=True):
                add(a, b, d)
            yield
        elif n <= RING_MAX:  # dense or not, every pair of the run, streamed
            yield from ring_rows(vs[s : s + n], seq[s : s + n], 0, n, k, test, add,
                                     block=_RING_BLOCK)
        else:
            sub = vs[s : s + n]
            a, b, d = unique_pairs(sub, k)  # a data-aware design over the run's own bits
            if test is not None and len(a):
                keep = _first_table(sub[a] ^ sub[b], test)
                a, b, d = a[keep], b[keep], d[keep]
            add(seq[s + a], seq[s + b], d)
            yield
