"""Star centres against an obviously-correct greedy over Python sets."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.families.star import star_centres
from tests.properties import examples

pytestmark = pytest.mark.property


def ref_star_centres(n: int, count: list[int], pairs: list[tuple[int, int]], names: list[str]) -> list[int]:
    """Slots by decreasing degree (documents within k), ties by name; each unassigned one
    becomes a centre and takes its unassigned neighbours."""
    neighbours: list[set[int]] = [set() for _ in range(n)]
    for x, y in pairs:
        neighbours[x].add(y)
        neighbours[y].add(x)
    degree = [count[s] - 1 + sum(count[v] for v in neighbours[s]) for s in range(n)]
    assigned = list(range(n))
    taken = [False] * n
    for s in sorted((s for s in range(n) if neighbours[s]), key=lambda s: (-degree[s], names[s])):
        if taken[s]:
            continue
        taken[s] = True
        for v in sorted(neighbours[s]):
            if not taken[v]:
                taken[v] = True
                assigned[v] = s
    return assigned


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, list[int], list[tuple[int, int]], list[str]]:
    n = draw(st.integers(1, 30))
    count = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    edges = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=80))
    pairs = sorted({(min(x, y), max(x, y)) for x, y in edges if x != y})
    names = draw(st.lists(st.text("abc", min_size=1, max_size=3), min_size=n, max_size=n,
                          unique=True))
    return n, count, pairs, names


@settings(max_examples=examples(300), deadline=None)
@given(graph=graphs())
def test_star_centres_equal_the_greedy(graph) -> None:
    n, count, pairs, names = graph
    a = np.array([x for x, _ in pairs], np.int32)
    b = np.array([y for _, y in pairs], np.int32)
    got = star_centres(n, np.array(count), a, b, names.__getitem__)
    assert got.tolist() == ref_star_centres(n, count, pairs, names)
