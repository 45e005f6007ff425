"""Family statistics computed a bounded block at a time (medoid and diameter of many
small families, the bitwise majority of a large one), against the plain definitions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.families import stats
from tests.properties import examples

pytestmark = pytest.mark.property


def reference(fps: list[int], start: int, size: int) -> tuple[int, int]:
    group = fps[start : start + size]
    sums = [sum((a ^ b).bit_count() for b in group) for a in group]
    centre = min(range(size), key=lambda i: (sums[i], i))
    return centre, max((a ^ b).bit_count() for a in group for b in group)


#: group sizes, and member pairs a pass (down to one group a pass; the default)
GROUP_SIZES = st.lists(st.integers(1, 9), min_size=1, max_size=40)
PASS_SIZES = st.sampled_from([1, 3, 10, 50, stats.PAIRS_AT_ONCE])


@settings(max_examples=examples(200), deadline=None)
@given(sizes=GROUP_SIZES, at_once=PASS_SIZES, data=st.data())
def test_group_stats_equal_the_definition_whatever_the_pass_size(
    sizes: list[int], at_once: int, data: st.DataObject
) -> None:
    fps = data.draw(st.lists(st.sampled_from([0, 1, 3, 7, 255, 2**64 - 1, 2**63, 12345]),
                             min_size=sum(sizes), max_size=sum(sizes)))
    small = np.array(data.draw(st.lists(st.booleans(), min_size=len(sizes), max_size=len(sizes))))
    starts = np.cumsum([0, *sizes[:-1]]).astype(np.int64)
    lens = np.array(sizes, np.int64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stats, "PAIRS_AT_ONCE", at_once)
        centre, diameter = stats.group_stats(np.array(fps, np.uint64), starts, lens, small)
    for g, (start, size) in enumerate(zip(starts.tolist(), sizes, strict=True)):
        expected = reference(fps, start, size) if small[g] else (0, 0)
        assert (int(centre[g]), int(diameter[g])) == expected


@settings(max_examples=examples(200), deadline=None)
@given(sizes=GROUP_SIZES, at_once=PASS_SIZES, data=st.data())
def test_run_diameters_equal_the_definition_whatever_the_pass_size(
    sizes: list[int], at_once: int, data: st.DataObject
) -> None:
    fps = data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=sum(sizes), max_size=sum(sizes)))
    starts = np.cumsum([0, *sizes[:-1]]).astype(np.int64)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stats, "PAIRS_AT_ONCE", at_once)
        got = stats.run_diameters(np.array(fps, np.uint64), starts, np.array(sizes, np.int64))
    for g, (start, size) in enumerate(zip(starts.tolist(), sizes, strict=True)):
        assert int(got[g]) == reference(fps, start, size)[1]


@settings(max_examples=examples(150), deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 2**64 - 1), st.integers(1, 5)), min_size=1, max_size=60),
    block=st.sampled_from([1, 7, 1 << 14]),
)
def test_the_majority_fingerprint_is_the_bitwise_majority_whatever_the_block(
    pairs: list[tuple[int, int]], block: int
) -> None:
    from ditto_tui.core.families import clusters

    fps = [f for f, _ in pairs]
    weights = [w for _, w in pairs]
    total = sum(weights)
    expected = sum(
        1 << bit for bit in range(64)
        if 2 * sum(w for f, w in pairs if f >> bit & 1) > total
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(clusters, "_MAJORITY_BLOCK", block)
        got = clusters.majority_fingerprint(np.array(fps, np.uint64), np.array(weights))
    assert int(got) == expected
