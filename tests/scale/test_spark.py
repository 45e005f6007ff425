"""Spark gives exactly the in-process fingerprints, skips, pairs and families.

A user generates a corpus of a few thousand documents (families of edited near-
duplicates, uniques, exact copies, binary files, an mbox, ignored and hidden paths), runs
``ditto-tui spark run`` on local[2], and finds the same answers as the in-process scan,
``all_pairs`` and ``clusters`` -- hidden ``_``/``.`` paths included; the one file whose
name is not UTF-8 (which the JVM cannot open) is reported as a skip. Skipped (with the
reason) when pyspark or Java is absent.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ditto_tui.core.families.clusters import all_pairs, clusters
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.documents import ScanOptions
from ditto_tui.corpus.session import CorpusSession
from tests.scale.corpus_maker import CorpusShape, make_corpus

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (extra 'spark')")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (extra 'spark')")

from ditto_tui.scale.session import find_java  # noqa: E402

if find_java() is None:
    pytest.skip("Java is not installed (Spark needs Java 17+)", allow_module_level=True)

from ditto_tui.corpus.documents import display_id  # noqa: E402
from ditto_tui.scale import jobs  # noqa: E402
from ditto_tui.scale.families import connected_components, families_job  # noqa: E402
from ditto_tui.scale.fingerprints import UNDECODABLE_REASON, PipelineSpec, fingerprint_corpus  # noqa: E402
from ditto_tui.scale.pairs import fp_pairs  # noqa: E402
from ditto_tui.scale.results import ResultsSession, load_results  # noqa: E402
from ditto_tui.scale.session import build_session, checkpoint_dir  # noqa: E402

pytestmark = pytest.mark.slow

K = 4
MAX_SIZE = 128 * 1024
OPTIONS = ScanOptions(max_size=MAX_SIZE)


@pytest.fixture(scope="module")
def spark():
    session = build_session("local[2]", shuffle_partitions=4, conf={"spark.ui.enabled": "false"})
    yield session
    session.stop()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("spark") / "corpus"
    make_corpus(root, CorpusShape())
    return root


@pytest.fixture(scope="module")
def in_process(corpus: Path):
    """The in-process scan of the same corpus: fingerprints and skips by id."""
    with CorpusSession(corpus, make_pipeline(), options=OPTIONS, use_cache=False, jobs=1) as s:
        s.scan()
        fps = {i: int(fp) for i, fp in s.fingerprints.items()}
        skips = {sk.id: sk.reason for sk in s.skipped}
    return fps, skips


@pytest.fixture(scope="module")
def results(spark, corpus: Path) -> tuple[Path, str]:
    """``ditto-tui spark run`` over the corpus (the CLI path, in this process)."""
    out = corpus.parent / "results"
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = jobs.main([
            "run", str(corpus), "-o", str(out), "-k", str(K), "--expand",
            "--max-size", "128k", "--no-progress", "--master", "local[2]", "--partitions", "4",
        ])
    assert code == 0
    return out, stdout.getvalue()


def _table(out: Path, name: str) -> dict[str, list]:
    return pq.read_table(str(out / name)).to_pydict()


def _unsigned(values: list[int]) -> list[int]:
    return [int(v) for v in np.array(values, dtype=np.int64).view(np.uint64)]


def _undecodable(rel: str) -> bool:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _visible(fps: dict[str, int]) -> dict[str, int]:
    """What Spark can fingerprint: everything but names that are not UTF-8."""
    return {i: fp for i, fp in fps.items() if not _undecodable(i)}


def test_run_reports_each_stage(results) -> None:
    _, printed = results
    lines = printed.splitlines()
    assert lines[0].startswith("fingerprint: ")
    assert "25 binary file" in lines[0]
    assert lines[1].startswith("pairs: ") and "document pairs (written)" in lines[1]
    assert lines[2].startswith("families: ")


def test_fingerprints_equal_the_in_process_scan(results, in_process) -> None:
    out, _ = results
    expected, _ = in_process
    table = _table(out, "fingerprints")
    got = dict(zip(table["id"], _unsigned(table["fp"]), strict=True))
    assert {"pkg/__init__.py", "pkg/.env", "_drafts/d.txt", "_vendor/.hidden/deep.txt"} <= set(got)
    assert [i for i in expected if _undecodable(i)] == ["odd/caf\udce9-latin1.txt"]
    assert got == _visible(expected)
    assert table["doc"] == list(range(len(got))) and table["id"] == sorted(got)
    assert len(got) > 2500
    assert table["hex"] == [f"{v:016x}" for v in _unsigned(table["fp"])]
    assert set(table["pipeline"]) == {make_pipeline().identity}
    by_id = dict(zip(table["id"], zip(table["kind"], table["size"], table["offset"], strict=True), strict=True))
    assert by_id["empty/e0.txt"] == ("text", 0, 0)
    assert by_id["web/page.html"][0] == "html"
    kind, size, offset = by_id["mail/archive.mbox#2"]
    assert kind == "mbox" and offset > 0 and size > 0


def test_skips_equal_the_in_process_scan(results, in_process) -> None:
    out, _ = results
    _, expected = in_process
    table = _table(out, "skipped")
    got = dict(zip(table["id"], table["reason"], strict=True))
    assert got.pop(display_id("odd/caf\udce9-latin1.txt")) == UNDECODABLE_REASON
    assert got == expected
    assert got["big/huge.txt"].startswith("larger than the size limit")
    assert "node_modules/pkg/index.js" not in got and "build/out.log" not in got


def test_pairs_equal_all_pairs(results, in_process) -> None:
    out, _ = results
    fps = _visible(in_process[0])
    ids = sorted(fps)
    i, j, d = all_pairs(np.array([fps[x] for x in ids], dtype=np.uint64), K)
    expected = {(ids[a], ids[b], int(c)) for a, b, c in zip(i, j, d, strict=True)}
    table = _table(out, "pairs")
    got = list(zip(table["a"], table["b"], table["distance"], strict=True))
    assert len(got) == len(set(got)), "each pair once"
    assert set(got) == expected
    assert any(c == 0 for *_, c in got) and any(c == K for *_, c in got)


def test_fingerprint_pairs_are_distinct_and_counted(results) -> None:
    out, _ = results
    groups = _table(out, "groups")
    n = dict(zip(groups["fp"], groups["n"], strict=True))
    assert sum(n.values()) == len(_table(out, "fingerprints")["id"])
    assert max(n.values()) >= 12  # the empty files share one fingerprint
    fps = _table(out, "fingerprints")
    first: dict[int, int] = {}
    for doc, fp in zip(fps["doc"], fps["fp"], strict=True):
        first[fp] = min(first.get(fp, doc), doc)
    assert dict(zip(groups["fp"], groups["first"], strict=True)) == first
    pairs = _table(out, "pairs-fp")
    keys = list(zip(pairs["fp_a"], pairs["fp_b"], strict=True))
    assert all(a < b for a, b in keys) and len(keys) == len(set(keys))
    assert all(n[a] == na and n[b] == nb for (a, b), na, nb in zip(keys, pairs["n_a"], pairs["n_b"], strict=True))
    doc_pairs = len(_table(out, "pairs")["a"])
    assert doc_pairs == sum(x * y for x, y in zip(pairs["n_a"], pairs["n_b"], strict=True)) + sum(
        c * (c - 1) // 2 for c in n.values()
    )


def test_families_equal_clusters_for_every_k(results, in_process) -> None:
    out, _ = results
    fps = _visible(in_process[0])
    ids = sorted(fps)
    arr = np.array([fps[x] for x in ids], dtype=np.uint64)
    loaded = load_results(out)
    assert loaded.levels == list(range(K + 1))
    sizes = []
    for k in range(K + 1):
        expected = {m: g[0] for g in clusters(ids, arr, k) for m in g}
        got = {i: loaded.ids[f] for i, f in zip(loaded.ids, loaded.families[k].tolist(), strict=True)}
        assert got == expected, f"k={k}"
        sizes.append(len(set(got.values())))
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
    # compact: a row only where a fingerprint's family changes, none for loners
    table = _table(out, "families")
    in_pairs = set(_table(out, "pairs-fp")["fp_a"]) | set(_table(out, "pairs-fp")["fp_b"])
    assert set(table["fp"]) <= in_pairs and len(table["fp"]) < len(ids) / 2
    assert len(set(zip(table["fp"], table["k"], strict=True))) == len(table["fp"])


def test_large_star_small_star_families_equal_the_driver_ones(spark, results, in_process) -> None:
    """The executors' components (forced; the driver solves graphs this small) give the
    same compact rows as the driver's, and the same families as ``clusters``."""
    out, _ = results

    def rows() -> set[tuple[int, int, int]]:
        table = _table(out, "families")
        return set(zip(table["fp"], table["k"], table["family"], strict=True))

    assert families_job(spark, str(out), K, all_levels=False).rounds == 0
    on_driver = rows()
    summary = families_job(spark, str(out), K, all_levels=False, local_edges=None)
    assert summary.rounds >= 1 and summary.levels == [0, K]
    assert rows() == on_driver and on_driver
    fps = _visible(in_process[0])
    ids = sorted(fps)
    arr = np.array([fps[x] for x in ids], dtype=np.uint64)
    loaded = load_results(out)
    assert loaded.levels == [0, K] and loaded.families_at(K) == clusters(ids, arr, K)
    families_job(spark, str(out), K)  # back to every level for the tests below


