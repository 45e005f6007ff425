"""Corpus benchmarks: cold scans, warm reopen of 100,000 files, cache size.

Prints one ``name value unit`` line per figure. Folders are generated once under
``benchmarks/_work/`` (git-ignored) and reused. Targets (issue "Corpus"): a warm reopen of
100,000 small files to a full index in < 3 s; a cold scan at the engine's speed on all cores.
``warm_reopen_to_index_*_cached_s`` is what the explorer does on a second reopen: the near
pairs stored by the previous open replace the all-pairs join.

    python benchmarks/bench_corpus.py [--files 100000] [--big-mb 100] [--jobs N]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import time
from pathlib import Path

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.scan import default_jobs
from ditto_tui.corpus.session import CorpusSession

WORK = Path(__file__).resolve().parent / "_work"
_SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ou", "ai")]
#: A 4,000-word invented vocabulary, so generated documents are as varied as real text.
WORDS = [
    "".join(random.Random(i).choice(_SYLLABLES) for _ in range(1 + i % 4)) for i in range(4000)
]


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.4g} {unit}", flush=True)


def text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def make_folder(path: Path, n: int, words: tuple[int, int], seed: int) -> Path:
    """n files of random words, 100 per folder; reused when already complete."""
    marker = path.with_name(path.name + ".complete")  # outside the folder: not a document
    if marker.exists() and marker.read_text() == f"{n} {words}":
        return path
    shutil.rmtree(path, ignore_errors=True)
    rng = random.Random(seed)
    for i in range(n):
        folder = path / f"d{i // 100:04}"
        if i % 100 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:06}.txt").write_text(text(rng, rng.randint(*words)))
    marker.write_text(f"{n} {words}")
    return path


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*.txt"))


def build_index(
    session: CorpusSession, max_k: int, *, cached: bool = False, store: bool = False
) -> float | None:
    """Seconds to load the session's fingerprints into a NearIndex (None without one);
    ``cached`` looks the near pairs up in the session's cache like the explorer does,
    ``store`` then stores the pairs the index computed (not timed)."""
    try:
        from ditto_tui.core.index.near_index import NearIndex
    except ImportError:
        return None
    import numpy as np

    fps = session.fingerprints
    t = time.perf_counter()
    index = NearIndex(max_k=max_k)
    index.add_many(
        list(fps),
        np.fromiter(fps.values(), dtype=np.uint64, count=len(fps)),
        pairs=session.load_pairs if cached else None,
    )
    took = time.perf_counter() - t
    computed = index.take_computed_pairs()
    if store and computed is not None:
        session.store_pairs(computed)
    return took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--big-mb", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args(argv)
    jobs = args.jobs or default_jobs()
    pipeline = make_pipeline("ditto")
    WORK.mkdir(exist_ok=True)
    emit("jobs", jobs, "workers")
    emit("load_average_1min", os.getloadavg()[0], "(shared machine: wall times inflate with it)")

    # Engine speed, one core, no I/O: the yardstick for the cold scans.
    rng = random.Random(1)
    blobs = [text(rng, 8000).encode() for _ in range(40)]
    t = time.perf_counter()
    for b in blobs:
        pipeline.fingerprint(b)
    engine = sum(map(len, blobs)) / (time.perf_counter() - t) / 1e6
    emit("engine_1core_mbps", engine, "MB/s")
    small_blobs = [text(rng, rng.randint(20, 120)).encode() for _ in range(5000)]
    t = time.perf_counter()
    for b in small_blobs:
        pipeline.fingerprint(b)
    emit("engine_1core_small_docs_per_s", len(small_blobs) / (time.perf_counter() - t), "docs/s")

    # Cold scan of larger files (throughput), all cores, no cache.
    big = make_folder(WORK / "big", max(1, args.big_mb * 1000 // 50), (7000, 9000), 2)
    size = folder_bytes(big)
    t = time.perf_counter()
    with CorpusSession(big, pipeline, use_cache=False, jobs=jobs) as s:
        s.scan()
        n_big = len(s.fingerprints)
    dt = time.perf_counter() - t
    emit("cold_scan_mbps", size / dt / 1e6, "MB/s")
    emit("cold_scan_big_docs", n_big, "docs")

    # 100,000 small files: cold scan filling a fresh cache, then warm reopen to an index.
    small = make_folder(WORK / "small", args.files, (20, 120), 3)
    cache = WORK / f"cache-small-{args.files}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(str(cache) + suffix).unlink(missing_ok=True)
    t = time.perf_counter()
    with CorpusSession(small, pipeline, cache=cache, jobs=jobs) as s:
        s.scan()
        n_small = len(s.fingerprints)
    dt = time.perf_counter() - t
    emit("cold_scan_docs_per_s", n_small / dt, "docs/s")
    emit("cold_scan_small_s", dt, "s")
    best = best_cpu = float("inf")
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        with CorpusSession(small, pipeline, cache=cache, jobs=jobs) as s:
            s.scan()
            best = min(best, time.perf_counter() - t)
            best_cpu = min(best_cpu, time.process_time() - c)
    emit(f"warm_reopen_{args.files // 1000}k_s", best, "s (wall, to fingerprints)")
    emit(f"warm_reopen_{args.files // 1000}k_cpu_s", best_cpu, "s (CPU of this process)")
    with CorpusSession(small, pipeline, cache=cache, jobs=jobs) as s:
        s.scan()
        for k in (3, 8):
            took = build_index(s, k)
            if took is not None:
                emit(f"index_add_many_{args.files // 1000}k_k{k}_s", took, "s (engine)")
                emit(f"warm_reopen_to_index_{args.files // 1000}k_k{k}_s", best + took, "s")
        build_index(s, 8, store=True)  # what the explorer stores after its first open
    best_cached = best_took = float("inf")
    for _ in range(3):  # the explorer's next reopens: fingerprints and pairs from the cache
        t = time.perf_counter()
        with CorpusSession(small, pipeline, cache=cache, jobs=jobs) as s:
            s.scan()
            took = build_index(s, 8, cached=True)
            if took is None:
                break
            best_cached = min(best_cached, time.perf_counter() - t)
            best_took = min(best_took, took)
    if best_cached < float("inf"):
        emit(f"index_add_many_{args.files // 1000}k_k8_cached_s", best_took, "s (pairs cached)")
        emit(f"warm_reopen_to_index_{args.files // 1000}k_k8_cached_s", best_cached, "s")
    emit("warm_reopen_docs", n_small, "docs")
    total = sum(
        Path(str(cache) + sfx).stat().st_size
        for sfx in ("", "-wal", "-shm")
        if Path(str(cache) + sfx).exists()
    )
    emit("cache_db_mb", total / 1e6, "MB (fingerprints and the k=8 near pairs)")

    # The pathological case: every document identical (one family of everything).
    same = WORK / "same"
    if not (WORK / "same.complete").exists():
        shutil.rmtree(same, ignore_errors=True)
        same.mkdir()
        body = text(random.Random(4), 200)
        for i in range(5000):
            (same / f"copy{i:05}.txt").write_text(body)
        (WORK / "same.complete").write_text("5000")
    t = time.perf_counter()
    with CorpusSession(same, pipeline, use_cache=False, jobs=jobs) as s:
        s.scan()
        build_index(s, 3)
    emit("identical_5k_scan_s", time.perf_counter() - t, "s")
    check_sphinx(pipeline, jobs)
    return 0


def check_sphinx(pipeline: object, jobs: int) -> None:
    """Against Go ditto's own output for sphinx 8.1.3 (when the folder was extracted into
    ``_work``; see tests/data/sphinx-8.1.3/README.md): same ids, same order, same bits."""
    folder = WORK / "sphinx-8.1.3"
    reference = Path(__file__).resolve().parents[1] / "tests/data/sphinx-8.1.3/ditto-fp.tsv"
    if not folder.is_dir() or not reference.exists():
        return
    from ditto_tui.corpus.documents import ScanOptions, Skipped
    from ditto_tui.corpus.stream import iter_fingerprints

    want = [tuple(line.rstrip("\n").split("\t", 1)) for line in reference.open()]
    here = os.getcwd()
    os.chdir(folder)
    try:
        t = time.perf_counter()
        got = [
            (fp.hex, ident)
            for ident, fp in (
                o for o in iter_fingerprints(
                    ["."], pipeline, options=ScanOptions(include_binary=True), jobs=jobs,
                    use_cache=False,
                ) if not isinstance(o, Skipped)
            )
        ]
        took = time.perf_counter() - t
    finally:
        os.chdir(here)
    emit("sphinx_ditto_identical", int(got == want), "(1 = every id, order and fingerprint)")
    emit("sphinx_fp_cold_s", took, "s (1,867 files, 27 MB, no cache)")


if __name__ == "__main__":
    sys.exit(main())
