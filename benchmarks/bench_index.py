"""Benchmarks for the near-duplicate index: prints one figure a line as ``name value unit``.

Run: ``/work/venv/bin/python benchmarks/bench_index.py`` (about a minute on one core;
``--quick`` skips the 1M-document index), then a table of the targets (issue 37) with
this run's values. Data are synthetic and seeded:

* *planted*: uniformly random fingerprints, 1% of them overwritten by copies of others
  with up to 3 random bit flips;
* *real-looking*: half the documents in families of ~20 around random centres (4 random
  flips from the centre, then half of them 2 more), half random background, plus a
  block of 1% identical fingerprints (empty files);
* *concentrated*: bits with the skewed frequencies of real text fingerprints (unrelated
  documents ~20 bits apart), 1% planted near-duplicates; drawn from its own seed, so
  the other inputs are the same as before it was added.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from ditto_tui.core.families.clusters import all_pairs
from ditto_tui.core.index.near_index import NearIndex

FIGURES: dict[str, tuple[float, str]] = {}  # every figure of this run, for the summary

# The targets of the index (issue 37): figure, bound, what it counts.
TARGETS = (
    ("pairs_k3_1m_s", 0.25, ""),
    ("index_build_1m_reallooking_s", 3.0, ""),
    ("index_build_1m_planted_s", 2.0, ""),
    ("relabel_after_remove_1m_reallooking_ms", 5.0, ""),
    ("pairs_k8_100k_concentrated_s", 1.0, ""),
    ("bytes_per_doc_1m_reallooking_whole", 64.0, "index + labels + id map"),
)


def emit(name: str, value: float, unit: str) -> None:
    FIGURES[name] = (value, unit)
    print(f"{name} {value:.4g} {unit}", flush=True)


def print_targets() -> None:
    """The targets as a table: figure, this run's value, bound (``-``: not measured)."""
    rows = [("figure", "value", "target")]
    for name, bound, note in TARGETS:
        got = FIGURES.get(name)
        value = "-" if got is None else f"{got[0]:.4g} {got[1]}"
        ok = "" if got is None else ("  ok" if got[0] <= bound else "  MISSED")
        unit = "" if got is None else f" {got[1]}"
        label = f"{name} ({note})" if note else name
        rows.append((label, value, f"<= {bound:g}{unit}{ok}"))
    rows.append(("explorer RSS at 1M", "see bench_ui.py", ""))
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    print()
    for row in rows:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, width, strict=True)).rstrip())


def random_fps(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)


def flip(rng: np.random.Generator, fps: np.ndarray, bits: int) -> np.ndarray:
    out = fps.copy()
    for _ in range(bits):
        out ^= np.uint64(1) << rng.integers(0, 64, len(out)).astype(np.uint64)
    return out


def planted(rng: np.random.Generator, n: int) -> np.ndarray:
    fps = random_fps(rng, n)
    m = n // 100
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    fps[dst] = flip(rng, fps[src], 3)
    return fps


