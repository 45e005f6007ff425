"""Folding the explorer's side-by-side diff for the report."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ditto_tui.core.text.diff import diff_lines
from ditto_tui.report.diffview import cut_line, diff_view, fold_diff
from tests.properties import examples


def test_identical_texts_give_no_rows():
    view = diff_view(["a", "b"], ["a", "b"])
    assert view.identical and view.rows == () and view.hunks == 0


def test_changes_keep_context_and_hide_equal_runs():
    left = [f"line {i}" for i in range(100)]
    right = list(left)
    right[10] = "line 10 changed here"
    right[80] = "line eighty"
    view = diff_view(left, right, context=2)
    kinds = [r.kind for r in view.rows]
    assert kinds == ["skip", "equal", "equal", "changed", "equal", "equal", "skip",
                     "equal", "equal", "changed", "equal", "equal", "skip"]
    assert [r.hidden for r in view.rows if r.kind == "skip"] == [8, 65, 17]
    changed = view.rows[3]
    assert changed.left.number == 11 and changed.right.number == 11
    assert changed.right.text == "line 10 changed here"
    # word level: only the added words are marked on the right, nothing on the left
    assert [changed.right.text[a:b] for a, b in changed.right.spans] == ["changed here"]
    assert changed.left.spans == ()
    assert (view.changed, view.hunks, view.hunks_shown, view.rows_cut) == (2, 2, 2, False)


def test_inserted_and_deleted_rows_have_one_side():
    view = diff_view(["a", "b", "c"], ["a", "c", "d"], context=0)
    rows = [(r.kind, r.left and r.left.text, r.right and r.right.text) for r in view.rows]
    assert ("deleted", "b", None) in rows and ("inserted", None, "d") in rows


def test_row_limit_cuts_and_says_so():
    left = [f"same {i}" if i % 5 else f"old {i}" for i in range(500)]
    right = [f"same {i}" if i % 5 else f"new {i}" for i in range(500)]
    view = diff_view(left, right, context=1, max_rows=30)
    assert view.rows_cut
    assert sum(r.kind != "skip" for r in view.rows) == 30
    assert 0 < view.hunks_shown < view.hunks


def test_long_line_window_keeps_the_first_change():
    line = "x" * 5000 + " needle " + "y" * 5000
    cell = cut_line(line, [(5001, 5007)], 400, 7)
    assert cell.cut_start > 0 and cell.cut_end
    assert len(cell.text) == 400
    a, b = cell.spans[0]
    assert cell.text[a:b] == "needle"
    short = cut_line("short", [(0, 2)], 400, 1)
    assert (short.text, short.spans, short.cut_start, short.cut_end) == ("short", ((0, 2),), 0, False)


def test_window_without_change_starts_at_the_beginning():
    cell = cut_line("z" * 1000, [], 100, 3)
    assert cell.cut_start == 0 and cell.cut_end and cell.text == "z" * 100


lines_st = st.lists(st.sampled_from(["a", "b", "c", "d e", "f g h", ""]), max_size=40)


@settings(max_examples=examples(200), deadline=None)
@given(lines_st, lines_st, st.integers(0, 3))
def test_folded_rows_cover_the_whole_diff_in_order(a, b, context):
    """Shown rows plus hidden equal lines account for every row of the full diff, in
    order, and every shown cell is the original line."""
    full = diff_lines(a, b)
    view = fold_diff(full, context=context, max_rows=10_000)
    covered = 0
    for row in view.rows:
        if row.kind == "skip":
            assert row.hidden > 0
            for r in full.rows[covered:covered + row.hidden]:
                assert r.kind == "equal"
            covered += row.hidden
            continue
        expected = full.rows[covered]
        assert row.kind == expected.kind
        if row.left is not None:
            assert row.left.number == expected.left + 1 and row.left.text == a[expected.left]
        if row.right is not None:
            assert row.right.number == expected.right + 1 and row.right.text == b[expected.right]
        covered += 1
    assert covered == (len(full.rows) if full.hunks else 0)
    assert view.hunks_shown == view.hunks


@settings(max_examples=examples(100), deadline=None)
@given(lines_st, lines_st)
def test_spans_are_the_explorer_spans(a, b):
    full = diff_lines(a, b)
    view = fold_diff(diff_lines(a, b), context=10_000, max_rows=10_000, line_chars=10_000)
    shown = [r for r in view.rows if r.kind != "skip"]
    assert len(shown) == (len(full.rows) if full.hunks else 0)
    for index, row in enumerate(shown):
        left, right = (tuple((x, y) for x, y in spans if y > x) for spans in full.spans(index))
        assert (row.left.spans if row.left else ()) == left
        assert (row.right.spans if row.right else ()) == right


def test_a_reflowed_copy_is_the_same_words_not_changed_lines():
    """Issue 34: two files at distance 0, one wrapped at 60 columns and the other at 78,
    showed "7 changed lines" for one changed word; the report now says what differs."""
    import textwrap

    from ditto_tui.report.model import DiffView
    from ditto_tui.report.render import _diff_summary

    words = " ".join(f"word{i}" for i in range(120))
    left, right = textwrap.wrap(words, 60), textwrap.wrap(words, 78)
    view = diff_view(left, right)
    assert view.identical and not view.same_text and view.rows == ()
    assert _diff_summary(view) == ("Same words as the representative; only spacing or line "
                                   "breaks differ")
    edited = textwrap.wrap(words.replace("word50 ", "changed "), 78)
    view = diff_view(left, edited)
    assert (view.changed, view.inserted, view.deleted) in ((1, 0, 0), (2, 0, 0))
    marked = [c.text[a:b] for r in view.rows for c in (r.left, r.right) if c for a, b in c.spans]
    assert sorted(marked) == ["changed", "word50"]
    assert _diff_summary(DiffView((), 0, 0, 0, 0, 0)) == "Same text as the representative"
