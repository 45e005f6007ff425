"""Near-duplicate families on Spark: connected components for every k in 0..K.

A family at k is a connected component of the graph "distance <= k" (ditto's chain
clusters, single linkage), labelled by its smallest id (code-point order) -- the same
partition as :func:`ditto_tui.core.clusters.clusters` and ``NearIndex.families(k)``.

Components are computed over *distinct* fingerprints (``groups``), with the
Large-Star / Small-Star iteration of Kiveris et al. (2014) in plain DataFrame ops (no
GraphFrames): it converges in O(log^2 n) rounds to one star per component centred on
its smallest node. Levels reuse each other: the graph at k is the graph at k - 1 plus
the pairs at exactly k, so each level contracts the previous level's components to
single nodes and only links those. Every few rounds (and after each level) the working
tables are checkpointed -- reliably when the SparkContext has a checkpoint folder,
locally otherwise -- so query plans do not grow with the number of rounds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ditto_tui.scale.layout import (
    FAMILIES,
    FINGERPRINTS,
    GROUPS,
    PAIRS_FP,
    join_uri,
    read_meta,
    write_meta,
)
from ditto_tui.scale.session import checkpoint, clear_checkpoint_dir, delete_path

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["FamiliesSummary", "connected_components", "families_job", "family_levels"]

CHECKPOINT_EVERY = 3
CHECKPOINTS = "_checkpoints"
MAX_ROUNDS = 200


@dataclass
class FamiliesSummary:
    """Per k: how many families have at least two members, and the rounds spent."""

    max_k: int
    levels: list[int]
    multi_families: dict[int, int] = field(default_factory=dict)
    rounds: int = 0
    seconds: float = 0.0


def _large_star(edges: DataFrame) -> DataFrame:
    """Each node links its larger neighbours to the smallest of its closed neighbourhood."""
    import pyspark.sql.functions as F

    both = edges.select(F.col("src").alias("u"), F.col("dst").alias("v")).unionByName(
        edges.select(F.col("dst").alias("u"), F.col("src").alias("v"))
    )
    mins = both.groupBy("u").agg(F.min("v").alias("m"))
    return (
        both.where(F.col("v") > F.col("u"))
        .join(mins, "u")
        .select(F.col("v").alias("src"), F.least("u", "m").alias("dst"))
        .distinct()
    )


def _small_star(edges: DataFrame) -> DataFrame:
    """Each node links itself and its smaller neighbours to the smallest of them."""
    import pyspark.sql.functions as F

    mins = edges.groupBy("src").agg(F.min("dst").alias("m"))
    moved = (
        edges.join(mins, "src")
        .select(F.col("dst").alias("src"), F.col("m").alias("dst"))
        .where(F.col("src") != F.col("dst"))
    )
    return moved.unionByName(mins.select("src", F.col("m").alias("dst"))).distinct()


def _is_star_forest(edges: DataFrame) -> bool:
    """True when every edge goes from a leaf to a centre: no centre is a leaf, and no leaf
    has two centres (then each component is one star on its smallest node). One job."""
    import pyspark.sql.functions as F

    centres = edges.select(F.col("dst").alias("n"))
    leaves = edges.select(F.col("src").alias("n"))
    chained = centres.join(leaves, "n", "left_semi").limit(1)
    forked = edges.groupBy("src").count().where(F.col("count") > 1).select(
        F.col("src").alias("n")
    ).limit(1)
    return chained.unionByName(forked).limit(1).count() == 0


def _oriented(edges: DataFrame) -> DataFrame:
    """Distinct edges as ``src > dst`` (self-loops dropped)."""
    import pyspark.sql.functions as F

    return (
        edges.select(F.greatest("src", "dst").alias("src"), F.least("src", "dst").alias("dst"))
        .where(F.col("src") != F.col("dst"))
        .distinct()
    )


def connected_components(
    edges: DataFrame,
    *,
    oriented: bool = False,
    checkpoint_every: int = CHECKPOINT_EVERY,
    max_rounds: int = MAX_ROUNDS,
) -> tuple[DataFrame, int]:
    """Components of an undirected graph given as ``(src, dst)`` long columns.

    Returns ``(mapping, rounds)`` where ``mapping`` has ``node, root`` for every node on an
    edge (``root`` = the smallest node of its component, ``root`` maps to itself).
    Self-loops and duplicate edges are fine; ``oriented=True`` promises a materialised
    input that is already distinct with ``src > dst`` (saves one pass). Raises RuntimeError after ``max_rounds``
    (cannot happen on a finite graph; a guard against a bug looping forever).
    """
    import pyspark.sql.functions as F

    current = edges if oriented else checkpoint(_oriented(edges))
    rounds = 0
    while not _is_star_forest(current):
        if rounds >= max_rounds:
            raise RuntimeError(f"connected components did not converge in {max_rounds} rounds")
        nxt = _small_star(_large_star(current))
        rounds += 1
        durable = rounds % checkpoint_every == 0
        current = checkpoint(nxt) if durable else nxt.localCheckpoint(eager=True)
    roots = current.select(F.col("dst").alias("node"), F.col("dst").alias("root")).distinct()
    mapping = current.select(F.col("src").alias("node"), F.col("dst").alias("root"))
    return mapping.unionByName(roots), rounds


def family_levels(
    fingerprints: DataFrame,
    distinct: DataFrame,
    pairs_fp: DataFrame,
    levels: list[int],
) -> tuple[dict[int, DataFrame], int]:
    """Per k in ``levels`` (ascending, >= 0): ``id, k, family`` for every document.

    ``distinct`` has one row per distinct ``fp``; ``pairs_fp`` has ``fp_a, fp_b, distance``
    with every pair of distinct fps within ``max(levels)``. Returns the per-level frames
    (backed by checkpoints) and the total Large/Small-Star rounds.
    """
    import pyspark.sql.functions as F

    labels = checkpoint(distinct.select("fp", F.col("fp").alias("label")))
    out: dict[int, DataFrame] = {}
    rounds = 0
    previous = -1
    docs = fingerprints.select("id", "fp")
    for k in sorted(levels):
        step = pairs_fp.where((F.col("distance") > previous) & (F.col("distance") <= k))
        previous = k
        la = labels.select(F.col("fp").alias("fp_a"), F.col("label").alias("src"))
        lb = labels.select(F.col("fp").alias("fp_b"), F.col("label").alias("dst"))
        links = checkpoint(_oriented(step.join(la, "fp_a").join(lb, "fp_b")))
        if not links.isEmpty():
            mapping, used = connected_components(links, oriented=True)
            rounds += used
            labels = checkpoint(
                labels.join(mapping.withColumnRenamed("node", "label"), "label", "left")
                .select("fp", F.coalesce("root", "label").alias("label"))
            )
        tagged = docs.join(labels, "fp")
        names = tagged.groupBy("label").agg(F.min("id").alias("family"))
        out[k] = tagged.join(names, "label").select("id", F.lit(k).alias("k"), "family")
    return out, rounds


def families_job(
    spark: SparkSession, out: str, max_k: int, *, all_levels: bool = True
) -> FamiliesSummary:
    """Write ``out/families`` (``id, k, family``) for k in 0..max_k (or only ``max_k``)
    and ``out/meta-families``.

    Checkpoints go to the SparkContext's checkpoint folder, or when it has none to
    ``out/_checkpoints`` (deleted afterwards, and the context forgets it). Uses
    ``out/pairs-fp`` when the pairs stage ran with ``k >= max_k``; otherwise the fp pairs
    are computed on the fly (without being stored). Needs ``out/fingerprints``.
    """
    started = time.perf_counter()
    if max_k < 0:
        raise ValueError(f"k must be >= 0, got {max_k}")
    context = spark.sparkContext
    own_dir = context.getCheckpointDir() is None
    if own_dir:
        context.setCheckpointDir(join_uri(out, CHECKPOINTS))
    try:
        return _families(spark, out, max_k, all_levels, started)
    finally:
        if own_dir:
            clear_checkpoint_dir(spark)
            delete_path(spark, join_uri(out, CHECKPOINTS))


def _families(
    spark: SparkSession, out: str, max_k: int, all_levels: bool, started: float
) -> FamiliesSummary:
    import pyspark.sql.functions as F

    from ditto_tui.scale.pairs import choose_spark_design, fingerprint_groups, fp_pairs

    fingerprints = spark.read.parquet(join_uri(out, FINGERPRINTS))
    meta = read_meta(spark, out, "pairs")
    if meta is not None and int(meta["k"]) >= max_k:
        distinct = spark.read.parquet(join_uri(out, GROUPS)).select("fp")
        pairs = spark.read.parquet(join_uri(out, PAIRS_FP)).where(F.col("distance") <= max_k)
    else:
        distinct = checkpoint(fingerprint_groups(fingerprints).select("fp"))
        design = choose_spark_design(distinct.count(), max_k)
        pairs = checkpoint(fp_pairs(distinct, max_k, design))
    levels = list(range(max_k + 1)) if all_levels else [max_k]
    per_level, rounds = family_levels(fingerprints, distinct, pairs, levels)
    frames = [per_level[k] for k in levels]
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    result.write.mode("overwrite").parquet(join_uri(out, FAMILIES))
    written = spark.read.parquet(join_uri(out, FAMILIES))
    sizes = written.groupBy("k", "family").count().where(F.col("count") >= 2)
    multi = {int(r["k"]): int(r["n"]) for r in sizes.groupBy("k").agg(
        F.count(F.lit(1)).alias("n")).collect()}
    summary = FamiliesSummary(
        max_k=max_k,
        levels=levels,
        multi_families={k: multi.get(k, 0) for k in levels},
        rounds=rounds,
        seconds=time.perf_counter() - started,
    )
    write_meta(
        spark,
        out,
        "families",
        {"max_k": max_k, "levels": levels, "multi_families": summary.multi_families},
    )
    return summary
