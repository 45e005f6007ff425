"""Find in the preview and in the comparison (/, n/N, :), like a pager: all matches
highlighted, the current one distinct, a count, and content shown as data."""

from __future__ import annotations

from textual.widgets import Input

from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.screens.neighbours import NeighboursScreen
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.find_bar import FindBar
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.preview import Preview
from ditto_tui.ui.widgets.side_by_side import SideBySideDiff

from .conftest import ScreenUpdates, settle, wait_for


def status(bar: FindBar) -> str:
    return bar.query_one("#find-status").text.plain


def keys(app) -> list[str]:
    """What the key bar of the screen shown says each key does."""
    return [key.description for key in app.screen.query_one(Footer).keys]


def styled(widget, y: int, style) -> list[str]:
    """Texts of the segments on display line ``y`` drawn with ``style``'s background."""
    return [s.text for s in widget.render_line(y) if s.style and s.style.bgcolor == style.bgcolor]


async def open_family(pilot, word: str) -> None:
    await pilot.press("/", *word, "enter")
    await settle(pilot)


async def compare_and_find_deepak(pilot, app) -> tuple[CompareScreen, SideBySideDiff, FindBar]:
    """Compare the "heating" family's first two members and find "deepak" in the
    comparison (one match in each side)."""
    await open_family(pilot, "heating")
    app.main_screen.query_one(MemberTable).focus()
    await pilot.press("c")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, CompareScreen)
    view = screen.query_one(SideBySideDiff)
    bar = screen.query_one("#diff-find", FindBar)
    await pilot.press("slash", *"deepak", "enter")
    await wait_for(pilot, lambda: status(bar).startswith("1 of 2"))  # one in each side
    return screen, view, bar


