"""Find in display lines: every match, in order, equal to a slow obvious search."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from ditto_tui.core.text.diff import diff_lines
from ditto_tui.core.text.find import find_in_lines, find_in_sides, parse_line_number

ALPHABET = "abAB [/]\\x1é"


def reference(lines: list[str], query: str) -> list[tuple[int, int, int]]:
    """Non-overlapping matches, left to right, line by line (smart case)."""
    fold = not any(ch.isupper() for ch in query)
    out = []
    for number, line in enumerate(lines):
        hay, needle = (line.lower(), query.lower()) if fold else (line, query)
        start = 0
        while query:
            at = hay.find(needle, start)
            if at < 0:
                break
            out.append((number, at, at + len(query)))
            start = at + len(query)
    return out


@given(
    st.lists(st.text(alphabet=ALPHABET, max_size=30), max_size=12),
    st.text(alphabet=ALPHABET, min_size=1, max_size=3),
)
def test_every_match_equals_a_line_by_line_search(lines, query):
    found = find_in_lines(lines, query)
    got = list(zip(found.line.tolist(), found.start.tolist(), found.stop.tolist(), strict=True))
    assert got == reference(lines, query)
    for line in set(found.line.tolist()):
        assert [int(found.start[i]) for i in found.on_line(line)] == [
            s for n, s, _ in reference(lines, query) if n == line
        ]


def test_smart_case_and_literal_text():
    lines = ["Title: [bold]x[/bold]", "TITLE title", "a.b a*b"]
    assert len(find_in_lines(lines, "title")) == 3
    assert len(find_in_lines(lines, "Title")) == 1
    assert find_in_lines(lines, "[bold]").line.tolist() == [0]
    assert find_in_lines(lines, "a*b").start.tolist() == [4]  # not a pattern
    assert len(find_in_lines(lines, "")) == 0
    assert len(find_in_lines([], "a")) == 0


def test_a_large_document_is_searched_whole():
    lines = [f"line {i} of the manual, see section {i % 97}" for i in range(60_000)]
    found = find_in_lines(lines, "section 5")
    assert len(found) == sum(1 for i in range(60_000) if str(i % 97).startswith("5"))
    assert np.all(np.diff(found.line) >= 0)


@given(
    st.lists(st.sampled_from(["alpha", "beta", "gamma beta", "delta"]), max_size=10),
    st.lists(st.sampled_from(["alpha", "beta", "gamma beta", "epsilon"]), max_size=10),
)
def test_matches_in_both_sides_are_visited_row_by_row(a, b):
    diff = diff_lines(a, b)
    left, right = diff.line_rows()
    found = find_in_sides([a, b], "beta", [left, right])
    expected = sorted(
        [(int(left[n]), 0, s) for n, s, _ in reference(a, "beta")]
        + [(int(right[n]), 1, s) for n, s, _ in reference(b, "beta")]
    )
    got = [
        (int(found.row[i]), int(found.side[i]), int(found.sides[found.side[i]].start[found.index[i]]))
        for i in range(len(found))
    ]
    assert got == expected
    assert list(found.row) == sorted(found.row)


def test_line_numbers_as_typed():
    assert parse_line_number("1", 10) == 0
    assert parse_line_number(" 1,200 ", 5000) == 1199
    assert parse_line_number("99", 10) == 9
    assert parse_line_number("0", 10) == 0
    for bad in ("", "x", "-3", "²", "1.5"):
        assert parse_line_number(bad, 10) is None
    assert parse_line_number("3", 0) is None
