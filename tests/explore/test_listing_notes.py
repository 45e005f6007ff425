"""Family notes computed once per listing (``explore.view.listing_notes``) equal the
one-family rule (``core.families.notes.family_note``) applied to every family."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.families.clusters import Family
from ditto_tui.core.families.listing import FamilyListing
from ditto_tui.core.families.notes import family_note
from ditto_tui.corpus.documents import Document
from ditto_tui.explore import Explorer, MemorySource
from ditto_tui.explore.view import ViewRequest, build_view, listing_notes
from tests.properties import examples


@st.composite
def listings(draw):
    n = draw(st.integers(0, 12))
    families = []
    docs: dict[str, Document] = {}
    serial = 0
    for _ in range(n):
        size = draw(st.integers(2, 5))
        members = tuple(f"f{serial + i:03d}" for i in range(size))
        serial += size
        for m in members:
            docs[m] = Document(m, "/" + m, "text", draw(st.sampled_from([0, 0, 1, 50])), 0, 0)
        families.append(
            Family(members, members[draw(st.integers(0, size - 1))], draw(st.integers(0, 20)),
                   draw(st.booleans()))
        )
    families.sort(key=lambda f: (-f.size, f.members[0]))
    singles = [f"s{i:03d}" for i in range(draw(st.integers(0, 3)))]
    docs.update({s: Document(s, "/" + s, "text", 5, 0, 0) for s in singles})
    return FamilyListing(families, singles), docs


def slow_notes(listing, k, mode, docs):
    out = {}
    for f in listing:
        sizes = [docs[m].size for m in f.members]
        note = family_note(f, k=k, mode=mode, sizes=sizes)
        if note is not None:
            out[f.centre] = note
    return out


@settings(max_examples=examples(200), deadline=None)
@given(listings(), st.integers(0, 8), st.sampled_from(["chain", "star"]))
def test_listing_notes_equal_the_rule_per_family(made, k, mode):
    listing, docs = made
    assert listing_notes(listing, k, mode, docs) == slow_notes(listing, k, mode, docs)
    # cached per (k, mode): another k gets its own notes
    other = (k + 3) % 9
    assert listing_notes(listing, other, mode, docs) == slow_notes(listing, other, mode, docs)


def test_a_view_of_a_listing_carries_its_notes_for_any_filter_and_sort():
    docs = {m: Document(m, "/" + m, "text", 0 if m.startswith("e") else 9, 0, 0)
            for m in ["e1", "e2", "a1", "a2", "b1", "b2", "z"]}
    listing = FamilyListing(
        [Family(("a1", "a2"), "a1", 0), Family(("b1", "b2"), "b1", 12),
         Family(("e1", "e2"), "e1", 0)],
        ["z"],
    )
    for request in (ViewRequest(k=2), ViewRequest(k=2, pattern="b", sort="name")):
        view = build_view(listing, request, docs, generation=1, epoch=0, total=7)
        shown = {f.centre for f in view.families}
        expected = slow_notes(listing, 2, "chain", docs)
        assert {c: n for c, n in view.notes.items() if c in shown} == {
            c: n for c, n in expected.items() if c in shown
        }
        assert view.shown_multi == sum(1 for f in view.families if f.size > 1)


def test_the_writer_computes_a_listings_notes_with_it():
    fps = {"a": 0b0, "b": 0b1, "c": 0b111, "d": 1 << 40}
    explorer = Explorer(MemorySource(fps), max_k=3, watch=False)
    explorer.start()
    try:
        assert explorer.wait_idle()
        listing = explorer.families(1)
        assert isinstance(listing, FamilyListing)
        assert listing._notes is not None and listing._notes[0] == (1, "chain")
    finally:
        explorer.close()



@settings(max_examples=examples(150), deadline=None)
@given(listings(), listings(), st.integers(0, 8), st.sampled_from(["chain", "star"]), st.data())
def test_notes_carried_from_a_previous_listing_equal_the_rule(made, other, k, mode, data):
    """A listing that kept some families of the previous one (a live change) reuses their
    notes and computes the others: the same notes as computing all of them."""
    listing, docs = made
    gone, other_docs = other
    keep = [f for f in listing.multi if data.draw(st.booleans())]
    renamed = [  # families only the previous listing had (other members)
        Family(tuple("g" + m for m in f.members), "g" + f.centre, f.diameter, f.diameter_exact)
        for f in gone.multi
    ]
    previous = FamilyListing(sorted([*keep, *renamed], key=lambda f: (-f.size, f.members[0])))
    both = {**{"g" + m: d for m, d in other_docs.items()}, **docs}
    listing_notes(previous, k, mode, both)
    fresh = FamilyListing(listing.multi, listing.singles)
    assert listing_notes(fresh, k, mode, both, previous) == slow_notes(fresh, k, mode, both)
