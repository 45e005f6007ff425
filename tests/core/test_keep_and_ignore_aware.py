"""Keep rules and ignore-aware families against slow, obviously-correct references.

The keep rules' promise: a document is only ever marked a duplicate of a keeper within k
of it, whatever the grouping (a chain family can be 30 bits wide)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.families.ignore_aware import family_groups, ignore_aware_labels
from ditto_tui.core.index.pairs import UniquePairs
from ditto_tui.core.review.keep import (
    DocumentTable,
    by_folder,
    by_glob,
    family_labels,
    invert,
    keepers,
    preview,
    unsafe_families,
)
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
    # fingerprints a few bits apart, so families are tight or wide at small k
    base = draw(st.integers(0, 2**64 - 1))
    fps = [base ^ draw(st.integers(0, 2**12 - 1)) for _ in range(n)]
    k = draw(st.integers(0, 6))
    pinned = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return paths, mt, sz, fam, rules, fps, k, pinned


def ref_keepers(paths, mt, sz, fam, rules, fps, k, pinned):
    """Keeper of every document, by the rule in plain Python: per family, members in rank
    order; the first not yet taken is kept and takes every free unpinned member within k."""
    keeper = [-1] * len(paths)
    for f in sorted(set(fam) - {-1}):
        members = [i for i in range(len(paths)) if fam[i] == f]
        docs = {i: (paths[i], mt[i], sz[i], paths[i].startswith("ref/")) for i in members}
        ranked = sorted(members, key=lambda i: (*[reference_key(docs[i], r) for r in rules],
                                                paths[i]))
        for i in ranked:
            if keeper[i] >= 0:
                continue
            keeper[i] = i
            for j in ranked:
                if keeper[j] < 0 and not pinned[j] and bin(fps[i] ^ fps[j]).count("1") <= k:
                    keeper[j] = i
    return keeper


@settings(max_examples=examples(300), deadline=None)
@given(corpora())
def test_keepers_match_a_python_greedy_and_stay_within_k(case):
    paths, mt, sz, fam, rules, fps, k, pinned = case
    table = DocumentTable.from_documents(paths, mt, sz, reference_folders=["ref"])
    protected = [p.startswith("ref/") and f >= 0 for p, f in zip(paths, fam, strict=True)]
    if any(protected) and "preferred" not in rules:
        rules = ["preferred", *rules]
    want = ref_keepers(paths, mt, sz, fam, rules, fps, k,
                       [a or b for a, b in zip(pinned, protected, strict=True)])
    got = preview(np.array(fam), table, rules, np.array(fps, dtype=np.uint64), k,
                  np.array(pinned))
    assert got.keeper.tolist() == want
    for i in range(len(paths)):
        if fam[i] < 0:
            assert got.keeper[i] == -1 and not got.marked[i]
            continue
        keep = int(got.keeper[i])
        bits = bin(fps[i] ^ fps[keep]).count("1")
        assert fam[keep] == fam[i] and got.distance[i] == bits <= k  # the promise
        assert bool(got.marked[i]) == (keep != i)
        assert not (got.marked[i] and (pinned[i] or protected[i]))
    for f in set(fam) - {-1}:  # the first member by the rules is kept
        members = [i for i in range(len(paths)) if fam[i] == f]
        assert any(not got.marked[i] for i in members)


def test_named_rules_on_a_small_family():
    ids = ["b/long/name.txt", "a.txt", "c.txt"]
    table = DocumentTable.from_documents(ids, [30, 10, 20], [5, 9, 1])
    fam = np.array([0, 0, 0])
    fps = np.zeros(3, np.uint64)  # identical: one keeper takes the others

    def kept(rule: str) -> str:
        groups = keepers(fam, fps, table, [rule], 3)
        assert int(groups.kept.sum()) == 1
        return ids[int(np.flatnonzero(groups.kept)[0])]

    assert kept("newest") == "b/long/name.txt"
    assert kept("oldest") == "a.txt"
    assert kept("largest") == "a.txt"
    assert kept("smallest") == "c.txt"
    assert kept("shortest-path") == "a.txt"
    assert kept("first-name") == "a.txt"
    try:
        kept("biggest")
    except ValueError as exc:
        assert "biggest" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("unknown rule accepted")


def test_a_chain_family_wider_than_k_splits_into_tight_groups():
    """A -2- B -2- C -2- D at k=3 is one chain family 6 bits wide: keeping the newest (A)
    takes B only; C is kept next and takes D. Nothing is marked a copy of a far keeper."""
    ids = ["a", "b", "c", "d"]
    fps = np.array([0b0, 0b11, 0b1111, 0b111111], np.uint64)
    table = DocumentTable.from_documents(ids, [40, 30, 20, 10], [1, 1, 1, 1])
    got = preview(np.zeros(4, np.int64), table, ["newest"], fps, 3)
    assert [ids[x] for x in got.keeper.tolist()] == ["a", "a", "c", "c"]
    assert got.distance.tolist() == [0, 2, 0, 2]
    assert got.marked.tolist() == [False, True, False, True]
    assert got.split.tolist() == [0]
    one = preview(np.zeros(4, np.int64), table, ["newest"], fps, 6)  # k=6: one group
    assert one.marked.tolist() == [False, True, True, True] and one.split.tolist() == []


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
def ignore_aware_cases(draw):
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
@given(ignore_aware_cases())
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
