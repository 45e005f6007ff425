"""The documents of one fingerprint (a cycle per distinct slot) through adds, changes and
removals, against a dict: many identical documents, walked or searched for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.index import near_index
from ditto_tui.core.index.near_index import NearIndex
from tests.properties import examples

IDS = [f"d{i:02d}" for i in range(80)]
FPS = [0, 1, 0xFFFF_0000_0000_0000]  # two near each other, one far


@pytest.mark.parametrize("walk", [1, 32])
@settings(max_examples=examples(60), deadline=None)
@given(first=st.lists(st.tuples(st.sampled_from(IDS), st.sampled_from(FPS)), max_size=80),
       ops=st.lists(st.tuples(st.booleans(), st.sampled_from(IDS), st.sampled_from(FPS)),
                    max_size=120))
def test_documents_of_a_fingerprint_follow_a_dict(
    first: list[tuple[str, int]], ops: list[tuple[bool, str, int]], walk: int
) -> None:
    saved = near_index._WALK
    near_index._WALK = walk  # 1: the search for a predecessor runs nearly every time
    try:
        ix = NearIndex(2)
        ix._compact_min = 10_000
        ix.add_many([i for i, _ in first], [fp for _, fp in first])
        docs = dict(first)
        for add, id, fp in ops:
            if add:
                ix.add(id, fp)
                docs[id] = fp
            else:
                assert ix.remove(id) == (docs.pop(id, None) is not None)
            for value in FPS:
                got = sorted(m.id for m in ix.near(value, 0))
                assert got == sorted(i for i, v in docs.items() if v == value)
        assert len(ix) == len(docs) and ix.ids() == sorted(docs)
        assert sorted(sorted(f.members) for f in ix.families(1)) == sorted(
            sorted(i for i, v in docs.items() if v in group)
            for group in ({0, 1}, {FPS[2]})
            if any(v in group for v in docs.values())
        )
    finally:
        near_index._WALK = saved
