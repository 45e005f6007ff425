"""Near-duplicate families on Spark: connected components for every k in 0..K.

A family at k is a connected component of the graph "distance <= k" (ditto's chain
clusters, single linkage), labelled by its smallest id (code-point order) -- the same
partition as :func:`ditto_tui.core.families.clusters.clusters` and ``NearIndex.families(k)``.

Components are computed over the *distinct* fingerprints that have a pair within K
(the others are families of their own at every k), with the Large-Star / Small-Star
iteration of Kiveris et al. (2014) in plain DataFrame ops (no GraphFrames): it converges
in O(log^2 n) rounds to one star per component centred on its smallest node. Levels
reuse each other: the graph at k is the graph at k - 1 plus the pairs at exactly k, so
each level contracts the previous level's components to single nodes and only links
those. Every round and level is a *reliable* checkpoint (the context's checkpoint
folder, default ``OUT/_checkpoints``), so query plans stay short and a lost executor
costs a retry of a task, not the job.

The output is compact: ``families`` holds one row ``fp, k, family`` per distinct
fingerprint and level *where its family changes* -- ``family`` being the smallest
``doc`` of the family at k. At k = 0 a family is the documents sharing a fingerprint
(label: their smallest ``doc``, which the fingerprints table gives), and labels only
ever shrink as k grows, so the label of any document at any k follows from the rows
with ``k' <= k`` (the latest one wins). A fingerprint that never merges has no row.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ditto_tui.scale.layout import (
    FAMILIES,
    FINGERPRINTS,
    GROUPS,
    PAIRS_FP,
    join_uri,
    read_meta,
    write_meta,
)
from ditto_tui.scale.session import checkpoint, checkpoint_dir

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from ditto_tui.scale.resume import MemoryStore

__all__ = [
    "FamiliesSummary",
    "connected_components",
    "families_job",
    "family_changes",
    "local_changes",
]

MAX_ROUNDS = 200
#: Fingerprint pairs up to which the components are computed on the driver (scipy).
LOCAL_EDGES = 4_000_000


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
    max_rounds: int = MAX_ROUNDS,
    rounds: int = 0,
    keep: Callable[[DataFrame, int], DataFrame] | None = None,
) -> tuple[DataFrame, int]:
    """Components of an undirected graph given as ``(src, dst)`` long columns.

    Returns ``(mapping, rounds)`` where ``mapping`` has ``node, root`` for every node on an
    edge (``root`` = the smallest node of its component, ``root`` maps to itself).
    Self-loops and duplicate edges are fine; ``oriented=True`` promises a materialised
    input that is already distinct with ``src > dst`` (saves one pass). ``keep(edges, r)``
    materialises the edges after round ``r`` (default: a reliable checkpoint, which needs
    a checkpoint folder, :func:`~ditto_tui.scale.session.checkpoint_dir`); ``rounds`` is
    the number of rounds ``edges`` already went through (a resumed run), and the count
    returned includes them. Raises RuntimeError after ``max_rounds`` (cannot happen on a
    finite graph; a guard against a bug looping forever).
    """
    import pyspark.sql.functions as F

    keep = keep or (lambda df, _: checkpoint(df))
    current = edges if oriented else checkpoint(_oriented(edges))
    while not _is_star_forest(current):
        if rounds >= max_rounds:
            raise RuntimeError(f"connected components did not converge in {max_rounds} rounds")
        nxt = _small_star(_large_star(current))
        rounds += 1
        current = keep(nxt, rounds)
    roots = current.select(F.col("dst").alias("node"), F.col("dst").alias("root")).distinct()
    mapping = current.select(F.col("src").alias("node"), F.col("dst").alias("root"))
    return mapping.unionByName(roots), rounds


def family_changes(
    firsts: DataFrame,
    pairs_fp: DataFrame,
    levels: list[int],
    store: MemoryStore | None = None,
    check: Callable[[], None] | None = None,
) -> tuple[list[DataFrame], int]:
    """Per k in ``levels`` (ascending, >= 1): the rows ``fp, k, family`` of the fingerprints
    whose family label (smallest ``first`` of the component) differs from the previous
    level's (from ``first`` before the first level).

    ``firsts`` has ``fp, first`` for every distinct fingerprint (at least those in
    ``pairs_fp``); ``pairs_fp`` has ``fp_a, fp_b, distance`` with every pair of distinct
    fps within ``max(levels)``. Returns the per-level frames (stored) and the total
    Large/Small-Star rounds. Every level and every round is kept in ``store`` (default: a
    :class:`~ditto_tui.scale.resume.MemoryStore`, checkpoints) with a state after each, and
    a ``store`` holding a state (:meth:`~ditto_tui.scale.resume.ResumeStore.load`) is
    continued from it; ``check`` is called after each (it may raise to stop).
    """
    import pyspark.sql.functions as F

    from ditto_tui.scale.resume import MemoryStore

    store = store or MemoryStore()
    check = check or (lambda: None)
    state: dict[str, Any] = dict(store.state or {})
    if not state:
        touched = pairs_fp.select(F.col("fp_a").alias("fp")).unionByName(
            pairs_fp.select(F.col("fp_b").alias("fp"))
        ).distinct()
        store.save("nodes", touched.join(firsts.select("fp", "first"), "fp"))
        state = {"level": 0, "rounds": 0, "labels": None, "family": None, "changes": [],
                 "within": None, "tables": ["nodes"]}
        store.commit(state)
    nodes = store.table("nodes")
    for k in sorted(levels):
        if k <= state["level"]:
            continue
        labels = (store.table(state["labels"]) if state["labels"]
                  else nodes.select("fp", F.col("fp").alias("label")))
        family = (store.table(state["family"]).select("fp", F.col("new").alias("family"))
                  if state["family"] else nodes.select("fp", F.col("first").alias("family")))
        within = state["within"]
        if within is not None and within["k"] == k:
            current = store.table(within["edges"])
            start = within["round"]
        else:
            step = pairs_fp.where((F.col("distance") > state["level"]) & (F.col("distance") <= k))
            la = labels.select(F.col("fp").alias("fp_a"), F.col("label").alias("src"))
            lb = labels.select(F.col("fp").alias("fp_b"), F.col("label").alias("dst"))
            current = store.save(f"links-{k}", _oriented(step.join(la, "fp_a").join(lb, "fp_b")))
            start = 0
            if current.isEmpty():
                state = {**state, "level": k}
                store.commit(state)
                check()
                continue
            state = {**state, "within": {"k": k, "round": 0, "edges": f"links-{k}"},
                     "tables": _tables(state, f"links-{k}")}
            store.commit(state)
            check()

        def keep(edges: DataFrame, r: int, k: int = k) -> DataFrame:
            nonlocal state
            saved = store.save(f"edges-{k}-{r}", edges)
            state = {**state, "within": {"k": k, "round": r, "edges": f"edges-{k}-{r}"},
                     "tables": _tables(state, f"edges-{k}-{r}")}
            store.commit(state)
            check()
            return saved

        mapping, used = connected_components(current, oriented=True, rounds=start, keep=keep)
        labels = store.save(
            f"labels-{k}",
            labels.join(mapping.withColumnRenamed("node", "label"), "label", "left")
            .select("fp", F.coalesce("root", "label").alias("label")),
        )
        tagged = labels.join(nodes, "fp")
        smallest = tagged.groupBy("label").agg(F.min("first").alias("new"))
        store.save(
            f"family-{k}",
            tagged.join(smallest, "label").join(family, "fp").select("fp", "family", "new"),
        )
        changed = store.table(f"family-{k}").where(F.col("new") != F.col("family")).select(
            "fp", F.lit(k).cast("int").alias("k"), F.col("new").alias("family")
        )
        store.save(f"changes-{k}", changed)
        changes = [*state["changes"], f"changes-{k}"]
        state = {"level": k, "rounds": state["rounds"] + used, "labels": f"labels-{k}",
                 "family": f"family-{k}", "changes": changes, "within": None,
                 "tables": ["nodes", f"labels-{k}", f"family-{k}", *changes]}
        store.commit(state)
        check()
    return [store.table(name) for name in state["changes"]], int(state["rounds"])


def _tables(state: dict[str, Any], extra: str) -> list[str]:
    """The tables a mid-level state needs: the last finished level's and ``extra``."""
    named = [state["labels"], state["family"]]
    return ["nodes", *[t for t in named if t], *state["changes"], extra]


