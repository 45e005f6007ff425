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
"""

from __future__ import annotations

import math

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
    unique_pairs,
)

__all__ = [
    "MAX_TABLES",
    "SPLIT",
    "bucket_bits",
    "bucket_pairs",
    "choose_spark_design",
    "explode",
]

_U64 = np.uint64
#: Most tables a Spark design may have (each one replicates every fingerprint once).
MAX_TABLES = 128
#: Runs (buckets) longer than this are split by a further design over their own bits.
SPLIT = 4096
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


def bucket_pairs(
    bucket: np.ndarray, fps: np.ndarray, design: TableDesign, k: int, split: int = SPLIT
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Verified pairs among rows made by :func:`explode` (any subset holding whole
    buckets): ``(fp_a, fp_b, distance)`` with ``fp_a < fp_b`` as int64, each pair within
    ``k`` once -- from the first table where its blocks agree. Fingerprints must be
    distinct within a table; ``design`` must be exact for ``k``."""
    if design.m - design.c < k or design.c < 1:
        raise ValueError(f"design m={design.m} c={design.c} is not exact for k={k}")
    u = np.ascontiguousarray(fps).view(_U64)
    order = np.argsort(bucket, kind="stable")
    sb = bucket[order]
    starts, lens = _runs_of(sb)
    out = _Pairs()
    if len(starts):
        shift = bucket_bits(design)
        tables = design.tables
        table_of = (sb[starts] >> shift).astype(np.int64)
        v = design.permute(u)
        bufs = (np.empty(_ROW_BLOCK, _U64), np.empty(_ROW_BLOCK, np.uint8), np.empty(_ROW_BLOCK, bool))
        for t in np.unique(table_of).tolist():
            test = _earlier_test(design.blocks, tables[t])
            mine = table_of == t
            _table_runs(v, order, starts[mine], lens[mine], k, test, split, out, bufs)
    a, b, d = _cat(out.a, out.b, out.d)
    fa = u[a].view(np.int64)
    fb = u[b].view(np.int64)
    return np.minimum(fa, fb), np.maximum(fa, fb), d


def _table_runs(
    v: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    lens: np.ndarray,
    k: int,
    test: tuple[np.uint64, np.uint64, np.uint64] | None,
    split: int,
    out: _Pairs,
    bufs: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """Verify the runs of one table (positions ``order[start : start + len]`` of ``v``)."""
    local = np.cumsum(lens) - lens  # run starts within seq
    positions = np.arange(int(lens.sum())) + np.repeat(starts - local, lens)
    seq = order[positions]
    vs = v[seq]
    short = lens <= _ROW_RUN
    _short_runs(vs, seq, local[short], lens[short], k, test, out)
    for s, n in zip(local[~short].tolist(), lens[~short].tolist(), strict=True):
        if n <= split:
            _long_run(vs, seq, s, n, k, test, out, bufs)
            continue
        sub = vs[s : s + n]
        a, b, d = unique_pairs(sub, k)  # a data-aware design over the run's own bits
        if test is not None and len(a):
            keep = _first_table(sub[a] ^ sub[b], test)
            a, b, d = a[keep], b[keep], d[keep]
        out.add(seq[s + a], seq[s + b], d)
