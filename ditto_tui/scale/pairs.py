"""Exact all-pairs within K on Spark: identical fingerprints grouped, then a block-key self-join.

The scheme is :mod:`ditto_tui.core.pairs`' permuted tables, with the same
:class:`~ditto_tui.core.pairs.TableDesign` block layout: the 64 bits are cut into ``m``
contiguous blocks (bits ``[i*64//m, (i+1)*64//m)``), and for ``K < m`` two fingerprints
within K bits agree on at least ``c = m - K`` whole blocks (pigeonhole). Every distinct
fingerprint is exploded into one row per table (a ``c``-subset of blocks, named by its
block bitmask ``t``) keyed by those blocks' bits; an equi-join on ``(t, key)`` gives the
candidates, ``bit_count(a ^ b) <= K`` keeps the true pairs, and a pair is kept only in
the *first* table (the ``c`` lowest agreeing blocks) so each pair comes out once without
a ``distinct``. ``m = K + 1`` is ditto's banding; wider designs trade replication (more
tables) for rarer key collisions and are chosen by :func:`choose_spark_design`.

Identical fingerprints are grouped first (``groups``: one row per distinct fp with its
multiplicity and sorted member ids), so a template shared by a million pages is one join
row, not a million. ``pairs-fp`` holds the pairs of *distinct* fingerprints (with both
multiplicities); document pairs (``pairs``) are the expansion -- every member of ``a`` with
every member of ``b``, plus every two members of one group at distance 0 -- and are only
written when asked, since their number is ``sum(n_a * n_b) + sum(n * (n - 1) / 2)``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ditto_tui.core.pairs import TableDesign
from ditto_tui.scale.layout import FINGERPRINTS, GROUPS, PAIRS, PAIRS_FP, join_uri, write_meta

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = [
    "PairsSummary",
    "choose_spark_design",
    "doc_pairs",
    "fp_pairs",
    "fingerprint_groups",
    "pairs_job",
]

MAX_K = 32
_MAX_TABLES = 128


@dataclass
class PairsSummary:
    """Counts of a pairs run: distinct fps, fp pairs, the expected and written doc pairs."""

    k: int
    design: tuple[int, int]
    documents: int
    distinct: int
    fp_pairs: int
    doc_pairs: int
    expanded: bool
    seconds: float


def choose_spark_design(n: int, k: int) -> TableDesign:
    """An exact design for ``n`` distinct fingerprints at distance ``k`` (``0 <= k <= 32``).

    Minimises rows shuffled (``tables * n``) plus the candidates expected for random
    fingerprints (``tables * n^2 / 2^(key bits) / 2``), with at most 128 tables; small
    inputs get ``m = k + 1`` (ditto's banding, ``k + 1`` tables).
    """
    if not 0 <= k <= MAX_K:
        raise ValueError(f"k must be in 0..{MAX_K}, got {k}")
    best = TableDesign(k + 1, 1)
    best_cost = math.inf
    for m in range(k + 1, 65):
        design = TableDesign(m, m - k)
        tables = math.comb(m, m - k)
        if tables > _MAX_TABLES:
            break
        bits = sum(w for _, w in design.blocks) * (m - k) / m
        cost = tables * n + tables * n * n / 2.0**bits / 2.0
        if cost < best_cost * 0.9:  # prefer fewer tables unless clearly cheaper
            best, best_cost = design, cost
    return best


def fingerprint_groups(fingerprints: DataFrame) -> DataFrame:
    """One row per distinct fp: ``fp, hex, n, members`` (ids sorted by code point)."""
    import pyspark.sql.functions as F

    return fingerprints.groupBy("fp").agg(
        F.first("hex").alias("hex"),
        F.count(F.lit(1)).alias("n"),
        F.array_sort(F.collect_list("id")).alias("members"),
    )


def _long(value: int) -> Column:
    """A long literal holding the 64 bits of unsigned ``value``."""
    import pyspark.sql.functions as F

    return F.lit(value - (1 << 64) if value >= 1 << 63 else value).cast("long")


def _lowest_bits(mask: Column, count: int) -> Column:
    """The ``count`` lowest set bits of a long ``mask`` (fewer if it has fewer)."""
    import pyspark.sql.functions as F

    acc = F.lit(0).cast("long")
    rest = mask
    for _ in range(count):
        low = rest.bitwiseAND(-rest)
        acc = acc.bitwiseOR(low)
        rest = rest - low
    return acc


def fp_pairs(distinct: DataFrame, k: int, design: TableDesign | None = None) -> DataFrame:
    """Pairs of distinct fingerprints within ``k`` bits: ``fp_a < fp_b`` (signed order),
    ``distance``; each pair once. ``distinct`` needs a unique ``fp`` (long) column.

    ``design`` must be exact for ``k`` (``m - c >= k``), else ValueError.
    """
    import pyspark.sql.functions as F

    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    design = design or TableDesign(k + 1, 1)
    if design.m - design.c < k or design.c < 1:
        raise ValueError(f"design m={design.m} c={design.c} is not exact for k={k}")
    if design.m == 1:  # k == 0: distinct fingerprints never pair
        spark = distinct.sparkSession
        return spark.createDataFrame([], "fp_a long, fp_b long, distance int")
    fp = F.col("fp")
    blocks = design.blocks
    entries = []
    for chosen in design.tables:
        key = F.lit(0).cast("long")
        shift = 0
        for b in chosen:
            off, width = blocks[b]
            part = F.shiftright(fp, off).bitwiseAND(F.lit((1 << width) - 1).cast("long"))
            key = key.bitwiseOR(F.shiftleft(part, shift)) if shift else part
            shift += width
        table = sum(1 << b for b in chosen)
        entries.append(F.struct(_long(table).alias("t"), key.alias("key")))
    exploded = distinct.select(fp, F.explode(F.array(*entries)).alias("e")).select(
        "fp", F.col("e.t").alias("t"), F.col("e.key").alias("key")
    )
    a = exploded.alias("a")
    b = exploded.alias("b")
    joined = a.join(
        b,
        (F.col("a.t") == F.col("b.t"))
        & (F.col("a.key") == F.col("b.key"))
        & (F.col("a.fp") < F.col("b.fp")),
    )
    x = F.col("a.fp").bitwiseXOR(F.col("b.fp"))
    agree = F.lit(0).cast("long")
    for i, (off, width) in enumerate(blocks):
        block = F.shiftright(x, off).bitwiseAND(F.lit((1 << width) - 1).cast("long"))
        agree = agree.bitwiseOR(F.when(block == 0, _long(1 << i)).otherwise(0))
    return (
        joined.select(
            F.col("a.fp").alias("fp_a"),
            F.col("b.fp").alias("fp_b"),
            F.col("a.t").alias("t"),
            F.bit_count(x).alias("distance"),
            agree.alias("agree"),
        )
        .where(F.col("distance") <= k)
        .where(_lowest_bits(F.col("agree"), design.c) == F.col("t"))
        .select("fp_a", "fp_b", F.col("distance").cast("int").alias("distance"))
    )


def doc_pairs(fingerprints: DataFrame, pairs_fp: DataFrame) -> DataFrame:
    """Every document pair ``a < b`` (code-point order) with its distance: the expansion of
    ``pairs_fp`` over the members of both fingerprints, plus identical-fp pairs at 0."""
    import pyspark.sql.functions as F

    docs = fingerprints.select("id", "fp")
    left = docs.select(F.col("id").alias("ia"), F.col("fp").alias("fp_a"))
    right = docs.select(F.col("id").alias("ib"), F.col("fp").alias("fp_b"))
    across = (
        pairs_fp.select("fp_a", "fp_b", "distance")
        .join(left, "fp_a")
        .join(right, "fp_b")
        .select(
            F.least("ia", "ib").alias("a"), F.greatest("ia", "ib").alias("b"), "distance"
        )
    )
    l2 = docs.select(F.col("id").alias("a"), "fp")
    r2 = docs.select(F.col("id").alias("b"), "fp")
    within = (
        l2.join(r2, "fp")
        .where(F.col("a") < F.col("b"))
        .select("a", "b", F.lit(0).cast("int").alias("distance"))
    )
    return across.unionByName(within)


def pairs_job(
    spark: SparkSession,
    out: str,
    k: int,
    *,
    expand: bool = False,
    design: TableDesign | None = None,
) -> PairsSummary:
    """Read ``out/fingerprints``; write ``out/groups``, ``out/pairs-fp`` (pairs within
    ``k``), ``out/pairs`` when ``expand``, and ``out/meta-pairs``.

    ``design`` defaults to :func:`choose_spark_design` for the distinct count.
    """
    import pyspark.sql.functions as F

    from ditto_tui.scale.session import delete_path

    started = time.perf_counter()
    fingerprints = spark.read.parquet(join_uri(out, FINGERPRINTS))
    fingerprint_groups(fingerprints).write.mode("overwrite").parquet(join_uri(out, GROUPS))
    groups = spark.read.parquet(join_uri(out, GROUPS))
    stats = groups.agg(
        F.count(F.lit(1)).alias("distinct"),
        F.coalesce(F.sum("n"), F.lit(0)).alias("documents"),
        F.coalesce(F.sum(F.col("n") * (F.col("n") - 1) / 2), F.lit(0)).alias("within"),
    ).first()
    distinct = int(stats["distinct"])
    design = design or choose_spark_design(distinct, k)
    pairs = fp_pairs(groups.select("fp"), k, design)
    ga = groups.select(
        F.col("fp").alias("fp_a"), F.col("hex").alias("hex_a"), F.col("n").alias("n_a")
    )
    gb = groups.select(
        F.col("fp").alias("fp_b"), F.col("hex").alias("hex_b"), F.col("n").alias("n_b")
    )
    (
        pairs.join(ga, "fp_a")
        .join(gb, "fp_b")
        .select("fp_a", "fp_b", "hex_a", "hex_b", "distance", "n_a", "n_b")
        .write.mode("overwrite")
        .parquet(join_uri(out, PAIRS_FP))
    )
    written = spark.read.parquet(join_uri(out, PAIRS_FP))
    agg = written.agg(
        F.count(F.lit(1)).alias("pairs"),
        F.coalesce(F.sum(F.col("n_a") * F.col("n_b")), F.lit(0)).alias("across"),
    ).first()
    n_doc_pairs = int(agg["across"]) + int(stats["within"])
    if expand:
        doc_pairs(fingerprints, written).write.mode("overwrite").parquet(join_uri(out, PAIRS))
    else:  # a stale expansion for another k would contradict pairs-fp
        delete_path(spark, join_uri(out, PAIRS))
    summary = PairsSummary(
        k=k,
        design=(design.m, design.c),
        documents=int(stats["documents"]),
        distinct=distinct,
        fp_pairs=int(agg["pairs"]),
        doc_pairs=n_doc_pairs,
        expanded=expand,
        seconds=time.perf_counter() - started,
    )
    write_meta(
        spark,
        out,
        "pairs",
        {
            "k": k,
            "design": list(summary.design),
            "documents": summary.documents,
            "distinct": distinct,
            "fp_pairs": summary.fp_pairs,
            "doc_pairs": n_doc_pairs,
            "expanded": expand,
        },
    )
    return summary
