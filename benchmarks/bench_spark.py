"""Spark stages on local[2]: the skewed pairs case, generated fingerprints at scale, the
output size, and opening a large results folder. Prints one ``name value unit`` per figure.

* ``spark_pairs_skewed_20k_k8_s``: 20,000 documents, most of them ~10 % word edits of one
  text (a Parquet shard; fingerprinting is not counted), pairs stage at K = 8.
* ``spark_pairs_<n>_fps_k3_s`` / ``spark_families_<n>_fps_k3_s``: ``--fps`` generated
  fingerprints (default 10^6; ``--fps 10000000`` for the 10^7 target), 1 % identical to
  another document, 1 % one family (a random walk of one-bit steps), the rest random; no
  files: the fingerprints table is written directly.
* ``spark_output_bytes_per_doc``: bytes of ``pairs-fp`` + ``families`` per document, K = 8,
  on the same generated fingerprints.
* ``open_<n>_results_s``: ``load_results`` + ``ResultsSession`` + the families of 2+ at
  k = 3 + one document's family, on that results folder (no Spark).
* ``open_<n>_scan_s``: handing all ids and fingerprints to the explorer (``scan``).

    nice python benchmarks/bench_spark.py [--fps 1000000] [--skip-skewed] [--master local[2]]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.scale.corpus_maker import WORDS  # noqa: E402

WORK = ROOT / "benchmarks" / "_work"


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.4g} {unit}", flush=True)


def label(n: int) -> str:
    return f"{n // 10**6}m" if n % 10**6 == 0 else f"{n // 1000}k"


def skewed_shard(path: Path, n: int = 20_000, seed: int = 11, harsh: bool = False) -> None:
    """``n`` documents, the issue's shape: 90 % are copies of ~3,400 variants of one
    400-word text, each variant a 10 % word edit (40 words replaced), 10 % unrelated texts.
    ``harsh``: every edited document is its own variant with 0-20 % of its words replaced
    (far more distinct fingerprints and pairs)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed)
    base = [rng.choice(WORDS) for _ in range(400)]
    variants: list[str] = []
    for _ in range(3400):
        words = list(base)
        for _ in range(40):
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        variants.append(" ".join(words))
    ids, texts = [], []
    for i in range(n):
        if i % 10 == 9:
            text = " ".join(rng.choice(WORDS) for _ in range(400))
        elif harsh:
            words = list(base)
            for _ in range(rng.randint(0, 80)):
                words[rng.randrange(len(words))] = rng.choice(WORDS)
            text = " ".join(words)
        else:
            text = rng.choice(variants)
        ids.append(f"doc-{i:06d}")
        texts.append(text)
    path.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": ids, "text": texts}), str(path / "part-0.parquet"))


