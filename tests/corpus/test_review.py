"""The review store on real files: decisions survive restarts, renames and edits (stale)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.review.decisions import (
    Identity,
    Record,
    family_key,
    identity_of,
    resolve,
    review_progress,
)
from ditto_tui.corpus.review import ReviewStore, SessionState, review_path_for
from ditto_tui.corpus.session import CorpusSession
from tests.properties import examples

from .conftest import write


def identities(root: Path, pipeline, cache: Path) -> dict[str, Identity]:
    with CorpusSession(root, pipeline, cache=cache) as session:
        session.scan()
        return {i: identity_of(d, int(session.fingerprints[i]))
                for i, d in session.documents.items()}


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "state" / "review.sqlite"


def test_decisions_survive_restart_rename_and_go_stale_on_edit(
    root: Path, pipeline, cache_path: Path, store_path: Path
) -> None:
    write(root, "a.txt", "the quick brown fox " * 20)
    write(root, "b.txt", "the quick brown fox " * 20 + "!")
    write(root, "c.txt", "something else entirely " * 10)
    docs = identities(root, pipeline, cache_path)
    with ReviewStore(store_path) as store:
        store.set_decisions([("a.txt", docs["a.txt"], "keep"),
                             ("b.txt", docs["b.txt"], "duplicate"),
                             ("c.txt", docs["c.txt"], "not-duplicate")])
    # restart: a new handle, same answers
    with ReviewStore(store_path) as store:
        got = store.decisions(docs)
        assert got.current == {"a.txt": "keep", "b.txt": "duplicate", "c.txt": "not-duplicate"}
    # rename b.txt into a folder; edit c.txt a little (its fingerprint may not even change)
    (root / "sub").mkdir()
    os.rename(root / "b.txt", root / "sub" / "b-renamed.txt")
    time.sleep(0.01)
    with open(root / "c.txt", "a") as fh:
        fh.write("x")
    docs = identities(root, pipeline, cache_path)
    with ReviewStore(store_path) as store:
        got = store.decisions(docs)
        assert got.moved == {"b.txt": "sub/b-renamed.txt"}
        assert got.current == {"a.txt": "keep", "sub/b-renamed.txt": "duplicate"}
        assert got.stale == {"c.txt": "not-duplicate"}
        assert got.state("c.txt") == ("not-duplicate", True)
        assert got.state("a.txt") == ("keep", False)
    with ReviewStore(store_path) as store:  # the rename was written back
        paths = {r.path for r in store.decision_records()}
        assert "sub/b-renamed.txt" in paths and "b.txt" not in paths
        store.set_decision("a.txt", docs["a.txt"], None)
        assert store.decisions(docs).state("a.txt") == (None, False)
        with pytest.raises(ValueError):
            store.set_decision("a.txt", docs["a.txt"], "delete")


def test_resolve_claims_each_document_once() -> None:
    one = Identity(10, 1, 5, 99)
    docs = {"x": one, "y": one, "z": Identity(3, 3, 3, 3)}  # x and y are hard links
    records = [Record("gone1", one, "keep"), Record("gone2", one, "duplicate"),
               Record("gone3", one, "keep"), Record("z", Identity(3, 4, 3, 3), "keep")]
    got = resolve(records, docs)
    assert got.moved == {"gone1": "x", "gone2": "y"}
    assert [r.path for r in got.orphaned] == ["gone3"]
    assert got.stale == {"z": "keep"}


def test_family_marks_follow_members_not_paths(store_path: Path) -> None:
    a, b = Identity(1, 2, 3, 4), Identity(5, 6, 7, 8)
    key = family_key([a, b])
    assert key == family_key([b, a])
    assert key != family_key([a, Identity(5, 7, 7, 8)])
    with ReviewStore(store_path) as store:
        store.mark_family("reviewed", key, 2)
        store.mark_family("ignored", family_key([a]), 1)
    with ReviewStore(store_path) as store:
        assert store.family_marks("reviewed") == {key}
        other = family_key([Identity(9, 9, 9, 9), b])
        assert review_progress([key, other], store.family_marks("reviewed")) == (1, 2)
        store.mark_family("reviewed", key, 2, on=False)
        assert store.family_marks("reviewed") == set()
        assert len(store.family_marks("ignored")) == 1


def test_ignored_pairs_follow_renames_and_lapse_on_edit(store_path: Path) -> None:
    a, b, c = Identity(1, 1, 1, 1), Identity(2, 2, 2, 2), Identity(3, 3, 3, 3)
    with ReviewStore(store_path) as store:
        store.ignore_pair(("b", b), ("a", a))
        store.ignore_pair(("a", a), ("c", c))
        pairs, lapsed = store.ignored_pairs({"a2": a, "b": b, "c": Identity(3, 9, 3, 3)})
        assert pairs == [("a2", "b")] and lapsed == 1
        store.ignore_pair(("a", a), ("b", b), on=False)
        assert store.ignored_pairs({"a": a, "b": b})[0] == []


def test_sessions_round_trip_tolerate_garbage_and_fresh_sets_aside(store_path: Path) -> None:
    with ReviewStore(store_path) as store:
        assert store.load_session() is None
        store.save_session(SessionState(k=5, mode="star", sort="size",
                                        filters={"unreviewed": True}, show_ignored=True))
    with ReviewStore(store_path) as store:
        assert store.load_session() == SessionState(5, "star", "size", {"unreviewed": True}, True)
    assert SessionState.from_json('{"k": 99, "mode": "blob", "filters": 3}') == SessionState()
    assert SessionState.from_json("not json") == SessionState()
    notices: list[str] = []
    with ReviewStore(store_path, fresh=True, notices=notices) as store:
        assert store.load_session() is None
    assert notices and "previous one is kept" in notices[0]
    assert list(store_path.parent.glob("review.sqlite.before-fresh-*"))


def test_a_damaged_store_is_set_aside(store_path: Path) -> None:
    store_path.parent.mkdir(parents=True)
    store_path.write_bytes(b"this is not a database" * 100)
    notices: list[str] = []
    with ReviewStore(store_path, notices=notices) as store:
        assert store.load_session() is None
    assert "starting an empty one" in notices[0]


def test_review_store_is_never_inside_the_root(root: Path, tmp_path: Path) -> None:
    assert review_path_for(root, tmp_path / "c").parent == tmp_path / "c"
    with pytest.raises(ValueError):
        review_path_for(root, root / "inside")

PATHS = ["a", "b", "c", "d", "e"]
IDENTS = [Identity(1, 1, 1, 1), Identity(1, 2, 1, 1), Identity(2, 2, 2, 2), Identity(3, 3, 3, 3)]


@settings(max_examples=examples(200), deadline=None)
@given(
    st.dictionaries(st.sampled_from(PATHS), st.sampled_from(IDENTS)),
    st.dictionaries(st.sampled_from(PATHS), st.tuples(st.sampled_from(IDENTS),
                                                      st.sampled_from(["keep", "duplicate"]))),
)
def test_resolve_accounts_for_every_record_once(documents, stored) -> None:
    records = [Record(p, ident, v) for p, (ident, v) in stored.items()]
    got = resolve(records, documents)
    assert not set(got.current) & set(got.stale)
    assert set(got.current) | set(got.stale) <= set(documents)
    assert len(got.current) + len(got.stale) + len(got.orphaned) == len(records)
    for r in records:
        if documents.get(r.path) == r.identity:
            assert got.current[r.path] == r.value
    for old, new in got.moved.items():
        assert documents[new] == stored[old][0] and got.current[new] == stored[old][1]
    for doc_id in got.stale:
        assert documents[doc_id] != stored[doc_id][0]


def test_the_cache_and_the_review_store_are_private(tmp_path) -> None:
    """Every document path is in them: owner-only files (0600) in owner-only folders (0700),
    and an install that made them 0644/0755 is narrowed on the next open."""
    import stat as _stat

    from ditto_tui.corpus.cache import FingerprintCache
    from ditto_tui.corpus.review import ReviewStore as Store

    def mode(p) -> int:
        return _stat.S_IMODE(os.lstat(p).st_mode)

    folder = tmp_path / "cache" / "ditto-tui"
    cache = FingerprintCache(folder / "corpus-x.sqlite")
    store = Store(folder / "review-x.sqlite")
    store.set_decision("a.txt", Identity(1, 2, 3, 4), "keep")
    for db in (folder / "corpus-x.sqlite", folder / "review-x.sqlite"):
        for p in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
            if p.exists():
                assert mode(p) == 0o600, p
    assert mode(folder) == 0o700
    cache.close()
    store.close()
    os.chmod(folder, 0o755)
    os.chmod(folder / "review-x.sqlite", 0o644)
    os.chmod(folder / "corpus-x.sqlite", 0o644)
    Store(folder / "review-x.sqlite").close()
    FingerprintCache(folder / "corpus-x.sqlite").close()
    assert mode(folder) == 0o700
    assert mode(folder / "review-x.sqlite") == mode(folder / "corpus-x.sqlite") == 0o600
