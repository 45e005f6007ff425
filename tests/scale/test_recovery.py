"""A job survives a killed executor, and the README's spark-submit command works.

``spark-submit`` (the virtual environment's ``bin`` first on PATH, as the README says)
runs ``ditto_tui/scale/jobs.py run`` on a local cluster of two executors. The pairs
kernel kills its executor's JVM the first time it runs (tests/scale/fault, once, checked
by a marker file); Spark replaces the executor, recomputes what was lost and the results
still equal the in-process ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ditto_tui.core.families.clusters import all_pairs, clusters
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.documents import ScanOptions
from ditto_tui.corpus.session import CorpusSession
from tests.scale.corpus_maker import CorpusShape, make_corpus

pytest.importorskip("pyspark", reason="pyspark is not installed (extra 'spark')")
# the corpus's one non-UTF-8 name is reported as a skip by Spark (see test_spark.py)
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (extra 'spark')")

from ditto_tui.scale.results import load_results  # noqa: E402
from ditto_tui.scale.session import find_java  # noqa: E402

if find_java() is None:
    pytest.skip("Java is not installed (Spark needs Java 17+)", allow_module_level=True)

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
K = 3


def test_spark_submit_survives_a_killed_executor(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("the fault finds the executor through /proc")
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "spark-submit").exists():
        pytest.skip("spark-submit is not in this environment's bin")
    root = tmp_path / "corpus"
    make_corpus(root, CorpusShape(families=40, uniques=80, copies=10, binaries=3))
    out = tmp_path / "out"
    marker = tmp_path / "killed"
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "tests" / "scale" / "fault"), str(REPO), env.get("PYTHONPATH", "")]
    )
    env["DITTO_TUI_TEST_KILL"] = str(marker)
    env.pop("PYSPARK_GATEWAY_PORT", None)
    command = [
        "spark-submit", "--master", "local-cluster[2,1,1024]",
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.executorEnv.DITTO_TUI_TEST_KILL=" + str(marker),
        "--conf", "spark.executorEnv.PYTHONPATH=" + env["PYTHONPATH"],
        str(REPO / "ditto_tui" / "scale" / "jobs.py"),
        "run", str(root), "-o", str(out), "-k", str(K), "--no-progress", "--partitions", "4",
        "--max-size", "128k",
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=480)
    assert done.returncode == 0, done.stderr[-3000:]
    assert marker.read_text().startswith("killed executor "), "the fault did not fire"
    assert "families: " in done.stdout

    with CorpusSession(root, make_pipeline(), options=ScanOptions(max_size=128 * 1024),
                       use_cache=False, jobs=1) as session:
        session.scan()
        fps = {i: int(fp) for i, fp in session.fingerprints.items()}
    fps = {i: fp for i, fp in fps.items() if i.encode("utf-8", "replace").decode() == i}
    ids = sorted(fps)
    arr = np.array([fps[i] for i in ids], dtype=np.uint64)
    results = load_results(out)
    assert results.ids == ids and [int(v) for v in results.fps] == arr.tolist()
    for k in range(K + 1):
        assert results.families_at(k) == clusters(ids, arr, k), f"k={k}"
    i, _, _ = all_pairs(arr, K)
    meta = json.loads(pq.read_table(str(out / "meta-pairs")).column("json")[0].as_py())
    assert results.pairs_k == K and meta["doc_pairs"] == len(i)
    assert not (out / "_checkpoints").exists()
