"""Spark stages on local[2]: the skewed pairs case, generated fingerprints at scale, the
output size, and opening a large results folder. Prints one ``name value unit`` per figure.

* ``spark_pairs_harsh_21k_k8_s`` (and ``_wall_s``, ``_worker_mb``: the largest Spark
  Python worker, ``_fp_pairs``): the harshest shape -- 20,000 independent 10 % word
  edits of one text plus 1,000 unrelated texts, files -- through ``ditto-tui spark pairs
  -k 8`` with the command line's defaults; ``cluster_harsh_21k_k8_s`` / ``_mb``: the
  in-process ``ditto-tui cluster -k 8`` on the same folder (seconds, largest RSS).
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

    nice python benchmarks/bench_spark.py [--fps 1000000] \
        [--skip-harsh] [--skip-skewed] [--skip-generated] [--master local[2]]
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


def skewed_shard(path: Path, n: int = 20_000, seed: int = 11) -> None:
    """``n`` documents: 90 % are copies of ~3,400 variants of one 400-word text, each
    variant a 10 % word edit (40 words replaced), 10 % unrelated texts."""
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
        else:
            text = rng.choice(variants)
        ids.append(f"doc-{i:06d}")
        texts.append(text)
    path.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": ids, "text": texts}), str(path / "part-0.parquet"))


def harsh_corpus(folder: Path, n: int = 20_000, unrelated: int = 1_000, seed: int = 11) -> None:
    """The harshest shape for the pairs join: one 400-word base text, ``n`` documents each
    an independent 10 % word edit of it (40 random positions get a random word), plus
    ``unrelated`` random texts, as files ``edits/eNNNNN.txt`` and ``other/uNNNN.txt``
    (written once; ``FOLDER.done`` beside it marks a complete folder)."""
    done = folder.with_name(folder.name + ".done")
    if done.exists():
        return
    shutil.rmtree(folder, ignore_errors=True)
    rng = random.Random(seed)
    base = [rng.choice(WORDS) for _ in range(400)]
    (folder / "edits").mkdir(parents=True)
    (folder / "other").mkdir()
    for i in range(n):
        words = list(base)
        for _ in range(40):
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        (folder / "edits" / f"e{i:05d}.txt").write_text(" ".join(words))
    for i in range(unrelated):
        text = " ".join(rng.choice(WORDS) for _ in range(400))
        (folder / "other" / f"u{i:04d}.txt").write_text(text)
    done.write_text("")


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


def _descendants(root: int) -> list[int]:
    """Pids below ``root`` (from /proc; Linux only)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def run_measured(cmd: list[str]) -> tuple[float, str, float, float]:
    """Run ``cmd``; returns wall seconds, its stdout, the largest RSS (MB) any Python
    process below it reached (Spark's Python workers) and the command's own largest RSS,
    sampled every 0.1 s."""
    import subprocess
    import threading

    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    peak = {"worker": 0.0, "driver": 0.0}

    def poll() -> None:
        while proc.poll() is None:
            peak["driver"] = max(peak["driver"], _rss_mb(proc.pid))
            for pid in _descendants(proc.pid):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        python = b"python" in f.read().split(b"\0")[0]
                except OSError:
                    continue
                if python:
                    peak["worker"] = max(peak["worker"], _rss_mb(pid))
            time.sleep(0.1)

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    out, _ = proc.communicate()
    watcher.join()
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}")
    return time.perf_counter() - started, out, peak["worker"], peak["driver"]


#: Task metrics summed per stage of the pipeline from Spark's event log (name -> key).
VOLUMES = {
    "shuffle_write_mb": "internal.metrics.shuffle.write.bytesWritten",
    "shuffle_read_mb": ("internal.metrics.shuffle.read.localBytesRead",
                        "internal.metrics.shuffle.read.remoteBytesRead"),
    "input_mb": "internal.metrics.input.bytesRead",
    "output_mb": "internal.metrics.output.bytesWritten",
    "task_s": "internal.metrics.executorRunTime",
}


