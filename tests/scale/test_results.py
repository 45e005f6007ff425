"""A results folder opens with pyarrow alone and drives the explorer like a live corpus.

The folder is written here with pyarrow in the layout of the Spark jobs (the Spark side
is checked against the in-process path in test_spark.py), from the UI tests' corpus.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ditto_tui.core.families.clusters import clusters
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.core.index.near_index import NearIndex
from ditto_tui.core.index.pairs import unique_pairs
from ditto_tui.corpus.session import CorpusSession

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (extra 'spark')")
pq = pytest.importorskip("pyarrow.parquet")

from ditto_tui.scale.results import ResultsSession, load_results  # noqa: E402
from tests.ui.conftest import DATA, settle  # noqa: E402

MAX_K = 4


def _write(folder: Path, name: str, columns: dict[str, list], types: dict[str, object]) -> None:
    (folder / name).mkdir(parents=True)
    table = pa.table({c: pa.array(v, type=types[c]) for c, v in columns.items()})
    pq.write_table(table, str(folder / name / "part-00000.parquet"))


def _meta(folder: Path, stage: str, meta: dict) -> None:
    _write(folder, f"meta-{stage}", {"json": [json.dumps(meta)]}, {"json": pa.string()})


def _compact_families(ranked: list[str], fps: dict[str, int]) -> dict[str, list]:
    """The ``families`` rows the Spark job writes, from the reference ``clusters``: per
    distinct fingerprint and k >= 1, a row where its family label (smallest doc) changes."""
    arr = np.array([fps[i] for i in ranked], dtype=np.uint64)
    previous = {}
    for doc, fp in enumerate(arr.tolist()):
        previous.setdefault(fp, doc)  # k = 0: the smallest doc with the same fingerprint
    rows: dict[str, list] = {"fp": [], "k": [], "family": []}
    for k in range(1, MAX_K + 1):
        label = {}
        for group in clusters(ranked, arr, k):
            for member in group:
                label[fps[member]] = ranked.index(group[0])
        for fp, fam in sorted(label.items()):
            if previous[fp] != fam:
                rows["fp"].append(int(np.uint64(fp).view(np.int64)))
                rows["k"].append(k)
                rows["family"].append(fam)
                previous[fp] = fam
    return rows


@pytest.fixture
def results_dir(tmp_path: Path) -> tuple[Path, Path, dict[str, int]]:
    root = tmp_path / "corpus"
    shutil.copytree(DATA, root)
    pipeline = make_pipeline()
    with CorpusSession(root, pipeline, use_cache=False, jobs=1) as session:
        session.scan()
        docs = dict(session.documents)
        fps = {i: int(f) for i, f in session.fingerprints.items()}
        skipped = [(s.id, s.reason) for s in session.skipped]
    out = tmp_path / "results"
    ranked = sorted(fps)
    ids = ranked[::-1]  # rows in any order: the reader orders them by doc
    signed = np.array([fps[i] for i in ids], dtype=np.uint64).view(np.int64).tolist()
    _write(out, "fingerprints", {
        "doc": [ranked.index(i) for i in ids], "id": ids, "fp": signed, "hex": [f"{fps[i]:016x}" for i in ids],
        "size": [docs[i].size for i in ids], "offset": [docs[i].offset for i in ids],
        "kind": [docs[i].kind for i in ids], "pipeline": [pipeline.identity] * len(ids),
    }, {"doc": pa.int64(), "id": pa.string(), "fp": pa.int64(), "hex": pa.string(), "size": pa.int64(),
        "offset": pa.int64(), "kind": pa.string(), "pipeline": pa.string()})
    _write(out, "skipped", {"id": [s[0] for s in skipped], "reason": [s[1] for s in skipped]},
           {"id": pa.string(), "reason": pa.string()})
    _meta(out, "fingerprint", {
        "root": f"file:{root}", "pipeline": {"name": "ditto", "char_n": 4, "word_n": 0,
                                             "shingle": 3, "identity": pipeline.identity},
        "options": {"max_size": 1 << 20, "include_binary": False},
    })
    _write(out, "families", _compact_families(ranked, fps), {
        "fp": pa.int64(), "k": pa.int32(), "family": pa.int64()})
    _meta(out, "families", {"max_k": MAX_K, "levels": list(range(MAX_K + 1))})
    distinct = np.unique(np.array(list(fps.values()), dtype=np.uint64))
    a, b, d = unique_pairs(distinct, MAX_K)
    _write(out, "pairs-fp", {
        "fp_a": distinct[a].view(np.int64).tolist(), "fp_b": distinct[b].view(np.int64).tolist(),
        "distance": d.tolist(),
    }, {"fp_a": pa.int64(), "fp_b": pa.int64(), "distance": pa.int32()})
    _meta(out, "pairs", {"k": MAX_K})
    return out, root, fps


def test_load_results_sorts_ids_and_keeps_the_unsigned_bits(results_dir) -> None:
    out, root, fps = results_dir
    results = load_results(out)
    assert results.ids == sorted(fps)
    assert [int(v) for v in results.fps] == [fps[i] for i in results.ids]
    assert results.levels == list(range(MAX_K + 1))
    assert results.root_uri == f"file:{root}"
    for k in results.levels:
        assert results.families_at(k) == clusters(results.ids, results.fps, k)
    first = results.families_at(3, min_size=2)[0]
    assert all(results.family_of(m, 3) == first[0] for m in first)


def test_a_folder_without_fingerprints_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a ditto-tui Spark results folder"):
        load_results(tmp_path)


async def test_the_explorer_browses_results_like_a_corpus(results_dir) -> None:
    from ditto_tui.ui.app import DittoApp
    from ditto_tui.ui.widgets.family_table import FamilyTable

    out, _, fps = results_dir
    results = load_results(out)
    session = ResultsSession(results)
    app = DittoApp(session, pipeline=session.pipeline, max_k=MAX_K, k=3, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = {frozenset(f.members) for f in app.main_screen.query_one(FamilyTable).families}
        expected = {frozenset(g) for g in results.families_at(3, min_size=2)}
        assert shown == expected and shown
        member = next(iter(next(iter(shown))))
        assert session.read_text(member)  # previews read the local corpus
    assert len(app.snapshot) == len(fps)


async def test_the_explorer_shows_the_stored_families_without_indexing(results_dir) -> None:
    """Opened for a k the run stored, nothing is indexed again: the scan delivers no
    document, yet every k and both groupings list what an index of the same
    fingerprints lists."""
    from ditto_tui.ui.app import DittoApp
    from ditto_tui.ui.widgets.family_table import FamilyTable

    out, _, fps = results_dir
    results = load_results(out)
    session = ResultsSession(results, max_k=MAX_K)
    assert session.stored_index() is not None
    assert not session.scan().added  # the explorer reads the stored families instead
    near = NearIndex(MAX_K)
    near.add_many(list(fps), list(fps.values()))
    app = DittoApp(session, pipeline=session.pipeline, max_k=MAX_K, k=3, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for key, k, mode in (("", 3, "chain"), ("left_square_bracket", 2, "chain"),
                             ("g", 2, "star"), ("right_square_bracket", 3, "star")):
            if key:
                await pilot.press(key)
                await settle(pilot)
            view = app.main_screen.view
            assert view is not None and (view.request.k, view.request.mode) == (k, mode)
            shown = list(app.main_screen.query_one(FamilyTable).families)
            expected = [f for f in near.family_listing(k, mode=mode) if f.size > 1]
            assert shown == expected and shown
        member = shown[0].members[-1]
        assert [m.id for m in app.snapshot.near(fps[member], 0)] == sorted(
            i for i, v in fps.items() if v == fps[member])
    assert len(app.snapshot) == len(fps)
    assert dict(session.fingerprints.items()) == fps
    assert list(session.fingerprints.values()) == [fps[i] for i in sorted(fps)]


def test_a_session_opened_beyond_the_stored_k_indexes_its_documents(results_dir) -> None:
    out, _, fps = results_dir
    session = ResultsSession(load_results(out), max_k=MAX_K + 1)
    assert session.stored_index() is None
    assert dict(session.scan().added) == fps


def test_the_families_summary_counts_each_family_once() -> None:
    """A family that merged into another at a later k is not counted again."""
    from ditto_tui.scale.families import _multi_families

    # fps 1..4 with first docs 10..13; k=1: 2 joins 1 (label 10), 4 joins 3 (label 12);
    # k=2: 3 and 4 join 1's family (label 10). Fp 9 is a group of two identical docs.
    changes = pa.table({"fp": [2, 4, 3, 4], "k": [1, 1, 2, 2], "family": [10, 12, 10, 10]})
    dup = pa.table({"fp": [9, 1], "first": [50, 10]})
    assert _multi_families(changes, dup, [0, 1, 2]) == {0: 2, 1: 3, 2: 2}


def test_open_hands_the_explorer_the_stored_families(results_dir, monkeypatch, capsys) -> None:
    """``ditto-tui open`` opens the session for its largest k: the stored families are
    shown (nothing indexed) unless --max-k asks for more than the run stored."""
    from ditto_tui.scale import cli
    from ditto_tui.ui.app import DittoApp

    out, _, _ = results_dir
    opened: list[DittoApp] = []
    monkeypatch.setattr(DittoApp, "run", lambda self: opened.append(self))
    parser = argparse.ArgumentParser()
    cli.add_open_parser(parser.add_subparsers())
    for argv, stored in ((["open", str(out)], True), (["open", str(out), "--max-k", "6"], False)):
        assert cli.run_open(parser.parse_args(argv)) == 0
        source = opened[-1].explorer.source
        assert isinstance(source, ResultsSession)
        assert (source.stored_index() is not None) is stored
        assert opened[-1].explorer.max_k == (MAX_K if stored else 6)
        said = capsys.readouterr().err
        assert ("indexing the fingerprints for k up to 6" in said) is not stored
