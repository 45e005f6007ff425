"""A packed probe table (directory + low bits) through builds and insertions: its
candidates are exactly the entries whose block lies within the radius of the query's."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.index import probe
from ditto_tui.core.index.probe import ProbeTable
from tests.properties import examples

from .index_reference import dist


@settings(max_examples=examples(100), deadline=None)
@given(
    layout=st.sampled_from([(0, 8, 1), (5, 13, 2), (40, 21, 2), (0, 64, 0), (60, 4, 1)]),
    first=st.lists(st.integers(0, 2**64 - 1), max_size=60),
    batches=st.lists(st.lists(st.integers(0, 2**64 - 1), max_size=40), max_size=6),
    queries=st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=4),
    bucket=st.sampled_from([1, 8]),
)
def test_candidates_are_the_entries_within_the_radius(
    layout: tuple[int, int, int], first: list[int], batches: list[list[int]],
    queries: list[int], bucket: int,
) -> None:
    saved = probe._BUCKET, probe._BUCKET_MAX
    probe._BUCKET, probe._BUCKET_MAX = bucket, 2 * bucket  # directories sized again often
    try:
        off, width, radius = layout
        t = ProbeTable(off, width, radius)
        fps = list(first)
        t.build(np.array(fps, np.uint64), np.arange(len(fps), dtype=np.uint32))
        for batch in batches:
            slots = np.arange(len(fps), len(fps) + len(batch), dtype=np.uint32)
            fps += batch
            if batch:
                t.insert(np.array(batch, np.uint64), slots)
        mask = (1 << width) - 1
        assert t.nbytes > 0 and len(t.slots) == len(fps)
        for q in queries + fps[:2]:
            got = sorted(t.candidates(np.array([q], np.uint64)).tolist())
            want = [i for i, fp in enumerate(fps)
                    if dist((fp >> off) & mask, (q >> off) & mask) <= radius]
            assert got == want
    finally:
        probe._BUCKET, probe._BUCKET_MAX = saved