async def test_find_in_the_preview_counts_highlights_and_steps(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_family(pilot, "heating")
        screen = app.main_screen
        preview = screen.query_one(Preview)
        bar = screen.query_one("#preview-find", FindBar)
        preview.focus()
        await pilot.press("slash")
        assert bar.display and bar.input.has_focus
        await pilot.press(*"november")
        await wait_for(pilot, lambda: status(bar).startswith("1 of 3"))
        every, current = 0, 1

        def marks(which: int) -> list[tuple[int, str]]:
            style = preview.match_styles()[which]  # the background follows the focus
            return [(y, t) for y in range(12) for t in styled(preview, y, style)]

        assert [t for _y, t in marks(current)] == ["November"]  # the current one, distinct
        assert [t for _y, t in marks(every)] == ["November", "November"]  # the others
        first = marks(current)[0][0]
        await pilot.press("enter")
        assert preview.has_focus and bar.display  # the count stays on screen
        await pilot.press("n")
        assert status(bar).startswith("2 of 3")
        assert marks(current)[0][0] > first
        assert len(marks(every)) == 2
        await pilot.press("n", "n")  # past the last: round to the first, with a bell
        assert status(bar).startswith("1 of 3")
        await pilot.press("N")
        assert status(bar).startswith("3 of 3")
        await pilot.press("escape")  # ends the find: no highlight, the bar goes
        assert preview.found is None and not bar.display
        assert marks(current) == [] and marks(every) == []
        await pilot.press("n")  # without a find, n is the screen's Neighbours again
        await wait_for(pilot, lambda: isinstance(app.screen, NeighboursScreen))


async def test_no_match_and_the_family_filter_keeps_its_slash(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        screen.query_one(Preview).focus()
        await pilot.press("slash", *"zebra")
        bar = screen.query_one("#preview-find", FindBar)
        await wait_for(pilot, lambda: status(bar) == "no match")
        await pilot.press("escape")
        screen.query_one(FamilyTable).focus()
        await pilot.press("slash")  # with the family list focused, / is the family filter
        assert screen.focused is screen.query_one("#filter", Input)


async def test_find_shows_hostile_text_as_data(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await open_family(pilot, "weird")
        preview = app.main_screen.query_one(Preview)
        bar = app.main_screen.query_one("#preview-find", FindBar)
        preview.focus()
        await pilot.press("slash", *"[bold red]")
        await wait_for(pilot, lambda: status(bar).startswith("1 of 1"))
        _every, current = preview.match_styles()
        assert styled(preview, 0, current) == ["[bold red]"]
        bar.input.value = "\\x1b[31m"  # the escape is shown as text, and found as text
        await wait_for(pilot, lambda: status(bar).startswith("1 of 1"))
        drawn = "".join(preview.render_line(y).text for y in range(4))
        assert "\\x1b[31m" in drawn and "\x1b" not in drawn
        assert "[bold red]" in drawn
        assert "\x1b" not in bar.query_one("#find-status").text.plain


async def test_go_to_line_in_the_preview(tmp_path, make_app):
    (tmp_path / "c").mkdir()
    text = "".join(f"line {i}\n" for i in range(1, 501))
    (tmp_path / "c" / "a.txt").write_text(text)
    (tmp_path / "c" / "b.txt").write_text(text + "one more\n")
    app = make_app(tmp_path / "c")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        preview = app.main_screen.query_one(Preview)
        await wait_for(pilot, lambda: len(preview.lines) > 400)
        preview.focus()
        await pilot.press("colon", *"250", "enter")
        assert preview.render_line(0).text.startswith("line 250")
        assert preview.has_focus
        await pilot.press("ctrl+g", *"nope", "enter")
        bar = app.main_screen.query_one("#preview-find", FindBar)
        assert "no line 'nope'" in status(bar)
        await pilot.press("escape")
        assert preview.has_focus and not bar.display

        await pilot.press("c")  # the comparison: line 250 of A, then line 300 of B
        await settle(pilot)
        view = app.screen.query_one(SideBySideDiff)
        await pilot.press("colon", *"250", "enter")
        assert view.render_line(0).text.split("│")[0].split() == ["250", "line", "250"]
        await pilot.press("ctrl+g", *"b300", "enter")
        assert view.render_line(0).text.split("│")[1].split() == ["300", "line", "300"]
        await pilot.press("colon", *"b9999", "enter")  # clamped to the last line of B
        assert view.row_at(int(view.scroll_offset.y)) > 450
        assert isinstance(app.screen, CompareScreen) and view.has_focus


async def test_find_and_go_to_line_in_the_comparison(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        _screen, view, bar = await compare_and_find_deepak(pilot, app)
        every, current = view.match_styles()
        row = next(y for y in range(30) if "Deepak" in view.render_line(y).text)
        assert styled(view, row, current) == ["Deepak"]  # A's first, then B's
        assert styled(view, row, every) == ["Deepak"]
        text = view.render_line(row).text
        await pilot.press("n")
        assert status(bar).startswith("2 of 2")
        cells = [s for s in view.render_line(row) if s.style and s.style.bgcolor == current.bgcolor]
        assert [s.text for s in cells] == ["Deepak"]
        assert text.index("Deepak") < text.rindex("Deepak")  # both sides on the row
        assert {"Next match", "Prev match"} <= set(keys(app))
        await pilot.press("escape")
        assert view.found is None
        await pilot.pause()
        assert "Next match" not in keys(app) and "Next change" in keys(app)  # the key bar too
        await pilot.press("n")  # no find: n is the next change again
        assert view.current_hunk == 0


async def test_find_on_a_large_document_runs_in_a_worker(tmp_path, make_app):
    (tmp_path / "c").mkdir()
    words = "the quick brown fox jumps over the lazy dog near the river bank "
    line = words * 2
    body = "".join(f"{i:06d} {line}\n" for i in range(20_000))  # about 2.6 MB
    assert len(body) > 2_500_000
    (tmp_path / "c" / "big.txt").write_text(body + "needle at the end\n")
    (tmp_path / "c" / "big2.txt").write_text(body + "other end\n")
    app = make_app(tmp_path / "c")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, timeout=60)
        preview = app.main_screen.query_one(Preview)
        await wait_for(pilot, lambda: len(preview.lines) > 20_000, timeout=30)
        bar = app.main_screen.query_one("#preview-find", FindBar)
        preview.focus()
        await pilot.press("slash")
        preview.search("river")
        assert preview.found is None  # the call returned before the search ran
        await wait_for(pilot, lambda: status(bar).startswith("1 of 40,000"), timeout=30)
        bar.input.value = "needle"
        await wait_for(pilot, lambda: status(bar).startswith("1 of 1"), timeout=30)
        assert "needle" in preview.render_line(preview.row_of_line(20_000) - int(preview.scroll_offset.y)).text


async def test_moving_the_focus_in_the_comparison_redraws_only_what_it_changes(
    corpus_dir, make_app, monkeypatch
):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen, view, bar = await compare_and_find_deepak(pilot, app)
        view.focus()
        await settle(pilot)
        updates = ScreenUpdates().watch(screen, monkeypatch)
        full, redrawn = updates.full, updates.redrawn
        field = bar.query_one(Input)
        field.focus()  # back into the open find bar, then out again
        await settle(pilot)
        assert field.has_focus and not full
        assert any(field.region.overlaps(dirty) for dirty in redrawn)
        redrawn.clear()
        view.focus()
        await settle(pilot)
        assert view.has_focus and not full
        assert any(field.region.overlaps(dirty) for dirty in redrawn)
