"""Keep rules and ignore-aware families against slow, obviously-correct references."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.keep import (
    DocumentTable,
    by_folder,
    by_glob,
    family_labels,
    invert,
    mark_all_but_reference,
    preview,
    references,
    unsafe_families,
)
from ditto_tui.core.linkage import family_groups, ignore_aware_labels
from ditto_tui.core.pairs import UniquePairs
from tests.properties import examples

# -- keep rules ---------------------------------------------------------------------------

NAMES = ["a", "b", "ref/a", "ref/b", "x/y/a", "x/b", "z", "ref/x/c", "c.txt", "d/c.txt"]
RULE_NAMES = ["newest", "oldest", "largest", "smallest", "shortest-path", "first-name", "preferred"]


def reference_key(doc, rule):
    path, mtime, size, preferred = doc
    return {
        "newest": -mtime,
        "oldest": mtime,
        "largest": -size,
        "smallest": size,
        "shortest-path": (path.count("/"), len(path)),
        "first-name": (path.rsplit("/", 1)[-1], path),
        "preferred": 0 if preferred else 1,
    }[rule]


@st.composite
def corpora(draw):
    n = draw(st.integers(1, len(NAMES)))
    paths = draw(st.permutations(NAMES))[:n]
    mt = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    sz = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    fam = draw(st.lists(st.integers(-1, 2), min_size=n, max_size=n))
    rules = draw(st.lists(st.sampled_from(RULE_NAMES), max_size=4))
    return paths, mt, sz, fam, rules


@settings(max_examples=examples(150), deadline=None)
@given(corpora())
def test_references_match_a_python_sort(case):
    paths, mt, sz, fam, rules = case
    table = DocumentTable.from_documents(paths, mt, sz, reference_folders=["ref"])
    refs = references(np.array(fam), table, rules)
    for f in range(max(fam) + 1):
        members = [i for i in range(len(paths)) if fam[i] == f]
        if not members:
            assert refs[f] == -1
            continue
        docs = {i: (paths[i], mt[i], sz[i], paths[i].startswith("ref/")) for i in members}
        best = min(members, key=lambda i: (*[reference_key(docs[i], r) for r in rules], paths[i]))
        assert refs[f] == best
    got = preview(np.array(fam), table, rules)
    for i in range(len(paths)):
        in_family = fam[i] >= 0
        protected = in_family and paths[i].startswith("ref/")
        is_ref = in_family and got.refs[fam[i]] == i
        assert bool(got.protected[i]) == protected
        assert bool(got.marked[i]) == (in_family and not protected and not is_ref)
        first = "preferred" not in rules or rules[0] == "preferred"
        has_ref = any(paths[j].startswith("ref/") for j in range(len(paths)) if fam[j] == fam[i])
        if in_family and first and has_ref:
            assert paths[got.refs[fam[i]]].startswith("ref/")  # a reference folder wins


def test_named_rules_on_a_small_family():
    ids = ["b/long/name.txt", "a.txt", "c.txt"]
    table = DocumentTable.from_documents(ids, [30, 10, 20], [5, 9, 1])
    fam = np.array([0, 0, 0])
    assert ids[references(fam, table, ["newest"])[0]] == "b/long/name.txt"
    assert ids[references(fam, table, ["oldest"])[0]] == "a.txt"
    assert ids[references(fam, table, ["largest"])[0]] == "a.txt"
    assert ids[references(fam, table, ["smallest"])[0]] == "c.txt"
    assert ids[references(fam, table, ["shortest-path"])[0]] == "a.txt"
    assert ids[references(fam, table, ["first-name"])[0]] == "a.txt"
    try:
        references(fam, table, ["biggest"])
    except ValueError as exc:
        assert "biggest" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("unknown rule accepted")


def test_bulk_marking_helpers():
    ids = ["keep/a.txt", "x/b.txt", "x/c.md", "y/d.txt", "solo.txt"]
    fam = family_labels([[0, 1, 2], [3], [4]], len(ids))
    assert fam.tolist() == [0, 0, 0, -1, -1]  # groups of one are no family
    assert by_folder(ids, "x", fam).tolist() == [False, True, True, False, False]
    assert by_folder(ids, "x/").tolist() == [False, True, True, False, False]
    assert by_glob(ids, "*.txt", fam).tolist() == [True, True, False, False, False]
    assert by_glob(ids, "x/*").tolist() == [False, True, True, False, False]
    mask = by_glob(ids, "*.md", fam)
    assert invert(mask, fam).tolist() == [True, True, False, False, False]
    assert unsafe_families(fam, by_glob(ids, "*", fam)).tolist() == [0]
    assert unsafe_families(fam, mask).tolist() == []
    refs = np.array([0])
    assert mark_all_but_reference(fam, refs).tolist() == [False, True, True, False, False]


# -- ignore-aware families ----------------------------------------------------------------


def brute_labels(fps, k, ignored):
    n = len(fps)
    parent = list(range(n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    banned = {frozenset(p) for p in ignored}
    for x in range(n):
        for y in range(x + 1, n):
            if (fps[x] ^ fps[y]).bit_count() <= k and frozenset((x, y)) not in banned:
                parent[find(x)] = find(y)
    return [find(x) for x in range(n)]


def same_partition(a, b):
    return {frozenset(i for i in range(len(a)) if a[i] == v) for v in set(a)} == {
        frozenset(i for i in range(len(b)) if b[i] == v) for v in set(b)
    }


@st.composite
def linkage_cases(draw):
    base = draw(st.integers(0, 2**64 - 1))
    n = draw(st.integers(1, 14))
    flips = draw(st.lists(st.lists(st.integers(0, 63), max_size=4), min_size=n, max_size=n))
    fps = []
    for f in flips:
        v = base
        for bit in f:
            v ^= 1 << bit
        fps.append(v)
    if n > 2 and draw(st.booleans()):
        fps[1] = fps[0]  # identical documents
        fps[2] = fps[0]
    ignored = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=6))
    return fps, ignored


@settings(max_examples=examples(100), deadline=None)
@given(linkage_cases())
def test_ignore_aware_families_equal_brute_force_at_every_k(case):
    fps, ignored = case
    arr = np.array(fps, dtype=np.uint64)
    u, inv = np.unique(arr, return_inverse=True)
    pairs = UniquePairs.compute(u, 8)
    ia = np.array([p[0] for p in ignored], dtype=np.int64)
    ib = np.array([p[1] for p in ignored], dtype=np.int64)
    for k in range(-1, 9):
        got = ignore_aware_labels(inv, len(u), pairs.i, pairs.j, pairs.d, k, ia, ib)
        assert same_partition(got.tolist(), brute_labels(fps, k, ignored)), k
        # labels are numbered by first document
        firsts = [got.tolist().index(v) for v in sorted(set(got.tolist()))]
        assert firsts == sorted(firsts)


def test_ignoring_the_only_link_splits_a_family_and_identical_copies_stay_linked():
    fps = np.array([0, 1, 1, 3], dtype=np.uint64)  # 0-1 at 1 bit, 1-3 at 1 bit
    u, inv = np.unique(fps, return_inverse=True)
    p = UniquePairs.compute(u, 2)
    whole = ignore_aware_labels(inv, len(u), p.i, p.j, p.d, 1)
    assert len(set(whole.tolist())) == 1
    # documents 1 and 2 are identical: ignoring (1, 2) alone keeps them linked via 0 and 3
    cut = ignore_aware_labels(inv, len(u), p.i, p.j, p.d, 1, np.array([1]), np.array([2]))
    assert len(set(cut.tolist())) == 1
    # ignoring every edge of document 0 makes it a family of its own
    alone = ignore_aware_labels(inv, len(u), p.i, p.j, p.d, 1, np.array([0, 0]), np.array([1, 2]))
    assert [g.tolist() for g in family_groups(alone)] == [[1, 2, 3]]