def generated_fingerprints(out: Path, n: int, seed: int = 5) -> None:
    """A results folder holding only ``fingerprints`` (+ its meta) for ``n`` generated
    fingerprints: 1 % copies of another document's, 1 % a one-bit-step random walk."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from ditto_tui.core.fingerprint.pipeline import make_pipeline

    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    walk = np.arange(0, n, 100)  # 1 %: one family
    steps = np.uint64(1) << rng.integers(0, 64, len(walk)).astype(np.uint64)
    fps[walk] = np.bitwise_xor.accumulate(steps) ^ fps[0]
    copies = np.arange(50, n, 100)  # 1 %: identical to a random other document
    fps[copies] = fps[rng.integers(0, n, len(copies))]
    identity = make_pipeline().identity
    shutil.rmtree(out, ignore_errors=True)
    (out / "fingerprints").mkdir(parents=True)
    chunk = 2_000_000
    for part, lo in enumerate(range(0, n, chunk)):
        hi = min(n, lo + chunk)
        docs = np.arange(lo, hi, dtype=np.int64)
        table = pa.table({
            "doc": docs,
            "id": pa.array([f"d{i:09d}" for i in range(lo, hi)]),
            "fp": fps[lo:hi].view(np.int64),
            "hex": pa.array([f"{int(v):016x}" for v in fps[lo:hi]]),
            "size": np.full(hi - lo, 1000, np.int64),
            "offset": np.zeros(hi - lo, np.int64),
            "kind": pa.array(["text"] * (hi - lo)).dictionary_encode(),
            "pipeline": pa.array([identity] * (hi - lo)).dictionary_encode(),
        })
        pq.write_table(table, str(out / "fingerprints" / f"part-{part:05d}.parquet"))
    meta = {"root": "file:/generated", "pipeline": {"name": "ditto", "char_n": 4, "word_n": 0,
            "shingle": 3, "identity": identity}, "options": {}, "documents": n}
    (out / "meta-fingerprint").mkdir()
    pq.write_table(pa.table({"json": [json.dumps(meta)]}),
                   str(out / "meta-fingerprint" / "part-0.parquet"))


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fps", type=int, default=1_000_000, help="generated fingerprints")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--skip-skewed", action="store_true")
    parser.add_argument("--skip-generated", action="store_true")
    parser.add_argument("--harsh", action="store_true",
                        help="skewed case: every edit its own variant, 0-20 %% of words")
    parser.add_argument("--skip-k8", action="store_true",
                        help="no K = 8 run (output bytes, open) on the generated fingerprints")
    args = parser.parse_args()

    from ditto_tui.scale.families import families_job
    from ditto_tui.scale.fingerprints import Source, fingerprint_corpus
    from ditto_tui.scale.pairs import pairs_job
    from ditto_tui.scale.results import ResultsSession, load_results
    from ditto_tui.scale.session import build_session

    WORK.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    spark = build_session(args.master, shuffle_partitions=args.partitions,
                          conf={"spark.ui.enabled": "false", "spark.driver.memory": "3g"})
    spark.range(1).count()
    emit("spark_startup", time.perf_counter() - started, "s")
    try:
        if not args.skip_skewed:
            shard = WORK / ("skewed-20k-harsh" if args.harsh else "skewed-20k")
            if not (shard / "part-0.parquet").exists():
                skewed_shard(shard, harsh=args.harsh)
            out = WORK / "skewed-20k-results"
            fingerprint_corpus(spark, Source("parquet", (str(shard),)), str(out))
            started = time.perf_counter()
            s = pairs_job(spark, str(out), 8)
            emit("spark_pairs_skewed_20k_k8_s", time.perf_counter() - started, "s")
            emit("spark_pairs_skewed_20k_distinct", s.distinct, "fps")
            emit("spark_pairs_skewed_20k_doc_pairs", s.doc_pairs, "pairs")
            shutil.rmtree(out, ignore_errors=True)
        if not args.skip_generated:
            n = args.fps
            out = WORK / f"generated-{label(n)}"
            generated_fingerprints(out, n)
            started = time.perf_counter()
            s = pairs_job(spark, str(out), 3)
            emit(f"spark_pairs_{label(n)}_fps_k3_s", time.perf_counter() - started, "s")
            emit(f"spark_pairs_{label(n)}_fps_k3_fp_pairs", s.fp_pairs, "pairs")
            started = time.perf_counter()
            f = families_job(spark, str(out), 3)
            emit(f"spark_families_{label(n)}_fps_k3_s", time.perf_counter() - started, "s")
            emit(f"spark_families_{label(n)}_fps_k3_multi", f.multi_families[3], "families")
            if not args.skip_k8:
                pairs_job(spark, str(out), 8)
                families_job(spark, str(out), 8)
                size = folder_bytes(out / "pairs-fp") + folder_bytes(out / "families")
                emit("spark_output_bytes_per_doc", size / n, "B/doc")
            started = time.perf_counter()
            results = load_results(out)
            session = ResultsSession(results)
            shown = results.families_at(3, min_size=2)
            results.family_of(shown[0][-1], 3)
            session.documents[shown[0][0]]
            emit(f"open_{label(n)}_results_s", time.perf_counter() - started, "s")
            started = time.perf_counter()
            session.scan()
            emit(f"open_{label(n)}_scan_s", time.perf_counter() - started, "s")
    finally:
        spark.stop()
    emit("load_avg_1min", os.getloadavg()[0], "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