def test_results_open_without_spark_like_a_session(results, in_process) -> None:
    out, _ = results
    loaded = load_results(out)
    fps = _visible(in_process[0])
    assert loaded.ids == sorted(fps)
    assert loaded.fps.dtype == np.uint64 and loaded.levels == list(range(K + 1))
    ids = loaded.ids
    assert loaded.families_at(3, 2) == clusters(ids, loaded.fps, 3, 2)
    session = ResultsSession(loaded)
    assert session.readable and session.watch_state == "off"
    assert {i: int(f) for i, f in session.fingerprints.items()} == fps
    batch = session.scan()
    assert len(batch.added) == len(fps) and batch.skipped
    assert session.read_text("mail/archive.mbox#2").startswith("Subject: note 1")
    assert session.mail_info("mail/archive.mbox#2").subject == "note 1"
    copy = out.parent / "elsewhere"
    session = ResultsSession(loaded, root=copy)
    assert not session.readable and session.notices
    with pytest.raises(OSError, match="not readable from this machine"):
        session.read_text("web/page.html")


def test_wider_block_designs_find_the_same_pairs(spark, results) -> None:
    from ditto_tui.core.index.pairs import TableDesign

    out, _ = results
    distinct = spark.read.parquet(str(out / "groups")).select("fp")
    base = {tuple(r) for r in fp_pairs(distinct, K).collect()}
    wide = fp_pairs(distinct, K, TableDesign(K + 3, 3)).collect()
    assert len(wide) == len(base) and {tuple(r) for r in wide} == base
    with pytest.raises(ValueError, match="not exact"):
        fp_pairs(distinct, K, TableDesign(K + 2, 3))


