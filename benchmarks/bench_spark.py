"""Spark stage throughput on local[2]: fingerprint, pairs, families (documents per second).

Prints one ``name value unit`` line per figure. The corpus (tests/scale/corpus_maker.py,
scaled by ``--scale``) is generated once under ``benchmarks/_work/`` and reused; the
in-process scan of the same corpus is timed too, for comparison. Spark's start-up is
reported separately and not counted in any stage.

    python benchmarks/bench_spark.py [--scale 4] [--k 4] [--master local[2]]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ditto_tui.core.pipeline import make_pipeline  # noqa: E402
from ditto_tui.corpus.documents import ScanOptions  # noqa: E402
from ditto_tui.corpus.session import CorpusSession  # noqa: E402
from tests.scale.corpus_maker import CorpusShape, make_corpus  # noqa: E402

WORK = ROOT / "benchmarks" / "_work"


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.4g} {unit}", flush=True)


def corpus(scale: int) -> Path:
    path = WORK / f"spark-corpus-x{scale}"
    marker = path.with_name(path.name + ".complete")
    if not marker.exists():
        shutil.rmtree(path, ignore_errors=True)
        base = CorpusShape()
        shape = CorpusShape(
            families=base.families * scale,
            uniques=base.uniques * scale,
            copies=base.copies * scale,
            binaries=base.binaries * scale,
        )
        make_corpus(path, shape, seed=scale)
        marker.write_text("ok")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=4, help="corpus size in ~2,800-file units")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()

    root = corpus(args.scale)
    out = WORK / f"spark-results-x{args.scale}"
    options = ScanOptions(max_size=128 * 1024)

    started = time.perf_counter()
    with CorpusSession(root, make_pipeline(), options=options, use_cache=False) as session:
        session.scan()
        n_docs = len(session.fingerprints)
    emit("inprocess_scan_docs_per_s", n_docs / (time.perf_counter() - started), "docs/s")

    from ditto_tui.scale.families import families_job
    from ditto_tui.scale.fingerprints import PipelineSpec, fingerprint_corpus
    from ditto_tui.scale.pairs import pairs_job
    from ditto_tui.scale.session import build_session

    started = time.perf_counter()
    spark = build_session(args.master, shuffle_partitions=4, conf={"spark.ui.enabled": "false"})
    spark.range(1).count()
    emit("spark_startup", time.perf_counter() - started, "s")
    try:
        fp = fingerprint_corpus(spark, str(root), str(out), PipelineSpec(), options)
        emit("spark_documents", fp.documents, "docs")
        emit("spark_fingerprint_docs_per_s", fp.documents / fp.seconds, "docs/s")
        pairs = pairs_job(spark, str(out), args.k, expand=True)
        emit("spark_pairs_docs_per_s", pairs.documents / pairs.seconds, "docs/s")
        emit("spark_pairs_doc_pairs", pairs.doc_pairs, "pairs")
        fam = families_job(spark, str(out), args.k)
        emit("spark_families_docs_per_s", fp.documents / fam.seconds, "docs/s")
        emit("spark_families_levels", len(fam.levels), "levels")
        emit("spark_families_rounds", fam.rounds, "rounds")
        total = fp.seconds + pairs.seconds + fam.seconds
        emit("spark_all_stages_docs_per_s", fp.documents / total, "docs/s")
    finally:
        spark.stop()
        shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
