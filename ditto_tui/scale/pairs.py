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
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "PairsSummary",
    "choose_spark_design",
    "doc_pairs",
    "fp_pairs",
    "fingerprint_groups",
    "pairs_job",
    "sample_design",
]

MAX_K = 32
#: Distinct fingerprints drawn (on the driver) to fit the block design to the data.
SAMPLE = 8192
#: Rows per Arrow batch in the explode and verify steps.
BATCH = 1 << 16
PAIR_SCHEMA = "fp_a long, fp_b long, distance int"


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


def sample_design(distinct: DataFrame, n: int, k: int, sample: int = SAMPLE) -> TableDesign:
    """:func:`choose_spark_design` for the ``n`` distinct ``fp`` of ``distinct``, fitted
    on a seeded sample of about ``sample`` of them (drawn by the executors)."""
    import numpy as np

    if n <= 0:
        return TableDesign(k + 1, 1)
    fraction = min(1.0, 2.0 * sample / n)
    rows = distinct.select("fp").sample(False, fraction, seed=7).limit(sample).toArrow()
    fps = rows.column("fp").to_numpy().astype(np.int64, copy=False).view(np.uint64)
    return choose_spark_design(n, k, fps)


def _explode(batches: Iterator[pa.RecordBatch], design: TableDesign) -> Iterator[pa.RecordBatch]:
    import numpy as np
    import pyarrow as pa

    from ditto_tui.scale.bucket_join import explode

    for batch in batches:
        fps = batch.column(0).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
        bucket, fp = explode(fps, design)
        for lo in range(0, len(bucket), BATCH):
            yield pa.RecordBatch.from_arrays(
                [pa.array(bucket[lo : lo + BATCH]), pa.array(fp[lo : lo + BATCH])],
                names=["bucket", "fp"],
            )


def _verify(
    batches: Iterator[pa.RecordBatch], design: TableDesign, k: int
) -> Iterator[pa.RecordBatch]:
    """All of a partition's rows (whole buckets) at once, verified by the numpy bucket join (``bucket_join``)."""
    import numpy as np
    import pyarrow as pa

    from ditto_tui.scale.bucket_join import bucket_pairs

    buckets: list[np.ndarray] = []
    fps: list[np.ndarray] = []
    for batch in batches:
        buckets.append(batch.column(0).to_numpy(zero_copy_only=False))
        fps.append(batch.column(1).to_numpy(zero_copy_only=False))
    if not buckets:
        return
    a, b, d = bucket_pairs(
        np.concatenate(buckets).astype(np.int64), np.concatenate(fps).astype(np.int64), design, k
    )
    for lo in range(0, len(a), BATCH):
        yield pa.RecordBatch.from_arrays(
            [pa.array(a[lo : lo + BATCH]), pa.array(b[lo : lo + BATCH]),
             pa.array(d[lo : lo + BATCH].astype(np.int32))],
            names=["fp_a", "fp_b", "distance"],
        )


def fp_pairs(
    distinct: DataFrame, k: int, design: TableDesign | None = None, partitions: int | None = None
) -> DataFrame:
    """Pairs of distinct fingerprints within ``k`` bits: ``fp_a < fp_b`` (signed order),
    ``distance``; each pair once. ``distinct`` needs a unique ``fp`` (long) column.

    ``design`` (default ``m = k + 1``, one block per table) must be exact for ``k``
    (``m - c >= k``) with at most 128 tables, else ValueError. ``partitions`` is the
    number of shuffle partitions of the bucket rows (default Spark's).
    """
    if not 0 <= k <= MAX_K:
        raise ValueError(f"k must be in 0..{MAX_K}, got {k}")
    design = design or TableDesign(k + 1, 1)
    if design.m - design.c < k or design.c < 1:
        raise ValueError(f"design m={design.m} c={design.c} is not exact for k={k}")
    if len(design.tables) > MAX_TABLES:
        raise ValueError(f"design m={design.m} c={design.c} has more than {MAX_TABLES} tables")
    spark = distinct.sparkSession
    if design.m == 1:  # k == 0: distinct fingerprints never pair
        return spark.createDataFrame([], PAIR_SCHEMA)
    rows = distinct.select("fp").mapInArrow(
        lambda it: _explode(it, design), "bucket long, fp long"
    )
    shuffled = rows.repartition(partitions, "bucket") if partitions else rows.repartition("bucket")
    return shuffled.mapInArrow(lambda it: _verify(it, design, k), PAIR_SCHEMA)


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
    if design is None:
        design = sample_design(groups, distinct, k)
    ga = groups.select(F.col("fp").alias("fp_a"), F.col("n").alias("n_a"))
    gb = groups.select(F.col("fp").alias("fp_b"), F.col("n").alias("n_b"))
    (
        fp_pairs(groups.select("fp"), k, design)
        .join(ga, "fp_a")
        .join(gb, "fp_b")
        .select("fp_a", "fp_b", "distance", "n_a", "n_b")
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
            "documents": summary.documents,
            "distinct": distinct,
            "fp_pairs": summary.fp_pairs,
            "doc_pairs": n_doc_pairs,
            "expanded": expand,
        },
    )
    return summary