def test_large_star_small_star_on_long_chains(spark, tmp_path: Path) -> None:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as scipy_components

    rng = np.random.default_rng(3)
    nodes = rng.permutation(3000).astype(np.int64) * 7 - 9000  # negative labels too
    edges = [(int(nodes[i]), int(nodes[i + 1])) for i in range(0, 1499)]  # one long chain
    edges += [(int(nodes[1500 + a]), int(nodes[1500 + b]))
              for a, b in rng.integers(0, 1500, size=(900, 2))]
    df = spark.createDataFrame(edges, "src long, dst long")
    with checkpoint_dir(spark, str(tmp_path)):
        mapping, rounds = connected_components(df)
        got = {r["node"]: r["root"] for r in mapping.collect()}
    assert not (tmp_path / "_checkpoints").exists()
    index = {int(v): i for i, v in enumerate(nodes)}
    a = [index[s] for s, _ in edges]
    b = [index[d] for _, d in edges]
    _, labels = scipy_components(coo_matrix((np.ones(len(a)), (a, b)), shape=(3000, 3000)), directed=False)
    touched = {x for e in edges for x in e}
    smallest: dict[int, int] = {}
    for node in touched:
        lab = labels[index[node]]
        smallest[lab] = min(smallest.get(lab, node), node)
    assert got == {node: smallest[labels[index[node]]] for node in touched}
    assert rounds >= 3  # a 1,500-node chain needs several rounds


def test_html_pipeline_reads_only_html_and_reports_the_rest(spark, tmp_path: Path) -> None:
    root = tmp_path / "site"
    (root / "a").mkdir(parents=True)
    pages = {
        "a/one.html": b"<html><body><div><p>one</p></div></body></html>",
        "a/Two.HTM": b"<html><body><div><p>two</p><p>x</p></div></body></html>",
        "three.xhtml": b"<html><head><title>t</title></head><body></body></html>",
    }
    for rel, data in pages.items():
        (root / rel).write_bytes(data)
    (root / "notes.txt").write_bytes(b"not a page")
    spec = PipelineSpec("html")
    summary = fingerprint_corpus(spark, str(root), str(tmp_path / "out"), spec)
    pipeline = make_pipeline("html")
    table = _table(tmp_path / "out", "fingerprints")
    got = dict(zip(table["id"], _unsigned(table["fp"]), strict=True))
    assert got == {rel: int(pipeline.fingerprint(data)) for rel, data in pages.items()}
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as s:
        s.scan()
        expected_skips = {sk.id: sk.reason for sk in s.skipped}
    skipped = _table(tmp_path / "out", "skipped")
    assert dict(zip(skipped["id"], skipped["reason"], strict=True)) == expected_skips
    assert summary.reasons == {"not accepted by the html pipeline": 1}


def test_a_missing_root_is_one_line_and_exit_1(spark, tmp_path: Path, capsys) -> None:
    code = jobs.main(["fingerprint", str(tmp_path / "nope"), "-o", str(tmp_path / "o"),
                      "--no-progress"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("ditto-tui: spark: ") and err.count("\n") == 1


@pytest.fixture(autouse=True, scope="module")
def _no_leftover_checkpoints(results):
    yield
    out, _ = results
    assert not (out / "_checkpoints").exists()
    shutil.rmtree(out, ignore_errors=True)
    assert not os.path.exists(out)
