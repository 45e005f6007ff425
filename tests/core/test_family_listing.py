"""Family listings: compact singletons, listings patched after small changes, the
substring filter; each against a slow reference."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.families.clusters import Family
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.index.near_index import NearIndex
from ditto_tui.core.text.id_filter import id_matcher
from ditto_tui.explore.view import filter_families
from tests.core.index_reference import (
    fingerprint_sets,
    pick,
    ref_clusters,
    ref_diameter,
    ref_medoid,
)
from tests.properties import examples

IDS = [f"d{i}" for i in range(30)] + ["", "é", "Ω", "a/b", "Z", "ß", "SS"]


def ref_listing(docs: dict[str, int], k: int) -> list[Family]:
    """Every chain family at ``k`` by brute force, in ditto's order (singletons last)."""
    ids = list(docs)
    groups = ref_clusters(ids, [docs[i] for i in ids], k, 1)
    out = [
        Family(tuple(g), ref_medoid(g, docs), ref_diameter(g, docs)) for g in groups
    ]
    return out


_KINDS = st.sampled_from(["add", "add", "remove"])
_FLIPS = st.lists(st.integers(0, 63), max_size=2)
_IDS = st.sampled_from(IDS)


@st.composite
def batches(draw: st.DrawFn) -> list[list[tuple[str, str, int]]]:
    """Batches of add/change/remove operations over a small id and fingerprint pool."""
    pool = draw(fingerprint_sets(max_size=20)) or [0]
    out = []
    for _ in range(draw(st.integers(1, 12))):
        batch = []
        for _ in range(draw(st.integers(1, 6))):
            kind = draw(_KINDS)
            fp = pick(draw, pool)
            for bit in draw(_FLIPS):
                fp ^= 1 << bit
            batch.append((kind, draw(_IDS), fp))
        out.append(batch)
    return out


@settings(max_examples=examples(100), deadline=None)
@given(
    start=st.dictionaries(st.sampled_from(IDS), st.integers(0, 2**64 - 1), max_size=25),
    steps=batches(),
    max_k=st.sampled_from([2, 4, 8]),
    data=st.data(),
)
def test_patched_listings_equal_brute_force(start, steps, max_k, data) -> None:
    ix = NearIndex(max_k)
    ix._scan_below = 0
    ix._pending_limit = 3
    ix._compact_min = 2
    docs = dict(start)
    ids = list(docs)
    if ids:
        ix.add_many(ids, [docs[i] for i in ids])
    ks = sorted(set(data.draw(st.lists(st.integers(0, max_k), min_size=1, max_size=3))))
    for k in ks:
        ix.family_listing(k)  # the listings the next ones are patched from
    full = ix._compute_families
    computed = []

    def counting(k, mode, min_size, lower=None):  # type: ignore[no-untyped-def]
        computed.append(k)
        return full(k, mode, min_size, lower)

    ix._compute_families = counting  # type: ignore[method-assign]
    for batch in steps:
        for kind, id_, fp in batch:
            if kind == "add":
                ix.add(id_, fp)
                docs[id_] = fp
            else:
                ix.remove(id_)
                docs.pop(id_, None)
        for k in ks:
            got = ix.family_listing(k)
            want = ref_listing(docs, k)
            assert list(got) == want
            assert [f.diameter for f in got] == [f.diameter for f in want]
            assert got.multi_count == sum(1 for f in want if f.size > 1)
    assert computed == []  # every listing after the first was patched


def test_a_listing_is_patched_not_recomputed_and_shares_unchanged_families() -> None:
    ix = NearIndex(4)
    ix.add_many([f"d{i:03d}" for i in range(200)], [i << 20 for i in range(200)])
    for i in range(0, 200, 2):
        ix.add(f"e{i:03d}", (i << 20) | 1)  # a twin within 1 bit of every second doc
    before = ix.family_listing(2)
    ix.add("d002", (2 << 20) | 0b11)  # one document changes
    after = ix.family_listing(2)
    assert after == ref_listing({i: ix.fingerprint(i) for i in ix.ids()}, 2)
    kept = {id(f) for f in before.multi} & {id(f) for f in after.multi}
    assert len(kept) == len(before.multi) - 1  # only d002's family is new


