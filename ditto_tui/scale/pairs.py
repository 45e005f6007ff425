"""Exact all-pairs within K on Spark: identical fingerprints grouped, then buckets verified in numpy.

Identical fingerprints are grouped first (``groups``: one row per distinct fp with its
multiplicity and its smallest ``doc``), so a template shared by a million pages is one
row, not a million. The distinct fingerprints are then joined by the permuted-table
scheme of :mod:`ditto_tui.core.index.pairs`: a :class:`~ditto_tui.core.index.pairs.TableDesign` cuts
the 64 bits into ``m`` blocks, and two fingerprints within K bits agree on at least
``c = m - K`` of them (pigeonhole). The design is data-aware like the in-process index's
(:func:`~ditto_tui.scale.bucket_join.choose_spark_design`: a sample of the fingerprints
measures how often each bit differs, bits are dealt into blocks of equal selectivity,
and candidates are counted on sampled pairs), so real, skewed fingerprints do not pile
into a few keys.

Each fingerprint becomes one ``(bucket, fp)`` row per table (``mapInArrow``); the rows
are shuffled by bucket and each partition is verified by the numpy bucket join
(:func:`~ditto_tui.scale.bucket_join.bucket_pairs`): a bucket is one task's in-memory
problem, buckets above a size are split by a further design over their own bits, and a
pair is kept only in its first agreeing table -- so there is no quadratic join, no
inlined predicate and no ``distinct``.

``pairs-fp`` holds the pairs of *distinct* fingerprints (with both multiplicities);
document pairs (``pairs``) are the expansion -- every member of ``a`` with every member
of ``b``, plus every two members of one group at distance 0 -- computed on integer
``doc`` numbers and joined to ids once at the end, only when asked, since their number
is ``sum(n_a * n_b) + sum(n * (n - 1) / 2)``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ditto_tui.core.index.pairs import TableDesign
from ditto_tui.scale.bucket_join import MAX_TABLES, choose_spark_design
from ditto_tui.scale.layout import (
    DOCS_RANK,
    FINGERPRINTS,
    GROUPS,
    PAIRS,
    PAIRS_FP,
    join_uri,
    write_meta,
)

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "JoinPlan",
    "PairsSummary",
    "choose_spark_design",
    "doc_pairs",
    "fp_pairs",
    "fingerprint_groups",
    "pairs_job",
    "plan_join",
    "sample_design",
]

MAX_K = 32
#: Distinct fingerprints drawn (on the driver) to fit the block design to the data.
SAMPLE = 8192
#: Rows per Arrow batch in the explode and verify steps.
BATCH = 1 << 16
PAIR_SCHEMA = "fp_a long, fp_b long, distance int, n_a long, n_b long"
#: Bucket rows per partition of the verify step, and the most partitions it gets.
ROWS_PER_PARTITION = 1 << 20
MAX_PARTITIONS = 1 << 15


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


def fingerprint_groups(fingerprints: DataFrame) -> DataFrame:
    """One row per distinct fp: ``fp, n, first`` (the group's smallest ``doc``)."""
    import pyspark.sql.functions as F

    return fingerprints.groupBy("fp").agg(
        F.count(F.lit(1)).alias("n"),
        F.min(DOCS_RANK).alias("first"),
    )


def _sample(distinct: DataFrame, n: int, sample: int = SAMPLE) -> np.ndarray:
    """A seeded sample of about ``sample`` of the ``n`` distinct ``fp`` (uint64), drawn by
    the executors."""
    import numpy as np

    fraction = min(1.0, 2.0 * sample / max(n, 1))
    rows = distinct.select("fp").sample(False, fraction, seed=7).limit(sample).toArrow()
    return rows.column("fp").to_numpy().astype(np.int64, copy=False).view(np.uint64)


def sample_design(distinct: DataFrame, n: int, k: int, sample: int = SAMPLE) -> TableDesign:
    """:func:`choose_spark_design` for the ``n`` distinct ``fp`` of ``distinct``, fitted
    on a seeded sample of about ``sample`` of them (drawn by the executors)."""
    if n <= 0:
        return TableDesign(k + 1, 1)
    return choose_spark_design(n, k, _sample(distinct, n, sample))


@dataclass(frozen=True)
class JoinPlan:
    """How the bucket rows are shuffled: the design, the hot buckets (``{bucket: parts}``,
    see :func:`~ditto_tui.scale.bucket_join.hot_buckets`) and the number of partitions."""

    design: TableDesign
    hot: dict[int, int]
    partitions: int


def plan_join(
    distinct: DataFrame, n: int, k: int, design: TableDesign | None = None,
    partitions: int | None = None, sample: int = SAMPLE,
) -> JoinPlan:
    """The join of the ``n`` distinct ``fp`` of ``distinct`` at ``k``, planned on one
    sample: the design (``design``, else fitted), the hot buckets the sample predicts, and
    the partitions (``partitions``, else enough for :data:`ROWS_PER_PARTITION` bucket rows
    and two per hot part, at least two per core)."""
    from ditto_tui.scale.bucket_join import hot_buckets

    fps = _sample(distinct, n, sample) if n > 0 else None
    if design is None:
        design = choose_spark_design(n, k, fps) if fps is not None else TableDesign(k + 1, 1)
    hot = hot_buckets(fps, n, design) if fps is not None and design.m > 1 else {}
    if partitions is None:
        rows = n * len(design.tables)
        cores = distinct.sparkSession.sparkContext.defaultParallelism
        partitions = max(2 * cores, -(-rows // ROWS_PER_PARTITION), 2 * sum(hot.values()))
        partitions = min(partitions, MAX_PARTITIONS)
    return JoinPlan(design, hot, partitions)


def _explode(
    batches: Iterator[pa.RecordBatch], design: TableDesign, hot: dict[int, int]
) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over ``(fp, n)``: ``(bucket, part, fp, n)`` per table, hot buckets'
    rows once per part."""
    import numpy as np
    import pyarrow as pa

    from ditto_tui.scale.bucket_join import explode, replicate_hot

    for batch in batches:
        fps = batch.column(0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        ns = batch.column(1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        bucket, fp = explode(fps, design)
        rows, bucket, part = replicate_hot(bucket, hot)
        fp = fp[rows]
        n = np.tile(ns, len(design.tables))[rows]
        for lo in range(0, len(bucket), BATCH):
            yield pa.RecordBatch.from_arrays(
                [pa.array(bucket[lo : lo + BATCH]), pa.array(part[lo : lo + BATCH]),
                 pa.array(fp[lo : lo + BATCH]), pa.array(n[lo : lo + BATCH])],
                names=["bucket", "part", "fp", "n"],
            )


def _verify(
    batches: Iterator[pa.RecordBatch], design: TableDesign, k: int, hot: dict[int, int]
) -> Iterator[pa.RecordBatch]:
    """All of a partition's rows (whole ``(bucket, part)`` groups) verified by the numpy
    bucket join (``bucket_join``), the pairs yielded chunk by chunk with both
    multiplicities: ``fp_a < fp_b`` (signed), ``distance``, ``n_a``, ``n_b``."""
    import numpy as np
    import pyarrow as pa

    from ditto_tui.scale import bucket_join

    columns: list[list[np.ndarray]] = [[], [], [], []]
    for batch in batches:
        for c in range(4):
            columns[c].append(batch.column(c).to_numpy(zero_copy_only=False))
    if not columns[0]:
        return
    bucket, part, fps, ns = (np.concatenate(c) for c in columns)
    bucket, fps, ns = bucket.astype(np.int64), fps.astype(np.int64), ns.astype(np.int64)
    for a, b, d in bucket_join.iter_bucket_pairs(bucket, fps, design, k,
                                                 part=part.astype(np.int32), hot=hot):
        swap = fps[a] > fps[b]
        a, b = np.where(swap, b, a), np.where(swap, a, b)
        for lo in range(0, len(a), BATCH):
            ia, ib = a[lo : lo + BATCH], b[lo : lo + BATCH]
            yield pa.RecordBatch.from_arrays(
                [pa.array(fps[ia]), pa.array(fps[ib]),
                 pa.array(d[lo : lo + BATCH].astype(np.int32)),
                 pa.array(ns[ia]), pa.array(ns[ib])],
                names=["fp_a", "fp_b", "distance", "n_a", "n_b"],
            )


def fp_pairs(
    distinct: DataFrame, k: int, design: TableDesign | None = None,
    partitions: int | None = None, *, plan: JoinPlan | None = None,
) -> DataFrame:
    """Pairs of distinct fingerprints within ``k`` bits: ``fp_a < fp_b`` (signed order),
    ``distance``, and their multiplicities ``n_a``, ``n_b``; each pair once. ``distinct``
    needs a unique ``fp`` (long) column, and ``n`` (long; 1 when absent).

    ``design`` (default ``m = k + 1``, one block per table) must be exact for ``k``
    (``m - c >= k``) with at most 128 tables, else ValueError. ``partitions`` is the
    number of partitions of the bucket rows (default: two per core). ``plan`` (from
    :func:`plan_join`) gives all three, hot buckets included.
    """
    import pyspark.sql.functions as F

    if not 0 <= k <= MAX_K:
        raise ValueError(f"k must be in 0..{MAX_K}, got {k}")
    spark = distinct.sparkSession
    if plan is None:
        cores = spark.sparkContext.defaultParallelism
        plan = JoinPlan(design or TableDesign(k + 1, 1), {}, partitions or 2 * cores)
    design = plan.design
    if design.m - design.c < k or design.c < 1:
        raise ValueError(f"design m={design.m} c={design.c} is not exact for k={k}")
    if len(design.tables) > MAX_TABLES:
        raise ValueError(f"design m={design.m} c={design.c} has more than {MAX_TABLES} tables")
    if design.m == 1:  # k == 0: distinct fingerprints never pair
        return spark.createDataFrame([], PAIR_SCHEMA)
    hot = plan.hot
    n = F.col("n") if "n" in distinct.columns else F.lit(1)
    rows = distinct.select("fp", n.cast("long").alias("n")).mapInArrow(
        lambda it: _explode(it, design, hot), "bucket long, part int, fp long, n long"
    )
    # a number of partitions: adaptive execution must not coalesce these small rows
    # (their work is quadratic in a bucket's size, not linear in their bytes)
    shuffled = rows.repartition(plan.partitions, "bucket", "part")
    return shuffled.mapInArrow(lambda it: _verify(it, design, k, hot), PAIR_SCHEMA)


def doc_pairs(fingerprints: DataFrame, pairs_fp: DataFrame) -> DataFrame:
    """Every document pair ``a < b`` (code-point order) with its distance: the expansion of
    ``pairs_fp`` over the members of both fingerprints, plus identical-fp pairs at 0.
    Computed on ``doc`` numbers; the ids are joined once, at the end."""
    import pyspark.sql.functions as F

    docs = fingerprints.select(F.col(DOCS_RANK).alias("d"), "fp")
    left = docs.select(F.col("d").alias("da"), F.col("fp").alias("fp_a"))
    right = docs.select(F.col("d").alias("db"), F.col("fp").alias("fp_b"))
    across = (
        pairs_fp.select("fp_a", "fp_b", "distance")
        .join(left, "fp_a")
        .join(right, "fp_b")
        .select(F.least("da", "db").alias("a"), F.greatest("da", "db").alias("b"), "distance")
    )
    within = (
        docs.select(F.col("d").alias("a"), "fp")
        .join(docs.select(F.col("d").alias("b"), "fp"), "fp")
        .where(F.col("a") < F.col("b"))
        .select("a", "b", F.lit(0).cast("int").alias("distance"))
    )
    ids = fingerprints.select(DOCS_RANK, "id")
    return (
        across.unionByName(within)
        .join(ids.select(F.col(DOCS_RANK).alias("a"), F.col("id").alias("id_a")), "a")
        .join(ids.select(F.col(DOCS_RANK).alias("b"), F.col("id").alias("id_b")), "b")
        .select(F.col("id_a").alias("a"), F.col("id_b").alias("b"), "distance")
    )


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

    ``design`` defaults to :func:`sample_design` (fitted to a sample of the distinct
    fingerprints).
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
    assert stats is not None  # a global aggregate has one row
    distinct = int(stats["distinct"])
    plan = plan_join(groups, distinct, k, design)
    design = plan.design
    (
        fp_pairs(groups.select("fp", "n"), k, plan=plan)
        .write.mode("overwrite")
        .parquet(join_uri(out, PAIRS_FP))
    )
    written = spark.read.parquet(join_uri(out, PAIRS_FP))
    agg = written.agg(
        F.count(F.lit(1)).alias("pairs"),
        F.coalesce(F.sum(F.col("n_a") * F.col("n_b")), F.lit(0)).alias("across"),
    ).first()
    assert agg is not None
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
            "design_layout": {"widths": design.widths, "order": design.order},
            "partitions": plan.partitions,
            "hot_buckets": {str(b): parts for b, parts in sorted(plan.hot.items())},
            "documents": summary.documents,
            "distinct": distinct,
            "fp_pairs": summary.fp_pairs,
            "doc_pairs": n_doc_pairs,
            "expanded": expand,
        },
    )
    return summary
