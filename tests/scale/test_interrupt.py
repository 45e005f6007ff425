"""Ctrl-C on the Spark driver: one line, and the families stage resumes where it stopped.

``ditto-tui spark families`` runs as a subprocess in its own session (its own process
group, as a terminal's foreground job) with ``--driver-edges 0``, so the components are
computed round by round on the executors. Once a round is stored in ``OUT/_resume``
the whole group gets SIGINT, as Ctrl-C sends it: the command must end with exit code
130 and exactly one line on stderr. The same command again must say where it resumes
and write families equal to the in-process ones at every k.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ditto_tui.core.families.clusters import clusters

pytest.importorskip("pyspark", reason="pyspark is not installed (extra 'spark')")
pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (extra 'spark')")
pq = pytest.importorskip("pyarrow.parquet")

from ditto_tui.scale.results import load_results  # noqa: E402
from ditto_tui.scale.session import find_java  # noqa: E402

if find_java() is None:
    pytest.skip("Java is not installed (Spark needs Java 17+)", allow_module_level=True)

pytestmark = pytest.mark.slow
K = 3
CLI = [sys.executable, "-m", "ditto_tui", "spark"]
SPARK = ["--master", "local[2]", "--no-progress", "--conf", "spark.ui.enabled=false"]


def _fingerprints(out: Path, seed: int = 3) -> tuple[list[str], np.ndarray]:
    """A results folder holding only ``fingerprints`` (and its meta): long chains of
    one-, two- and three-bit steps whose ids are shuffled (many Large/Small-Star rounds,
    at every k), some copies and unrelated fingerprints."""
    from ditto_tui.core.fingerprint.pipeline import make_pipeline

    rng = np.random.default_rng(seed)
    parts = []
    for bits in (1, 2, 3):
        steps = np.zeros(700, np.uint64)
        for _ in range(bits):
            steps ^= np.uint64(1) << rng.integers(0, 64, 700).astype(np.uint64)
        parts.append(np.bitwise_xor.accumulate(steps) ^ np.uint64(rng.integers(0, 2**63)))
    parts.append(rng.integers(0, 2**63, 600).astype(np.uint64))
    fps = np.concatenate(parts)
    fps = np.concatenate([fps, fps[rng.integers(0, len(fps), 100)]])
    fps = fps[rng.permutation(len(fps))]
    ids = [f"doc-{i:05d}" for i in range(len(fps))]
    identity = make_pipeline().identity
    (out / "fingerprints").mkdir(parents=True)
    pq.write_table(pa.table({
        "doc": np.arange(len(fps), dtype=np.int64),
        "id": ids,
        "fp": fps.view(np.int64),
        "hex": [f"{int(v):016x}" for v in fps],
        "size": np.full(len(fps), 100, np.int64),
        "offset": np.zeros(len(fps), np.int64),
        "kind": ["text"] * len(fps),
        "pipeline": [identity] * len(fps),
    }), str(out / "fingerprints" / "part-0.parquet"))
    meta = {"root": "file:/generated", "pipeline": {"name": "ditto", "char_n": 4, "word_n": 0,
            "shingle": 3, "identity": identity}, "options": {}, "documents": len(fps)}
    (out / "meta-fingerprint").mkdir()
    pq.write_table(pa.table({"json": [json.dumps(meta)]}),
                   str(out / "meta-fingerprint" / "part-0.parquet"))
    return ids, fps


def _a_round_is_stored(out: Path) -> bool:
    store = out / "_resume" / "families"
    return store.is_dir() and any(
        p.name.startswith("edges-") and (p / "_SUCCESS").exists() for p in store.iterdir()
    )


def test_ctrl_c_is_one_line_and_the_rerun_resumes_with_the_same_families(tmp_path) -> None:
    out = tmp_path / "out"
    ids, fps = _fingerprints(out)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run([*CLI, "pairs", str(out), "-k", str(K), *SPARK], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]

    families = [*CLI, "families", str(out), "-k", str(K), "--only-k", "--driver-edges", "0",
                *SPARK]
    err_path = tmp_path / "stderr"
    with err_path.open("wb") as err:
        job = subprocess.Popen(families, env=env, stdout=subprocess.PIPE, stderr=err,
                               start_new_session=True)
        deadline = time.monotonic() + 300
        while not _a_round_is_stored(out):
            assert job.poll() is None, "the families stage ended before a round was stored"
            assert time.monotonic() < deadline, "no round was stored in 300 s"
            time.sleep(0.05)
        before = err_path.stat().st_size
        os.killpg(job.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group
        stdout, _ = job.communicate(timeout=120)
    after = err_path.read_bytes()[before:].decode()
    assert job.returncode == 130, after
    assert after == ("ditto-tui: interrupted; run the same command again to continue "
                     "(families resume from their last round)\n")
    assert "families:" not in stdout.decode()
    assert _a_round_is_stored(out)

    again = subprocess.run(families, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    resumed = [ln for ln in again.stderr.splitlines() if ln.startswith("ditto-tui: ")]
    assert len(resumed) == 1 and resumed[0].startswith("ditto-tui: families: resuming k="), (
        again.stderr[-2000:])
    assert "families: families of 2+ documents" in again.stdout
    assert not (out / "_resume").exists() and not (out / "_checkpoints").exists()

    results = load_results(out)
    assert results.ids == ids
    for k in (0, K):
        assert results.families_at(k) == clusters(ids, fps, k), f"k={k}"


def test_a_store_for_other_inputs_is_discarded_with_the_reason(tmp_path) -> None:
    from ditto_tui.scale.families import families_job
    from ditto_tui.scale.resume import ResumeStore
    from ditto_tui.scale.session import build_session

    out = tmp_path / "out"
    ids, fps = _fingerprints(out)
    spark = build_session("local[2]", conf={"spark.ui.enabled": "false"})
    stale = ResumeStore(spark, str(out), "families", {"another": "run"})
    stale.save("nodes", spark.range(3).withColumnRenamed("id", "fp"))
    stale.commit({"level": 2, "tables": ["nodes"]})
    said: list[str] = []
    families_job(spark, str(out), 1, all_levels=False, local_edges=None, say=said.append)
    assert said == ["families: starting over: its inputs or parameters differ from this run's"]
    results = load_results(out)
    for k in range(2):
        assert results.families_at(k) == clusters(ids, fps, k), f"k={k}"
    assert not (out / "_resume").exists()