@settings(max_examples=examples(100), deadline=None)
@given(
    docs=st.dictionaries(st.sampled_from(IDS), st.integers(0, 2**64 - 1), max_size=30),
    max_k=st.sampled_from([2, 4, 8]),
    data=st.data(),
)
def test_listings_of_every_k_in_any_order_equal_brute_force_and_share_families(
    docs, max_k, data
) -> None:
    """Chain listings reuse the families of a listing at a smaller k (same members: the
    same object); whatever the order the k are asked in, each equals brute force."""
    pool = sorted(set(docs.values())) or [0]
    near = {f"n{i}": pool[i % len(pool)] ^ (1 << (i % 64)) ^ (1 << ((3 * i) % 64)) for i in range(8)}
    docs = {**docs, **near}  # some families within a few bits
    ix = NearIndex(max_k)
    ids = list(docs)
    ix.add_many(ids, [docs[i] for i in ids])
    order = data.draw(st.permutations(list(range(max_k + 1))))
    got = {k: ix.family_listing(k) for k in order}
    for k in order:
        want = ref_listing(docs, k)
        assert list(got[k]) == want
        assert [f.diameter for f in got[k]] == [f.diameter for f in want]
    for i, k in enumerate(order):
        below = [kk for kk in order[:i] if kk < k]
        if not below:
            continue
        lower = {f.members: f for f in got[max(below)].multi}
        for f in got[k].multi:
            if f.members in lower:
                assert f is lower[f.members]


def test_listing_holds_singletons_as_ids() -> None:
    listing = FamilyListing([Family(("a", "b"), "a", 1)], ["c", "d"])
    assert len(listing) == 3
    assert listing[2] == Family(("d",), "d", 0)
    assert listing[-1] == Family(("d",), "d", 0)
    assert list(listing[:1]) == [Family(("a", "b"), "a", 1)]
    assert list(listing[1:]) == [Family(("c",), "c", 0), Family(("d",), "d", 0)]
    assert listing == [Family(("a", "b"), "a", 1), Family(("c",), "c", 0), Family(("d",), "d", 0)]
    assert listing.multi_count == 1


@settings(max_examples=examples(100), deadline=None)
@given(
    docs=st.dictionaries(
        st.text(alphabet="abAB/ßsxé\udcff\n.", min_size=1, max_size=6),
        st.integers(0, 255),
        max_size=30,
    ),
    k=st.integers(0, 4),
    pattern=st.text(alphabet="abAB/ßsSxé\udcff.", min_size=1, max_size=3),
    singletons=st.booleans(),
)
def test_substring_filter_equals_the_rule(docs, k, pattern, singletons) -> None:
    ix = NearIndex(4)
    for i, fp in docs.items():
        ix.add(i, fp)
    listing = ix.family_listing(k)
    match = id_matcher(pattern)
    pool = list(listing) if singletons else list(listing)[: listing.multi_count]
    want = [f for f in pool if any(match(m) for m in f.members)]
    assert filter_families(listing, pattern, singletons=singletons) == want


def test_broad_and_selective_filters_agree_with_the_rule() -> None:
    listings = []
    for odd in ("odd/\udcff\u00e9", "odd/\udcff\u00e9\0"):  # an undecodable byte; the
        ix = NearIndex(2)  # separator itself (then ids are searched one by one)
        for i in range(600):  # pairs within 1 bit, and singletons
            ix.add(f"Doc/{i:04d}.TXT", (i // 2) << 8 | (i % 2))
            ix.add(f"solo/ß{i:04d}", (1 << 40) + (i << 20))
        ix.add(odd + "x", 1 << 63)
        ix.add(odd + "y", 1 << 63 | 1)
        listings += [ix.family_listing(1), ix.family_listing(0)]
    for listing in listings:
        for pattern in ["d", "doc/00", "0599", "ss", "SS0", "t", "zz", "\udcff", "é\0", "\0"]:
            for singletons in (True, False):
                match = id_matcher(pattern)
                pool = list(listing) if singletons else list(listing)[: listing.multi_count]
                want = [f for f in pool if any(match(m) for m in f.members)]
                assert filter_families(listing, pattern, singletons=singletons) == want
