"""The explorer's review helpers: families re-formed without ignored pairs, rule previews."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.families.clusters import Family, clusters, describe_family
from ditto_tui.explore.review import (
    ReviewState,
    action_targets,
    preview_marks,
    split_ignored,
)
from tests.properties import examples


def brute_force(fps: dict[str, int], ignored: set[frozenset[str]], k: int) -> list[tuple[str, ...]]:
    """Components of "distance <= k and not an ignored pair", by a plain union-find."""
    ids = sorted(fps)
    parent = {i: i for i in ids}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x in ids:
        for y in ids:
            if x < y and (fps[x] ^ fps[y]).bit_count() <= k and frozenset((x, y)) not in ignored:
                parent[find(x)] = find(y)
    groups: dict[str, list[str]] = {}
    for i in ids:
        groups.setdefault(find(i), []).append(i)
    out = [tuple(sorted(g)) for g in groups.values()]
    out.sort(key=lambda g: (-len(g), g))
    return out


def listing_of(fps: dict[str, int], k: int) -> tuple[Family, ...]:
    ids = sorted(fps)
    out = []
    for group in clusters(ids, [fps[i] for i in ids], k):
        centre, diameter, exact = describe_family(group, [fps[m] for m in group])
        out.append(Family(tuple(group), centre, diameter, exact))
    return tuple(out)


@settings(max_examples=examples(150), deadline=None)
@given(
    fps=st.lists(st.sampled_from([0, 1, 3, 7, 15, 0xF0, 0xF1, 0xFF, 1 << 40]), min_size=1, max_size=14),
    picks=st.lists(st.tuples(st.integers(0, 13), st.integers(0, 13)), max_size=8),
    k=st.integers(0, 8),
)
def test_families_without_ignored_pairs_equal_brute_force(fps, picks, k):
    docs = {f"d{i:02d}": fp for i, fp in enumerate(fps)}
    ids = sorted(docs)
    pairs = {
        (min(ids[a % len(ids)], ids[b % len(ids)]), max(ids[a % len(ids)], ids[b % len(ids)]))
        for a, b in picks
        if ids[a % len(ids)] != ids[b % len(ids)]
    }
    state = ReviewState(active=True, pairs=tuple(sorted(pairs)))
    got = split_ignored(listing_of(docs, k), state.partners(), docs, k)
    assert [f.members for f in got] == brute_force(docs, {frozenset(p) for p in pairs}, k)
    for family in got:
        centre, diameter, _ = describe_family(family.members, [docs[m] for m in family.members])
        assert (family.centre, family.diameter) == (centre, diameter)


def test_no_ignored_pairs_returns_the_listing_itself():
    docs = {"a": 0, "b": 1}
    listing = listing_of(docs, 3)
    assert split_ignored(listing, {}, docs, 3) is listing


def _doc(mtime: int, size: int = 10):
    return SimpleNamespace(mtime_ns=mtime, size=size, inode=mtime, kind="text")


def test_rule_preview_keeps_newest_and_respects_user_decisions_and_reference_folders():
    documents = {"a/x": _doc(1), "a/y": _doc(3), "b/z": _doc(2), "c/1": _doc(5), "c/2": _doc(4)}
    families = [["a/x", "a/y", "b/z"], ["c/1", "c/2"]]
    state = ReviewState(active=True, decisions={"c/2": "not-duplicate"})
    fps = dict.fromkeys(documents, 0)
    p = preview_marks(families, documents, state, fps, 3, rules=["newest"])
    assert dict(p.marks) == {"a/x": "duplicate", "a/y": "keep", "b/z": "duplicate"}
    assert (p.families, p.duplicates, p.keeps) == (1, 2, 1)
    assert {r[0]: (r[3], r[4]) for r in p.rows} == {"a/x": ("a/y", 0), "b/z": ("a/y", 0),
                                                   "a/y": ("", -1)}
    p = preview_marks(families, documents, state, fps, 3, rules=["preferred", "newest"],
                      folders=["b"])
    assert dict(p.marks) == {"a/x": "duplicate", "a/y": "duplicate", "b/z": "keep"}


def test_rule_preview_marks_nothing_farther_than_k_from_its_keeper():
    """A chain family 6 bits wide at k=3: two tight groups, the far end keeps its own copy;
    rows come farthest first."""
    documents = {m: _doc(t) for m, t in (("a", 4), ("b", 3), ("c", 2), ("d", 1))}
    fps = {"a": 0b0, "b": 0b11, "c": 0b1111, "d": 0b111111}
    state = ReviewState(active=True)
    p = preview_marks([["a", "b", "c", "d"]], documents, state, fps, 3, rules=["newest"])
    assert dict(p.marks) == {"a": "keep", "b": "duplicate", "c": "keep", "d": "duplicate"}
    assert p.split == 1 and p.too_wide == 0  # 6 bits: not above k + 4
    assert [(r[0], r[3], r[4]) for r in p.rows][:2] == [("b", "a", 2), ("d", "c", 2)]
    wide = {"a": 0, "b": 0b111, "c": 0b111111, "d": (1 << 12) - 1}
    p = preview_marks([["a", "b", "c", "d"]], documents, state, wide, 3, rules=["newest"])
    assert p.too_wide == 1 and p.split == 1  # 12 bits > 2k and > k + 4: flagged
    assert all(r[4] <= 3 for r in p.rows)


def test_bulk_folder_glob_invert_never_mark_a_whole_family():
    documents = {m: _doc(i) for i, m in enumerate(["a/1.txt", "a/2.txt", "b/1.txt", "b/2.md"])}
    families = [["a/1.txt", "a/2.txt"], ["b/1.txt", "b/2.md"]]
    state = ReviewState(active=True)
    fps = dict.fromkeys(documents, 0)
    p = preview_marks(families, documents, state, fps, 3, mode="folder", argument="a")
    assert p.duplicates == 0 and p.skipped == 1  # every member of family 1 is under a/
    p = preview_marks(families, documents, state, fps, 3, mode="glob", argument="*.md")
    assert dict(p.marks) == {"b/1.txt": "keep", "b/2.md": "duplicate"}
    far = {**fps, "b/2.md": 0b1111}  # 4 bits from the member it would duplicate
    p = preview_marks(families, documents, state, far, 3, mode="glob", argument="*.md")
    assert dict(p.marks) == {} and p.unkept == 1  # no kept member within k: left alone
    state = ReviewState(active=True, decisions={"b/2.md": "duplicate"})
    p = preview_marks(families, documents, state, fps, 3, mode="invert")
    assert dict(p.marks) == {"b/1.txt": "duplicate", "b/2.md": "keep"}


def test_action_targets_take_the_kept_member_as_reference_and_skip_stale():
    documents = {m: _doc(i) for i, m in enumerate(["a", "b", "c"])}
    family = Family(("a", "b", "c"), "a", 2)
    state = ReviewState(active=True, decisions={"b": "keep", "c": "duplicate"}, stale={"a": "duplicate"})
    targets, far, stale, _wide = action_targets([family], documents, state,
                                                dict.fromkeys("abc", 0), 3)
    assert [(d is documents["c"], ref, bits) for d, ref, bits in targets] == [(True, "b", 0)]
    assert far == [] and stale == 1


def test_action_targets_never_pair_a_duplicate_with_a_keeper_farther_than_k():
    """Two kept copies in a wide family: each duplicate goes with the nearest, and one
    with no kept member within k is left alone (the dry run says so)."""
    documents = {m: _doc(i) for i, m in enumerate(["a", "b", "c", "d", "e"])}
    fps = {"a": 0, "b": 0b11, "c": 0xFF, "d": 0xFF ^ 0b1, "e": 1 << 40 | 0xF0F0}
    family = Family(("a", "b", "c", "d", "e"), "a", 20)
    state = ReviewState(active=True, decisions={
        "a": "keep", "c": "keep", "b": "duplicate", "d": "duplicate", "e": "duplicate"})
    targets, far, _, wide = action_targets([family], documents, state, fps, 3)
    assert sorted((d is documents[m], ref, bits) for (d, ref, bits), m in
                  zip(targets, ["b", "d"], strict=True)) == [(True, "a", 2), (True, "c", 1)]
    assert far == ["e"] and wide == 1  # diameter 20 > 2k: flagged


@settings(max_examples=examples(100), deadline=None)
@given(
    fps=st.lists(st.sampled_from([0, 1, 3, 7, 15, 31, 0xF0, 0xF1, 0xFF, 1 << 40]), min_size=1, max_size=14),
    k=st.integers(0, 6),
)
def test_dedupe_star_groups_equal_the_index_star_families(fps, k):
    from ditto_tui.core.index.near_index import NearIndex
    from ditto_tui.corpus.dedupe import select
    from ditto_tui.corpus.documents import Document

    ids = [f"f{i:02d}" for i in range(len(fps))]
    documents = {i: Document(i, "/x/" + i, "text", 10, n, n) for n, i in enumerate(ids)}
    fingerprints = dict(zip(ids, fps, strict=True))
    index = NearIndex(8)
    for i in ids:
        index.add(i, fingerprints[i])
    want = sorted(f.members for f in index.families(k, mode="star") if f.size > 1)
    sel = select(documents, fingerprints, k, ["first-name"], mode="star")
    got: dict[int, list[str]] = {}
    for x, lab in enumerate(sel.labels.tolist()):
        if lab >= 0:
            got.setdefault(lab, []).append(sel.ids[x])
    assert sorted(tuple(g) for g in got.values()) == want


def test_decisions_go_through_the_writer_in_order_and_are_stored(tmp_path):
    from ditto_tui.core.fingerprint.pipeline import make_pipeline
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.explore import Explorer, ViewRequest
    from ditto_tui.explore.events import Notice, ReviewChanged
    from ditto_tui.explore.review_service import open_review

    root = tmp_path / "c"
    root.mkdir()
    text = "the quick brown fox jumps over the lazy dog and runs far away " * 20
    (root / "a.txt").write_text(text)
    (root / "b.txt").write_text(text + "!")
    events = []
    with CorpusSession(root, make_pipeline(), use_cache=False, jobs=1) as session:
        store = open_review(session, cache_dir=tmp_path / "cache")
        explorer = Explorer(session, max_k=4, watch=False, review=store, on_event=events.append)
        explorer.start()
        try:
            assert explorer.wait_idle()
            explorer.request_view(ViewRequest(k=3, serial=1))
            for value in ("keep", "duplicate", None, "not-duplicate"):  # the last one wins
                explorer.decide(["a.txt"], value)
            explorer.mark_family(["a.txt", "b.txt"], "reviewed")
            assert explorer.wait_idle()
            assert dict(explorer.review.decisions) == {"a.txt": "not-duplicate"}
            assert len(explorer.review.reviewed) == 1
            assert any(isinstance(e, ReviewChanged) for e in events)
            assert store.decisions({}).orphaned[0].value == "not-duplicate"
        finally:
            explorer.close()
    from ditto_tui.explore import MemorySource

    events.clear()
    explorer = Explorer(MemorySource({"a": 1, "b": 3}), max_k=4, on_event=events.append)
    explorer.start()
    try:
        assert not explorer.review.active
        explorer.decide(["a"], "keep")
        assert any(isinstance(e, Notice) and "review store" in e.text for e in events)
    finally:
        explorer.close()


@settings(max_examples=examples(120), deadline=None)
@given(
    fps=st.lists(st.sampled_from([0, 1, 3, 7, 15, 31, 0xF0, 0xF1, 0xFF, 1 << 40]), min_size=1, max_size=14),
    picks=st.lists(st.tuples(st.integers(0, 13), st.integers(0, 13)), max_size=8),
    k=st.integers(0, 6),
)
def test_explorer_stars_without_ignored_pairs_equal_dedupe_star(fps, picks, k):
    """The explorer's star view and ``dedupe --mode star`` agree on who leaves a star."""
    from ditto_tui.core.index.near_index import NearIndex
    from ditto_tui.core.index.pairs import UniquePairs
    from ditto_tui.corpus.dedupe import _star_labels
    from ditto_tui.explore.review import leave_stars

    ids = [f"f{i:02d}" for i in range(len(fps))]
    fingerprints = dict(zip(ids, fps, strict=True))
    pairs = sorted({
        (min(ids[a % len(ids)], ids[b % len(ids)]), max(ids[a % len(ids)], ids[b % len(ids)]))
        for a, b in picks
        if a % len(ids) != b % len(ids)
    })
    index = NearIndex(8)
    for i in ids:
        index.add(i, fingerprints[i])
    got = sorted(f.members for f in leave_stars(index.family_listing(k, mode="star"), pairs,
                                                fingerprints))
    import numpy as np

    u, inv = np.unique(np.array(fps, np.uint64), return_inverse=True)
    pos = {d: x for x, d in enumerate(ids)}
    labels = _star_labels(ids, inv.reshape(-1), len(u), UniquePairs.compute(u, k), k,
                          [(pos[a], pos[b]) for a, b in pairs])
    groups: dict[int, list[str]] = {}
    for x, lab in enumerate(labels.tolist()):
        groups.setdefault(lab, []).append(ids[x])
    assert got == sorted(tuple(g) for g in groups.values())


def test_a_member_ignored_with_its_centre_leaves_the_star():
    from ditto_tui.core.index.near_index import NearIndex
    from ditto_tui.explore.review import leave_stars

    fps = {"a": 0, "b": 1, "c": 3}
    index = NearIndex(8)
    for d, fp in fps.items():
        index.add(d, fp)
    listing = index.family_listing(2, mode="star")
    assert [f.members for f in listing] == [("a", "b", "c")] and listing[0].centre == "a"
    out = leave_stars(listing, [("a", "b")], fps)
    assert [f.members for f in out] == [("a", "c"), ("b",)]
    assert out[0].diameter == 2
    assert leave_stars(listing, [("b", "c")], fps) is listing  # two leaves stay
