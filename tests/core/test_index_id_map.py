"""The packed id map against a dict, through random inserts, removals and rebuilds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.index.id_map import IdMap
from tests.properties import examples

# few distinct ids, so operations hit present and absent ids alike
ids = st.sampled_from([f"d{i}" for i in range(40)] + ["", "é", "a/b/c.txt"])
ops = st.lists(st.tuples(st.booleans(), ids), max_size=200)


class Colliding(str):
    """An id whose hash is one constant: every lookup walks one long run."""

    def __hash__(self) -> int:
        return 12345


def apply(ops: list[tuple[bool, str]], m: IdMap, ref: dict[str, int], free: list[int]) -> None:
    for add, id in ops:
        if add:
            if id in ref:
                continue
            slot = free.pop() if free else len(m.names)
            if slot == len(m.names):
                m.names.append(None)
            m.names[slot] = id
            m.insert(id, slot)
            ref[id] = slot
        else:
            got = m.discard(id)
            assert got == ref.pop(id, None)
            if got is not None:
                m.names[got] = None
                free.append(got)
        check(m, ref)


def check(m: IdMap, ref: dict[str, int]) -> None:
    assert len(m) == len(ref)
    wrap = type(next(iter(ref), ""))
    for plain in [f"d{i}" for i in range(40)] + ["", "é", "a/b/c.txt", "absent"]:
        id = wrap(plain)
        assert m.get(id) == ref.get(id)
        assert (id in m) == (id in ref)


@settings(max_examples=examples(80), deadline=None)
@given(st.lists(ids, unique=True, max_size=30), ops)
def test_id_map_follows_a_dict(start: list[str], ops: list[tuple[bool, str]]) -> None:
    m = IdMap.build(list(start))
    assert m is not None
    ref = {id: i for i, id in enumerate(start)}
    check(m, ref)
    apply(ops, m, ref, [])


@settings(max_examples=examples(40), deadline=None)
@given(ops)
def test_id_map_with_colliding_hashes(ops: list[tuple[bool, str]]) -> None:
    m = IdMap()
    apply([(add, Colliding(id)) for add, id in ops], m, {}, [])


def test_build_refuses_repeated_ids() -> None:
    assert IdMap.build(["a", "b", "a"]) is None
    assert IdMap.build([Colliding("a"), Colliding("b")]) is not None
    assert IdMap.build([Colliding("a"), Colliding("b"), Colliding("a")]) is None


def test_growth_keeps_every_id() -> None:
    m = IdMap()
    for i in range(5000):
        m.names.append(f"x{i}")
        m.insert(f"x{i}", i)
    assert all(m.get(f"x{i}") == i for i in range(5000))
    assert m.get("x5000") is None
