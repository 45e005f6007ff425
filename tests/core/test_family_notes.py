"""Trivial families say what they are; wide chain families suggest star grouping."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ditto_tui.core.families.clusters import Family, clusters, describe_family
from ditto_tui.core.families.notes import EMPTY, IDENTICAL, chain_too_wide, family_note


def family_of(fps: dict[str, int]) -> Family:
    members = sorted(fps)
    centre, diameter, exact = describe_family(members, [fps[m] for m in members])
    return Family(tuple(members), centre, diameter, exact)


def test_empty_files() -> None:
    fam = family_of({"a": 7, "b": 7, "c": 7})
    assert family_note(fam, k=3, mode="chain", sizes=[0, 0, 0]) == EMPTY
    assert family_note(fam, k=3, mode="chain", sizes=[0, 5, 0]) == IDENTICAL
    assert family_note(fam, k=3, mode="star") == IDENTICAL  # sizes unknown: not "empty"
    with pytest.raises(ValueError):
        family_note(fam, k=3, mode="chain", sizes=[0, 0])


def test_singletons_and_ordinary_families_have_no_note() -> None:
    assert family_note(family_of({"a": 0}), k=3, mode="chain", sizes=[0]) is None
    assert family_note(family_of({"a": 0, "b": 0b111}), k=3, mode="chain") is None


def test_a_drifting_chain_gets_the_star_hint_and_star_grouping_does_not() -> None:
    # a_i differs from a_(i+1) in one bit; the ends are 12 bits apart
    fps = {f"d{i:02d}": (1 << i) - 1 for i in range(13)}
    (group,) = clusters(list(fps), list(fps.values()), k=1)
    fam = family_of({m: fps[m] for m in group})
    assert fam.diameter == 12
    assert family_note(fam, k=1, mode="chain") == "diameter 12 ≫ k=1: try star grouping"
    assert family_note(fam, k=1, mode="star") is None
    assert family_note(fam, k=8, mode="chain") is None  # 12 <= 2k


def test_the_threshold() -> None:
    assert not chain_too_wide(3, 1)  # > 2k but not > k + 4: tiny k
    assert chain_too_wide(6, 1)
    assert not chain_too_wide(14, 10)  # > k + 4 but not > 2k: large k
    assert chain_too_wide(21, 10)
    assert not chain_too_wide(0, 0) and chain_too_wide(5, 0)


def test_an_upper_bound_diameter_never_raises_the_hint() -> None:
    fam = Family(("a", "b", "c"), "b", 40, diameter_exact=False)
    assert family_note(fam, k=2, mode="chain") is None


@given(
    st.lists(st.integers(0, 2**16 - 1), min_size=2, max_size=30),
    st.integers(0, 6),
    st.lists(st.booleans(), min_size=30, max_size=30),
)
def test_notes_agree_with_brute_force(values: list[int], k: int, empty: list[bool]) -> None:
    fps = {f"m{i:02d}": v for i, v in enumerate(values)}
    for group in clusters(list(fps), list(fps.values()), k=k, min_size=2):
        fam = family_of({m: fps[m] for m in group})
        sizes = [0 if empty[int(m[1:])] else 10 for m in fam.members]
        note = family_note(fam, k=k, mode="chain", sizes=sizes)
        dists = [bin(fps[a] ^ fps[b]).count("1") for a in group for b in group]
        if all(s == 0 for s in sizes):
            assert note == EMPTY
        elif max(dists) == 0:
            assert note == IDENTICAL
        elif max(dists) > 2 * k and max(dists) > k + 4:
            assert note == f"diameter {max(dists)} ≫ k={k}: try star grouping"
        else:
            assert note is None
