"""The side-by-side diff model: alignment invariants, counts, hunks and word spans."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.display import html_text, visible, visible_lines
from ditto_tui.core.textdiff import MAX_WORD_TOKENS, diff_lines, diff_texts, word_spans
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


def test_word_spans_of_huge_line_fall_back_to_prefix_suffix():
    a = "w " * (MAX_WORD_TOKENS + 10) + "END"
    b = "w " * (MAX_WORD_TOKENS + 10) + "FIN"
    left, right = word_spans(a, b)
    assert left == [(len(a) - 3, len(a))]
    assert right == [(len(b) - 3, len(b))]


def test_spans_are_lazy_and_cached_per_hunk():
    diff = diff_lines(["a b", "c"], ["a x", "c"])
    assert diff._spans == {}
    assert diff.spans(0) == ([(2, 3)], [(2, 3)])
    assert 0 in diff._spans
    assert diff.spans(1) == ([], [])


lines = st.lists(st.sampled_from(["a", "b", "c", "d e", "", "f g h"]), max_size=25)


@settings(max_examples=examples(150), deadline=None)
@given(lines, lines)
def test_rows_cover_both_sides_in_order(a, b):
    diff = diff_lines(a, b)
    assert [r.left for r in diff.rows if r.left is not None] == list(range(len(a)))
    assert [r.right for r in diff.rows if r.right is not None] == list(range(len(b)))
    for index, row in enumerate(diff.rows):
        if row.kind == "equal":
            assert a[row.left] == b[row.right] and row.hunk == -1
        else:
            hunk = diff.hunks[row.hunk]
            assert hunk.start <= index < hunk.stop
    touched = sum(1 for r in diff.rows if r.kind != "equal")
    assert touched == diff.inserted + diff.deleted + diff.changed
    for first, second in zip(diff.hunks, diff.hunks[1:], strict=False):
        assert first.stop < second.start
    assert diff.identical == (a == b)


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