def stage_volumes(log_dir: Path) -> dict[str, dict[str, float]]:
    """Per job description (``setJobDescription``, one per pipeline stage here): the task
    metrics of :data:`VOLUMES` summed over its Spark stages, from the event log files in
    ``log_dir`` (MB, and task seconds)."""
    import json

    label: dict[int, str] = {}
    totals: dict[str, dict[str, float]] = {}
    import pyarrow as pa

    for path in sorted(p for p in log_dir.rglob("*") if p.is_file()):
        if path.name.startswith("appstatus"):
            continue
        if path.suffix == ".zstd":  # Spark 4 compresses event logs by default
            with pa.CompressedInputStream(str(path), "zstd") as stream:
                text = stream.read().decode()
        else:
            text = path.read_text()
        for line in text.splitlines():
            event = json.loads(line)
            kind = event.get("Event")
            if kind == "SparkListenerStageSubmitted":
                props = event.get("Properties") or {}
                info = event["Stage Info"]
                label[info["Stage ID"]] = props.get("spark.job.description") or "other"
            elif kind == "SparkListenerStageCompleted":
                info = event["Stage Info"]
                values = {a["Name"]: float(a["Value"]) for a in info.get("Accumulables", [])
                          if isinstance(a.get("Value"), (int, float, str))
                          and str(a.get("Value")).lstrip("-").isdigit()}
                into = totals.setdefault(label.get(info["Stage ID"], "other"),
                                         dict.fromkeys(VOLUMES, 0.0))
                for name, keys in VOLUMES.items():
                    got = sum(values.get(key, 0.0) for key in
                              ((keys,) if isinstance(keys, str) else keys))
                    into[name] += got / (1000.0 if name == "task_s" else 1e6)
    return totals


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def harsh(master: str) -> None:
    """The harshest shape (:func:`harsh_corpus`) through the command line with its
    defaults (no ``--partitions``): pairs at K = 8 (seconds, the largest Python worker),
    checked against the in-process ``cluster -k 8`` (seconds, memory)."""
    corpus = WORK / "harsh-21k"
    harsh_corpus(corpus)
    out = WORK / "harsh-21k-results"
    cli = [sys.executable, "-m", "ditto_tui"]
    spark = [*cli, "spark"]
    run_measured([*spark, "fingerprint", str(corpus), "-o", str(out), "--master", master,
                  "--no-progress"])
    wall, said, worker, _ = run_measured([*spark, "pairs", str(out), "-k", "8", "--master",
                                          master, "--no-progress"])
    emit("spark_pairs_harsh_21k_k8_s", float(said.rsplit(" in ", 1)[1].split()[0]), "s")
    emit("spark_pairs_harsh_21k_k8_wall_s", wall, "s")
    emit("spark_pairs_harsh_21k_k8_worker_mb", worker, "MB")
    emit("spark_pairs_harsh_21k_k8_fp_pairs", int(said.split(" fingerprint pairs")[0].split()[-1]),
         "pairs")
    wall, said, _, rss = run_measured([*cli, "cluster", "-k", "8", "--no-cache", str(corpus)])
    emit("cluster_harsh_21k_k8_s", wall, "s")
    emit("cluster_harsh_21k_k8_mb", rss, "MB")
    shutil.rmtree(out, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fps", type=int, default=1_000_000, help="generated fingerprints")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--skip-skewed", action="store_true")
    parser.add_argument("--skip-generated", action="store_true")
    parser.add_argument("--skip-harsh", action="store_true")
    parser.add_argument("--skip-k8", action="store_true",
                        help="no K = 8 run (output bytes, open) on the generated fingerprints")
    parser.add_argument("--event-log", type=Path, default=None, metavar="DIR",
                        help="also print each stage's shuffle, input, output and task time "
                        "from Spark's event log (written to DIR; the harsh corpus folder, "
                        "when written, is fingerprinted too)")
    args = parser.parse_args()

    from ditto_tui.scale.families import families_job
    from ditto_tui.scale.fingerprints import Source, fingerprint_corpus
    from ditto_tui.scale.pairs import pairs_job
    from ditto_tui.scale.results import ResultsSession, load_results
    from ditto_tui.scale.session import build_session

    WORK.mkdir(parents=True, exist_ok=True)
    if not args.skip_harsh:
        harsh(args.master)
    started = time.perf_counter()
    conf = {"spark.ui.enabled": "false", "spark.driver.memory": "3g"}
    if args.event_log is not None:
        shutil.rmtree(args.event_log, ignore_errors=True)
        args.event_log.mkdir(parents=True)
        conf |= {"spark.eventLog.enabled": "true", "spark.eventLog.dir": str(args.event_log)}
    spark = build_session(args.master, shuffle_partitions=args.partitions, conf=conf)
    spark.range(1).count()
    emit("spark_startup", time.perf_counter() - started, "s")
    context = spark.sparkContext
    try:
        corpus = WORK / "harsh-21k"
        if args.event_log is not None and corpus.with_name(corpus.name + ".done").exists():
            context.setJobDescription("fingerprint-21k-files")
            started = time.perf_counter()
            fingerprint_corpus(spark, str(corpus), str(WORK / "harsh-21k-fingerprints"))
            emit("spark_fingerprint_21k_files_s", time.perf_counter() - started, "s")
            shutil.rmtree(WORK / "harsh-21k-fingerprints", ignore_errors=True)
        if not args.skip_skewed:
            shard = WORK / "skewed-20k"
            if not (shard / "part-0.parquet").exists():
                skewed_shard(shard)
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
            context.setJobDescription(f"pairs-{label(n)}-k3")
            started = time.perf_counter()
            s = pairs_job(spark, str(out), 3)
            emit(f"spark_pairs_{label(n)}_fps_k3_s", time.perf_counter() - started, "s")
            emit(f"spark_pairs_{label(n)}_fps_k3_fp_pairs", s.fp_pairs, "pairs")
            context.setJobDescription(f"families-{label(n)}-k3")
            started = time.perf_counter()
            f = families_job(spark, str(out), 3)
            emit(f"spark_families_{label(n)}_fps_k3_s", time.perf_counter() - started, "s")
            emit(f"spark_families_{label(n)}_fps_k3_multi", f.multi_families[3], "families")
            if not args.skip_k8:
                context.setJobDescription(f"pairs-{label(n)}-k8")
                started = time.perf_counter()
                pairs_job(spark, str(out), 8)
                emit(f"spark_pairs_{label(n)}_fps_k8_s", time.perf_counter() - started, "s")
                context.setJobDescription(f"families-{label(n)}-k8")
                started = time.perf_counter()
                families_job(spark, str(out), 8)
                emit(f"spark_families_{label(n)}_fps_k8_s", time.perf_counter() - started, "s")
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
    if args.event_log is not None:
        for stage, volumes in sorted(stage_volumes(args.event_log).items()):
            for name, value in volumes.items():
                emit(f"volume_{stage}_{name}", value, "")
    emit("load_avg_1min", os.getloadavg()[0], "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