def real_looking(rng: np.random.Generator, n: int) -> np.ndarray:
    n_fam = n // 2
    centres = random_fps(rng, max(1, n_fam // 20))
    fam = flip(rng, centres[rng.integers(0, len(centres), n_fam)], 4)
    fam = np.where(rng.random(n_fam) < 0.5, fam, flip(rng, fam, 2))
    empty = np.full(n // 100, 0x0123456789ABCDEF, np.uint64)
    fps = np.concatenate([fam, empty, random_fps(rng, n - n_fam - len(empty))])
    return fps[rng.permutation(n)]


def concentrated(rng: np.random.Generator, n: int) -> np.ndarray:
    """Fingerprints shaped like those of real text: independent bits, 16 of them almost
    constant (set with probability 0.97 or 0.03), 24 biased (0.8 or 0.2) and 24 fair,
    in a fixed shuffled order, so unrelated documents are about 20 bits apart instead
    of 32; 1% near-duplicates (up to 3 random flips) as in *planted*."""
    layout = np.random.default_rng(64).permutation(
        np.concatenate([np.repeat([0.97, 0.03], 8), np.repeat([0.8, 0.2], 12), np.full(24, 0.5)])
    )
    bits = rng.random((n, 64)) < layout
    fps = (bits.astype(np.uint64) << np.arange(64, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    m = n // 100
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    fps[dst] = flip(rng, fps[src], 3)
    return fps


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def recluster_ms(ix: NearIndex, ks: list[int]) -> list[float]:
    """Time of ``labels(k)`` on a cache miss once the hierarchy of the current generation
    exists: the work done when the k slider moves (``relabel_all_k_*`` is the first call
    after a change, which builds the hierarchy for every k)."""
    out = []
    for k in ks:
        ix._labels.clear()  # force the relabel even if k was seen before
        dt, _ = timed(lambda k=k: ix.labels(k))
        out.append(dt * 1e3)
    return out


def relabel_after_updates(ix: NearIndex, near_fp: int, tag: str) -> None:
    """First relabelling after adding a near-duplicate (merged into the hierarchy
    incrementally), after removing a fingerprint that had pairs (hierarchy rebuilt) and
    after replacing a lonely document (hierarchy kept)."""
    ix.labels(3)
    ix.add("bench/added", near_fp ^ 1)
    dt, _ = timed(lambda: ix.labels(3))
    emit(f"relabel_after_add_{tag}_ms", dt * 1e3, "ms")
    ix.remove("bench/added")
    dt, _ = timed(lambda: ix.labels(3))
    emit(f"relabel_after_remove_{tag}_ms", dt * 1e3, "ms")
    # replacing a document that had no near-duplicate (the common edit) keeps the hierarchy
    ix.add("bench/lonely", 0x5A5A_A5A5_0F0F_F0F0)
    ix.labels(3)
    ix.add("bench/lonely", 0x5A5A_A5A5_0F0F_F0F1 ^ (1 << 40))
    dt, _ = timed(lambda: ix.labels(3))
    emit(f"relabel_after_replace_lonely_{tag}_ms", dt * 1e3, "ms")


def bench_pairs(rng: np.random.Generator) -> None:
    fps = planted(rng, 1_000_000)
    dt, (i, _, _) = timed(lambda: all_pairs(fps, 3))
    emit("pairs_k3_1m_s", dt, "s")
    emit("pairs_k3_1m_count", len(i), "pairs")
    fps = real_looking(rng, 100_000)
    dt, (i, _, _) = timed(lambda: all_pairs(fps, 8))
    emit("pairs_k8_100k_s", dt, "s")
    emit("pairs_k8_100k_count", len(i), "pairs")
    fps = concentrated(np.random.default_rng(7), 100_000)  # own stream: others unchanged
    dt, (i, _, _) = timed(lambda: all_pairs(fps, 8))
    emit("pairs_k8_100k_concentrated_s", dt, "s")
    emit("pairs_k8_100k_concentrated_count", len(i), "pairs")


def bench_index_100k(rng: np.random.Generator) -> None:
    n = 100_000
    fps = real_looking(rng, n)
    ids = [f"corpus/dir{i % 997}/doc{i:07d}.txt" for i in range(n)]
    ix = NearIndex(8)
    dt, _ = timed(lambda: ix.add_many(ids, fps))
    emit("index_build_100k_s", dt, "s")
    emit("index_pairs_100k", ix.pair_count(), "pairs")
    dt, _ = timed(lambda: ix.labels(3))
    emit("relabel_all_k_100k_ms", dt * 1e3, "ms")
    times = recluster_ms(ix, [3, 8, 1, 5, 2, 7, 4, 6])
    emit("recluster_100k_ms", statistics.median(times), "ms")
    emit("recluster_100k_max_ms", max(times), "ms")
    relabel_after_updates(ix, int(fps[0]), "100k")
    dt, fams = timed(lambda: ix.families(5, min_size=2))
    emit("families_chain_min2_100k_ms", dt * 1e3, "ms")
    emit("families_chain_min2_100k_count", len(fams), "families")
    dt, fams = timed(lambda: ix.families(5, mode="star", min_size=2))
    emit("families_star_min2_100k_ms", dt * 1e3, "ms")
    dt, _ = timed(lambda: ix.families(5, min_size=1))
    emit("families_chain_all_100k_ms", dt * 1e3, "ms")

    # one update = add a new document near an existing one, replace one, remove one
    probes = flip(rng, fps[rng.integers(0, n, 3000)], 2).tolist()
    upd: list[float] = []
    for j, fp in enumerate(probes):
        kind = j % 3
        if kind == 0:
            dt, _ = timed(lambda j=j, fp=fp: ix.add(f"new/{j}", fp))
        elif kind == 1:
            dt, _ = timed(lambda j=j, fp=fp: ix.add(ids[j], fp))
        else:
            dt, _ = timed(lambda j=j: ix.remove(f"new/{j - 2}"))
        upd.append(dt * 1e3)
    emit("update_100k_ms", statistics.mean(upd), "ms")
    emit("update_100k_p99_ms", float(np.percentile(upd, 99)), "ms")
    emit("update_100k_max_ms", max(upd), "ms")
    near = []
    for fp in probes[:500]:
        dt, _ = timed(lambda fp=fp: ix.near(fp, 8))
        near.append(dt * 1e6)
    emit("near_k8_100k_us", statistics.median(near), "us")

    # pathological: every document identical
    ix = NearIndex(8)
    same = np.zeros(n, np.uint64)
    dt, _ = timed(lambda: ix.add_many(ids, same))
    emit("index_build_100k_identical_s", dt, "s")
    dt, fams = timed(lambda: ix.families(8, min_size=2))
    emit("families_100k_identical_ms", dt * 1e3, "ms")


def bench_index_1m(rng: np.random.Generator, name: str, fps: np.ndarray, primary: bool) -> None:
    n = len(fps)
    ids = [f"corpus/dir{i % 997}/doc{i:07d}.txt" for i in range(n)]
    ix = NearIndex(8)
    dt, _ = timed(lambda: ix.add_many(ids, fps))
    emit(f"index_build_1m_{name}_s", dt, "s")
    emit(f"index_pairs_1m_{name}", ix.pair_count(), "pairs")
    dt, _ = timed(lambda: ix.labels(3))
    emit(f"relabel_all_k_1m_{name}_ms", dt * 1e3, "ms")
    times = recluster_ms(ix, [8, 1, 5, 2, 7, 4, 6, 3])
    suffix = "" if primary else f"_{name}"
    emit(f"recluster_1m{suffix}_ms", statistics.median(times), "ms")
    emit(f"recluster_1m{suffix}_max_ms", max(times), "ms")
    probes = flip(rng, fps[rng.integers(0, n, 300)], 2).tolist()
    upd = []
    for j, fp in enumerate(probes):
        dt, _ = timed(lambda j=j, fp=fp: ix.add(f"new/{j}", fp))
        upd.append(dt * 1e3)
    emit(f"update_1m_{name}_ms", statistics.mean(upd), "ms")
    ix.labels(3)
    relabel_after_updates(ix, int(fps[0]), f"1m_{name}")
    ix.labels(8)  # the label array of the k last asked for is cached, as after moving the slider
    mem = ix.memory()
    core = mem["documents"] + mem["distinct"] + mem["tables"] + mem["labels"]
    emit(f"bytes_per_doc_1m{suffix}", core / len(ix), "B")
    emit(f"bytes_per_doc_1m_{name}_whole", (core + mem["id_map"]) / len(ix), "B")
    for part in ("documents", "distinct", "tables", "labels", "id_map"):
        emit(f"bytes_per_doc_1m_{name}_{part}", mem[part] / len(ix), "B")
    if primary:
        id_strings = sum(sys.getsizeof(i) for i in ids)
        emit("bytes_per_doc_1m_id_strings", id_strings / len(ix), "B")
    emit(f"bytes_per_pair_1m_{name}", mem["pairs"] / max(1, ix.pair_count()), "B")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 1M-document index")
    args = parser.parse_args()
    rng = np.random.default_rng(20071)
    start = time.perf_counter()
    bench_pairs(rng)
    bench_index_100k(rng)
    if not args.quick:
        bench_index_1m(rng, "planted", planted(rng, 1_000_000), primary=True)
        bench_index_1m(rng, "reallooking", real_looking(rng, 1_000_000), primary=False)
    emit("bench_total_s", time.perf_counter() - start, "s")
    print_targets()


if __name__ == "__main__":
    main()
