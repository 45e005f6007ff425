"""The side-by-side diff model: alignment invariants, counts, hunks and word spans."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.text.diff import diff_lines, diff_texts, word_opcodes, word_spans
from ditto_tui.core.text.display import html_text, visible, visible_lines
from tests.properties import examples


def test_identical_texts_have_no_hunks():
    diff = diff_texts("one\ntwo\n", "one\ntwo\n")
    assert diff.identical
    assert [r.kind for r in diff.rows] == ["equal", "equal"]
    assert (diff.inserted, diff.deleted, diff.changed) == (0, 0, 0)


def test_changed_inserted_and_deleted_rows_are_counted():
    a = ["alpha", "beta", "gamma", "delta"]
    b = ["alpha", "BETA", "gamma", "delta", "epsilon"]
    diff = diff_lines(a, b)
    assert [r.kind for r in diff.rows] == ["equal", "changed", "equal", "equal", "inserted"]
    assert (diff.inserted, diff.deleted, diff.changed) == (1, 0, 1)
    assert len(diff.hunks) == 2
    assert diff.rows[4].left is None and diff.rows[4].right == 4


def test_replace_block_pairs_lines_then_lists_surplus():
    diff = diff_lines(["x", "a1", "a2", "a3", "y"], ["x", "b1", "y"])
    kinds = [r.kind for r in diff.rows]
    assert kinds == ["equal", "changed", "deleted", "deleted", "equal"]
    assert (diff.inserted, diff.deleted, diff.changed) == (0, 2, 1)
    assert diff.hunks[0].start == 1 and diff.hunks[0].stop == 4


def test_next_and_previous_hunk_navigation():
    a = [f"line {i}" for i in range(30)]
    b = list(a)
    b[5] = "changed five"
    b[20] = "changed twenty"
    diff = diff_lines(a, b)
    starts = [h.start for h in diff.hunks]
    assert starts == [5, 20]
    assert diff.next_hunk(-1) == 0
    assert diff.next_hunk(5) == 1
    assert diff.next_hunk(20) is None
    assert diff.previous_hunk(20) == 0
    assert diff.previous_hunk(5) is None


def test_word_spans_mark_only_the_changed_word():
    left, right = word_spans("the quick brown fox", "the quick red fox")
    assert left == [(10, 15)]
    assert right == [(10, 13)]
    assert "the quick brown fox"[10:15] == "brown"


def test_a_huge_line_is_diffed_word_by_word_quickly():
    words = [f"w{i % 1000}" for i in range(30_000)]
    a = " ".join(words)
    b = " ".join(words[:15_000] + ["CHANGED"] + words[15_001:])
    start = time.perf_counter()
    left, right = word_spans(a, b)
    assert time.perf_counter() - start < 2.0
    assert [a[x:y] for x, y in left] == [words[15_000]] and [b[x:y] for x, y in right] == ["CHANGED"]


def test_every_changed_row_has_its_spans_from_the_start():
    diff = diff_lines(["a b", "c"], ["a x", "c"])
    assert diff.spans(0) == ([(2, 3)], [(2, 3)])
    assert diff.spans(1) == ([], [])


WRAPPED = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this "
    "software and associated documentation files (the Software), to deal in the Software "
    "without restriction, including without limitation the rights to use, copy, modify, "
    "merge, publish, distribute, sublicense, and/or sell copies of the Software."
)


def wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)


def test_reflowed_text_shows_no_change():
    """The same words wrapped at 60 and at 78 columns: nothing changed (issue 34: two files
    at distance 0 showed "7 changed lines")."""
    a, b = wrap(WRAPPED, 60), wrap(WRAPPED, 78)
    assert a != b and len(a) != len(b)
    diff = diff_lines(a, b)
    assert diff.identical and not diff.same_text
    assert (diff.changed, diff.inserted, diff.deleted) == (0, 0, 0)
    assert all(diff.spans(i) == ([], []) for i in range(len(diff.rows)))


def test_one_changed_word_in_reflowed_text_is_one_change():
    a = wrap(WRAPPED, 60)
    b = wrap(WRAPPED.replace("sublicense", "relicense"), 78)
    diff = diff_lines(a, b)
    marked = [(a[r.left][x:y], side) for i, r in enumerate(diff.rows)
              for side, spans in enumerate(diff.spans(i)) for x, y in spans
              if side == 0] + [(b[r.right][x:y], side) for i, r in enumerate(diff.rows)
                               for side, spans in enumerate(diff.spans(i)) for x, y in spans
                               if side == 1]
    assert sorted(marked) == [("relicense", 1), ("sublicense", 0)]
    assert len(diff.hunks) <= 2 and diff.changed + diff.inserted + diff.deleted <= 2


def test_spacing_and_indentation_alone_are_no_change():
    diff = diff_lines(["def f(x):", "    return x  + 1"], ["def f(x):", "  return x + 1"])
    assert diff.identical and not diff.same_text
    assert diff_lines(["a"], ["a"]).same_text


def test_unrelated_passages_are_one_change_not_confetti():
    a = "the cat sat on the mat and the dog lay by the door of the house"
    b = "a storm rolled over the hills while the river rose above the old bridge"
    left, right = word_spans(a, b)
    assert left == [(0, len(a))] and right == [(0, len(b))]


lines = st.lists(st.sampled_from(["a", "b", "c", "d e", "", "f g h"]), max_size=25)


@settings(max_examples=examples(150), deadline=None)
@given(lines, lines)
def test_rows_cover_both_sides_in_order(a, b):
    diff = diff_lines(a, b)
    assert [r.left for r in diff.rows if r.left is not None] == list(range(len(a)))
    assert [r.right for r in diff.rows if r.right is not None] == list(range(len(b)))
    for index, row in enumerate(diff.rows):
        if row.kind == "equal":
            assert diff.spans(index) == ([], []) and row.hunk == -1
        else:
            hunk = diff.hunks[row.hunk]
            assert hunk.start <= index < hunk.stop
    touched = sum(1 for r in diff.rows if r.kind != "equal")
    assert touched == diff.inserted + diff.deleted + diff.changed
    for first, second in zip(diff.hunks, diff.hunks[1:], strict=False):
        assert first.stop < second.start
    assert diff.same_text == (a == b)
    assert diff.identical == (" ".join(a).split() == " ".join(b).split()) or not diff.identical
    assert_unchanged_words_match(diff)


def words_outside(line: str, spans: list[tuple[int, int]]) -> list[str]:
    kept, at = [], 0
    for start, stop in spans:
        kept.append(line[at:start])
        at = stop
    kept.append(line[at:])
    return TOKEN.findall(" ".join(kept))


def assert_unchanged_words_match(diff) -> None:
    """The words outside the changed spans are the same words, in the same order, on both
    sides: every word is either unchanged (and then on both sides) or marked."""
    left = {r.left: diff.spans(i)[0] for i, r in enumerate(diff.rows) if r.left is not None}
    right = {r.right: diff.spans(i)[1] for i, r in enumerate(diff.rows) if r.right is not None}
    kept_a = [w for n, line in enumerate(diff.a) for w in words_outside(line, left[n])]
    kept_b = [w for n, line in enumerate(diff.b) for w in words_outside(line, right[n])]
    assert kept_a == kept_b
    for spans, lines_ in ((left, diff.a), (right, diff.b)):
        for n, line in enumerate(lines_):
            for start, stop in spans[n]:
                assert 0 <= start < stop <= len(line) and line[start:stop].strip()
            assert spans[n] == sorted(spans[n])


TOKEN = re.compile(r"\w+|[^\w\s]")
words = st.sampled_from(["the", "cat", "sat", "on", "mat", ",", ".", "dog", "a", "of"])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(words, max_size=60), st.lists(words, max_size=60),
       st.integers(1, 30), st.integers(1, 30))
def test_word_diffs_across_line_breaks_reproduce_both_texts(wa, wb, width_a, width_b):
    """The opcodes give both texts back exactly; equal ranges hold the same words; the
    row diff marks exactly the words that are not common to both, whatever the wrapping."""
    a, b = " ".join(wa), "  ".join(wb)
    ops = word_opcodes(a, b)
    assert "".join(a[i1:i2] for _, i1, i2, _, _ in ops) == a
    assert "".join(b[j1:j2] for _, _, _, j1, j2 in ops) == b
    for tag, i1, i2, j1, j2 in ops:
        assert tag in ("equal", "replace")
        if tag == "equal":
            assert TOKEN.findall(a[i1:i2]) == TOKEN.findall(b[j1:j2])
    diff = diff_lines(wrap(a, width_a), wrap(b, width_b))
    assert_unchanged_words_match(diff)
    if wa == wb:
        assert diff.identical


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(words, min_size=1, max_size=80), st.integers(1, 40), st.integers(1, 40))
def test_the_same_words_wrapped_otherwise_show_no_change(w, width_a, width_b):
    text = " ".join(w)
    diff = diff_lines(wrap(text, width_a), wrap(text, width_b))
    assert diff.identical and diff.changed == diff.inserted == diff.deleted == 0


@settings(max_examples=examples(150), deadline=None)
@given(st.text(alphabet="ab c.", max_size=30), st.text(alphabet="ab c.", max_size=30))
def test_word_spans_lie_inside_the_lines(a, b):
    left, right = word_spans(a, b)
    for spans, line in ((left, a), (right, b)):
        for start, stop in spans:
            assert 0 <= start < stop <= len(line)
        assert spans == sorted(spans)
    if a == b:
        assert left == right == []


def test_one_megabyte_documents_diff_quickly():
    base = [
        f"paragraph {i} with some ordinary words in it and a number {i * 7}" for i in range(16000)
    ]
    other = list(base)
    for i in range(0, 16000, 800):
        other[i] = other[i] + " edited"
    del other[5000:5003]
    other.insert(9000, "a brand new line")
    start = time.perf_counter()
    diff = diff_lines(base, other)
    elapsed = time.perf_counter() - start
    assert sum(len(x) for x in base) > 1_000_000
    assert diff.changed == 20 and diff.deleted == 3 and diff.inserted == 1
    assert elapsed < 5.0


def test_visible_shows_control_characters_and_ansi_literally():
    assert visible("a\x1b[31mred\x1b[0m") == "a\\x1b[31mred\\x1b[0m"
    assert visible("tab\there") == "tab here"
    assert visible("nul\x00 bell\x07 del\x7f") == "nul\\x00 bell\\x07 del\\x7f"
    assert visible("[bold red]x[/]") == "[bold red]x[/]"
    assert visible("rtl\u202eoverride") == "rtl\\u202eoverride"
    assert visible_lines("a\r\nb\rc\n") == ["a", "b", "c"]


def test_html_text_keeps_paragraphs_and_decodes_entities():
    text = html_text(
        "<html><head><style>p{}</style></head><body><p>Fish &amp; chips</p><p>two</p></body>"
    )
    assert text.splitlines() == ["Fish & chips", "", "two"]
    assert "p{}" not in text


# -- swapping sides (compare's "s") -------------------------------------------------------
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d e", "d f"]), max_size=12),
    st.lists(st.sampled_from(["a", "b", "c", "d e", "d g"]), max_size=12),
)
def test_swapped_diff_is_the_same_diff_seen_from_the_other_side(a, b):
    diff = diff_lines(a, b)
    for index in range(len(diff.rows)):
        diff.spans(index)  # fill the span cache: it must change sides too
    turned = diff.swapped()
    assert (turned.a, turned.b) == (diff.b, diff.a)
    assert (turned.inserted, turned.deleted, turned.changed) == (
        diff.deleted, diff.inserted, diff.changed,
    )
    assert [r.left for r in turned.rows if r.left is not None] == list(range(len(b)))
    assert [r.right for r in turned.rows if r.right is not None] == list(range(len(a)))
    for index, row in enumerate(turned.rows):
        original = diff.rows[index]
        assert (row.left, row.right) == (original.right, original.left)
        left, right = diff.spans(index)
        assert turned.spans(index) == (right, left)
    back = turned.swapped()
    assert back.rows == diff.rows
    left_rows, right_rows = turned.line_rows()
    assert [turned.rows[r].left for r in left_rows] == list(range(len(b)))


@pytest.mark.parametrize(("lcs", "most"), [(4, 10**9), (4, 60), (0, 0)])
def test_large_inputs_take_the_bounded_paths_and_stay_exact(monkeypatch, lcs, most):
    """Beyond LCS_CELLS the changes are placed by Levenshtein's alignment (then refined),
    beyond MAX_CELLS only a close pair is aligned (banded), else lines pair in order: the
    marks stay exact on every path."""
    from ditto_tui.core.text import diff as textdiff

    monkeypatch.setattr(textdiff, "LCS_CELLS", lcs)
    monkeypatch.setattr(textdiff, "MAX_CELLS", most)
    a = wrap(WRAPPED, 40) + ["", "a closing line", "and one more"]
    b = wrap(WRAPPED.replace("sublicense", "relicense").replace("charge", "fee"), 50) + [
        "", "a closing line", "and two more", "plus a new one"]
    diff = diff_lines(a, b)
    assert_unchanged_words_match(diff)
    assert not diff.identical
    left, right = word_spans(" ".join(a), " ".join(b))
    assert [" ".join(a)[x:y] for x, y in left] and [" ".join(b)[x:y] for x, y in right]
