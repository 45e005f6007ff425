"""The keep rules' promise, end to end: a document is only ever marked a duplicate of a
keeper within k of it, and only ever acted on with such a keeper, in chain and in star
grouping, from ``ditto-tui dedupe``'s selection and from the explorer's keep rules (``R``)
and actions (``A``), for random corpora, k and rule chains.

Corpora are drifts: documents a few bits from a random walk of fingerprints, so chain
families are often far wider than k (the licence texts' 31 bits at k=3 in miniature).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.index.near_index import NearIndex
from ditto_tui.core.review.keep import RULES
from ditto_tui.corpus.dedupe import select
from ditto_tui.corpus.documents import Document
from ditto_tui.explore.review import ReviewState, action_targets, preview_marks
from tests.properties import examples


def bits(a: int, b: int) -> int:
    return (a ^ b).bit_count()


@st.composite
def drifts(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    n = draw(st.integers(2, 40))
    fps: list[int] = []
    walk = rng.getrandbits(64)
    for _ in range(n):
        if rng.random() < 0.3:
            walk = rng.getrandbits(64)  # a new family, far away
        for _ in range(rng.randint(0, 3)):  # a step of a few bits
            walk ^= 1 << rng.randrange(64)
        doc = walk
        for _ in range(rng.randint(0, 2)):
            doc ^= 1 << rng.randrange(64)
        fps.append(doc)
    ids = [f"d/{i:03d}.txt" for i in range(n)]
    documents = {i: Document(i, "/corpus/" + i, "text", rng.randint(1, 9), rng.randint(0, 5), j)
                 for j, i in enumerate(ids)}
    rules = draw(st.lists(st.sampled_from([r for r in RULES if r != "preferred"]), min_size=1,
                          max_size=3))
    k = draw(st.integers(0, 8))
    mode = draw(st.sampled_from(["chain", "star"]))
    decided = {i: draw(st.sampled_from(["keep", "not-duplicate"]))
               for i in ids if rng.random() < 0.1}
    return documents, dict(zip(ids, fps, strict=True)), rules, k, mode, decided


@settings(max_examples=examples(200), deadline=None)
@given(drifts())
def test_dedupe_marks_nothing_farther_than_k_from_its_keeper(case):
    documents, fps, rules, k, mode, _decided = case
    selection = select(documents, fps, k, rules, mode=mode)
    ids = selection.ids
    for target in selection.targets(documents):
        assert target.reference is not None and target.distance is not None
        assert target.distance == bits(fps[target.id], fps[target.reference]) <= k
    for x in range(len(ids)):
        keeper = int(selection.keeper[x])
        if selection.marked[x]:
            assert not selection.marked[keeper]  # a keeper is never acted on
            assert selection.labels[keeper] == selection.labels[x]
    # every family keeps at least one copy
    for family in set(selection.labels.tolist()) - {-1}:
        members = [x for x in range(len(ids)) if selection.labels[x] == family]
        assert any(not selection.marked[x] for x in members)


@settings(max_examples=examples(200), deadline=None)
@given(drifts(), st.sampled_from(["rule", "invert"]))
def test_the_explorers_rules_and_actions_never_pair_beyond_k(case, bulk):
    documents, fps, rules, k, mode, decided = case
    index = NearIndex(8)
    for doc_id, fp in fps.items():
        index.add(doc_id, fp)
    families = [f for f in index.families(k, mode=mode) if f.size > 1]
    state = ReviewState(active=True, decisions=decided)
    if bulk == "invert":  # a hand-made mark in each family first, then everything swapped
        state = ReviewState(active=True, decisions={
            **decided, **{f.members[-1]: "duplicate" for f in families
                          if f.members[-1] not in decided}})
    got = preview_marks([f.members for f in families], documents, state, fps, k, mode=bulk,
                        rules=rules, grouping=mode)
    for doc_id, mark, _family, keeper, distance in got.rows:
        if mark == "duplicate":
            assert got.marks[keeper] != "duplicate"
            assert distance == bits(fps[doc_id], fps[keeper]) <= k
            assert decided.get(doc_id) not in ("keep", "not-duplicate")
    recorded = ReviewState(active=True, decisions={**decided, **got.marks})
    targets, far, _stale, _wide = action_targets(families, documents, recorded, fps, k, mode)
    for document, keeper, distance in targets:
        assert recorded.decisions[keeper] != "duplicate"
        assert distance == bits(fps[document.id], fps[keeper]) <= k
    assert {d.id for d, _, _ in targets}.isdisjoint(far)
