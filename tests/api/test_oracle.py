"""The Oracle against a brute-force reading of html-distance's BK-tree semantics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ditto_tui as dt
from tests.core.index_reference import fingerprint_sets
from tests.properties import examples


def go_seen(seen: list[int], f: int, r: int, sentinel: bool) -> bool:
    """Go's Oracle: a BK-tree rooted at 0 whose Seen is "some node at distance < r"."""
    nodes = ([0] if sentinel else []) + seen
    return any(bin(n ^ f).count("1") < r for n in nodes)


@settings(max_examples=examples(80), deadline=None)
@given(
    fingerprint_sets(max_size=40),
    st.lists(st.integers(0, 2**64 - 1), max_size=5),
    st.integers(0, 8),
    st.booleans(),
)
def test_seen_equals_brute_force(fps: list[int], extra: list[int], k: int, sentinel: bool) -> None:
    o = dt.Oracle(k, go_sentinel=sentinel)
    half = fps[: len(fps) // 2]
    for f in half[::2]:
        assert o.see(f) is o
    assert o.see_many(np.array(half[1::2], dtype=np.uint64)) is o
    assert len(o) == len(set(half))
    for q in fps + extra + [0]:
        for r in (-1, 0, 1, 2, k, k + 1, k + 2, 20, 65, 255):
            assert o.seen(q, r) == go_seen(half, q, r, sentinel), (q, r)
            assert o.seen_within(q, r) == go_seen(half, q, r + 1, sentinel)


def test_semantics_spelled_out() -> None:
    o = dt.Oracle()
    assert not o.seen(0, 5)  # Go would say True here: its tree holds 0
    assert dt.Oracle(go_sentinel=True).seen(0, 5)
    o.see(0b111)
    assert not o.seen(0b111, 0)  # strict: distance < 0 never holds
    assert o.seen(0b111, 1)  # exactly this one
    assert not o.seen(0b110, 1) and o.seen(0b110, 2)
    assert o.seen_within(0b110, 1) and not o.seen_within(0b110, 0)
    with pytest.raises(ValueError):
        o.see(-1)


def test_see_many_equals_see_and_validates_first() -> None:
    values = [5, 7, 5, 2**64 - 1, 0]
    one, many = dt.Oracle(3), dt.Oracle(3)
    for v in values:
        one.see(v)
    many.see_many(values).see_many(values[:2])
    assert len(one) == len(many) == 4
    for q in range(0, 64):
        assert one.seen(q, 3) == many.seen(q, 3)
    with pytest.raises(ValueError):
        many.see_many([1, -1])
    assert len(many) == 4
    big = dt.Oracle(2).see_many(np.arange(5000, dtype=np.uint64) * 7919)
    assert len(big) == 5000 and big.seen(7919 * 4999, 1) and not big.seen(2**64 - 1, 3)


def test_fingerprints_are_checked_as_everywhere() -> None:
    o = dt.Oracle(3)
    o.see("00000000000000ff").see(dt.Fingerprint(0xF0)).see_many(["0000000000000001", np.uint64(2)])
    assert len(o) == 4
    assert o.seen("00000000000000FF", 1) and o.seen_within(0xFE, 1) and o.seen(np.int64(3), 2)
    for bad, error in ((-1, ValueError), (2**64, ValueError), ("ff", ValueError),
                       (2.0, TypeError), (True, TypeError), (None, TypeError)):
        with pytest.raises(error):
            o.see(bad)
        with pytest.raises(error):
            o.seen(bad, 3)
        with pytest.raises(error):
            o.seen_within(bad, 3)
        with pytest.raises(error):
            o.see_many([5, bad])
    with pytest.raises(ValueError, match="from_hex"):
        o.seen("0xff", 2)
    assert len(o) == 4  # see_many checks everything first
    for bad_r in (1.5, "2", True):
        with pytest.raises(TypeError, match="must be an int"):
            o.seen(1, bad_r)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="must be an int"):
            o.seen_within(1, bad_r)  # type: ignore[arg-type]
    assert o.seen(2**64 - 1, 10**30) and not o.seen(2**64 - 1, -(10**30))
    with pytest.raises(TypeError, match="k must be an int"):
        dt.Oracle(2.0)  # type: ignore[arg-type]