def families_job(
    spark: SparkSession,
    out: str,
    max_k: int,
    *,
    all_levels: bool = True,
    local_edges: int | None = LOCAL_EDGES,
    check: Callable[[], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> FamiliesSummary:
    """Write ``out/families`` (``fp, k, family``: the changes of each fingerprint's family
    label, see the module) for k in 1..max_k (or only ``max_k``) and ``out/meta-families``.

    Checkpoints go to the SparkContext's checkpoint folder, or when it has none to
    ``out/_checkpoints`` (deleted afterwards, and the context forgets it). Uses
    ``out/pairs-fp`` when the pairs stage ran with ``k >= max_k``; otherwise the fp pairs
    are computed on the fly (without being stored). Needs ``out/fingerprints``.
    A graph of at most ``local_edges`` fingerprint pairs is solved on the driver
    (:func:`local_changes`); larger ones (or ``local_edges=None``) by Large-Star /
    Small-Star on the executors (:func:`family_changes`), keeping every level and round
    in ``out/_resume/families``: a run stopped there (``check`` raising, Ctrl-C, a lost
    driver) is continued by the next run with the same inputs and parameters, which
    ``say`` tells (and why it starts over when it cannot); the store is deleted when the
    stage ends.
    """
    started = time.perf_counter()
    if max_k < 0:
        raise ValueError(f"k must be >= 0, got {max_k}")
    with checkpoint_dir(spark, out):
        return _families(spark, out, max_k, all_levels, started, local_edges,
                         check or (lambda: None), say or (lambda _: None))


def _multi_families(changes: pa.Table, dup: pa.Table, levels: list[int]) -> dict[int, int]:
    """Families of 2+ documents per k: the labels merged fingerprints carry, plus the groups
    of identical fingerprints (``dup``: fp, first) that have not merged with another."""
    import numpy as np

    ks = changes.column("k").to_numpy()
    cfp = changes.column("fp").to_numpy()
    fam = changes.column("family").to_numpy()
    dfp = dup.column("fp").to_numpy()
    dfirst = dup.column("first").to_numpy()
    out: dict[int, int] = {}
    order = np.lexsort((ks, cfp))  # by fp, then k: each fp's latest row is its last
    ks, cfp, fam = ks[order], cfp[order], fam[order]
    for k in levels:
        sel = np.flatnonzero(ks <= k)
        last = np.r_[cfp[sel][1:] != cfp[sel][:-1], True] if len(sel) else np.empty(0, bool)
        merged = np.unique(fam[sel][last])
        touched = cfp[sel][last]
        alone = ~np.isin(dfp, touched) & ~np.isin(dfirst, merged)
        out[k] = int(len(merged) + alone.sum())
    return out


def local_changes(firsts: DataFrame, pairs_fp: DataFrame, levels: list[int]) -> pa.Table:
    """:func:`family_changes` for a graph small enough for the driver: the pairs and the
    ``first`` of their fingerprints are collected (Arrow) and every level's components
    are computed with scipy. Returns the ``fp, k, family`` rows as an Arrow table."""
    import numpy as np
    import pyarrow as pa
    import pyspark.sql.functions as F
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as components

    edges = pairs_fp.select("fp_a", "fp_b", "distance").toArrow()
    touched = edges.column("fp_a").to_numpy()
    touched = np.unique(np.concatenate([touched, edges.column("fp_b").to_numpy()]))
    spark = firsts.sparkSession
    wanted = spark.createDataFrame(pa.table({"fp": touched}).to_pandas(), "fp long")
    known = firsts.join(F.broadcast(wanted), "fp").select("fp", "first").toArrow()
    order = np.argsort(known.column("fp").to_numpy())
    nodes = known.column("fp").to_numpy()[order]
    first = known.column("first").to_numpy()[order].astype(np.int64)
    if len(nodes) != len(touched):
        raise ValueError("pairs name fingerprints that have no documents")
    a = np.searchsorted(nodes, edges.column("fp_a").to_numpy())
    b = np.searchsorted(nodes, edges.column("fp_b").to_numpy())
    dist = edges.column("distance").to_numpy()
    family = first.copy()
    out_fp: list[np.ndarray] = []
    out_k: list[np.ndarray] = []
    out_fam: list[np.ndarray] = []
    n = len(nodes)
    for k in sorted(levels):
        sel = dist <= k
        graph = coo_matrix((np.ones(int(sel.sum()), np.int8), (a[sel], b[sel])), shape=(n, n))
        _, comp = components(graph, directed=False)
        smallest = np.full(int(comp.max()) + 1 if n else 0, np.iinfo(np.int64).max, np.int64)
        np.minimum.at(smallest, comp, first)
        new = smallest[comp]
        changed = np.flatnonzero(new != family)
        out_fp.append(nodes[changed])
        out_k.append(np.full(len(changed), k, np.int32))
        out_fam.append(new[changed])
        family = new
    return pa.table({
        "fp": np.concatenate([*out_fp, np.empty(0, np.int64)]).astype(np.int64),
        "k": np.concatenate([*out_k, np.empty(0, np.int32)]).astype(np.int32),
        "family": np.concatenate([*out_fam, np.empty(0, np.int64)]).astype(np.int64),
    })


def _families(
    spark: SparkSession,
    out: str,
    max_k: int,
    all_levels: bool,
    started: float,
    local_edges: int | None,
    check: Callable[[], None],
    say: Callable[[str], None],
) -> FamiliesSummary:
    import pyspark.sql.functions as F

    from ditto_tui.scale.pairs import fingerprint_groups, fp_pairs, plan_join
    from ditto_tui.scale.resume import ResumeStore

    fingerprints = spark.read.parquet(join_uri(out, FINGERPRINTS))
    meta = read_meta(spark, out, "pairs")
    stored = meta is not None and int(meta["k"]) >= max_k
    levels = list(range(1, max_k + 1)) if all_levels else ([max_k] if max_k else [])
    store = ResumeStore(spark, out, "families", {
        "fingerprint": read_meta(spark, out, "fingerprint"),
        "pairs": meta if stored else None,
        "levels": levels,
        "local_edges": local_edges,
    })
    why = store.load()
    if why is not None:
        say(f"families: starting over: {why}")
    if stored:
        firsts = spark.read.parquet(join_uri(out, GROUPS)).select("fp", "first")
        pairs = spark.read.parquet(join_uri(out, PAIRS_FP)).where(F.col("distance") <= max_k)
    else:
        firsts = checkpoint(fingerprint_groups(fingerprints).select("fp", "first"))
        plan = plan_join(firsts, firsts.count(), max_k)
        pairs = checkpoint(fp_pairs(firsts.select("fp"), max_k, plan=plan))
    schema = "fp long, k int, family long"
    rounds = 0
    if local_edges is not None and pairs.count() <= local_edges:
        store.clear()
        table = local_changes(firsts, pairs, levels)
        result = spark.createDataFrame(table.to_pandas(), schema)
    else:
        if store.state is not None:
            within = store.state["within"]
            where = (f"k={within['k']}, round {within['round']}" if within
                     else f"after k={store.state['level']}")
            say(f"families: resuming {where} (from {store.uri})")
        frames, rounds = family_changes(firsts, pairs, levels, store, check)
        result = spark.createDataFrame([], schema)
        for frame in frames:
            result = result.unionByName(frame)
    partitions = max(1, int(spark.conf.get("spark.sql.shuffle.partitions") or "8") // 8)
    result.coalesce(partitions).write.mode("overwrite").parquet(join_uri(out, FAMILIES))
    written = spark.read.parquet(join_uri(out, FAMILIES))
    stored_levels = [0, *levels]
    dup = fingerprint_groups(fingerprints).where(F.col("n") >= 2).select("fp", "first")
    multi = _multi_families(written.toArrow(), dup.toArrow(), stored_levels)
    summary = FamiliesSummary(
        max_k=max_k,
        levels=stored_levels,
        multi_families=multi,
        rounds=rounds,
        seconds=time.perf_counter() - started,
    )
    write_meta(
        spark,
        out,
        "families",
        {"max_k": max_k, "levels": stored_levels, "multi_families": summary.multi_families},
    )
    store.clear()
    return summary
