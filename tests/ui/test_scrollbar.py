"""A list's scroll bar repaints when its thumb moves, not at every change of the row count."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.scrollbar import ScrollBar

from ditto_tui.ui.widgets.columns import ColumnSpec
from ditto_tui.ui.widgets.scrollbar import SteadyScrollBar
from ditto_tui.ui.widgets.virtual_table import VirtualTable


class Numbers(VirtualTable):
    COLUMNS = (ColumnSpec("n", "Number", 10, weight=1),)

    def cell(self, row: int, key: str) -> str:
        return str(row)


class NumbersApp(App):
    def compose(self) -> ComposeResult:
        yield Numbers()


def bar_lines(bar: ScrollBar) -> list[list]:
    """The bar's lines as drawn now (text and style of every segment), freshly rendered."""
    bar._styles_cache.clear()
    return [list(strip) for strip in bar.render_lines(Region(0, 0, *bar.size))]


async def drawn_after(pilot, drawn: list[int], count: int) -> list[int]:
    """``drawn`` once it holds ``count`` renders (a busy machine may paint a few frames late)."""
    for _ in range(100):
        if len(drawn) >= count:
            break
        await pilot.pause(0.01)
    return drawn


async def test_the_bar_repaints_only_when_its_thumb_moves(monkeypatch):
    app = NumbersApp()
    async with app.run_test(size=(40, 14)) as pilot:
        table = app.query_one(Numbers)
        table.set_rows(range(5000))
        await pilot.pause()
        bar = table.vertical_scrollbar
        assert isinstance(bar, SteadyScrollBar) and bar.display
        # The bar asks for a repaint (or not) while the row count changes, at once: count
        # those requests, not the renders, which the screen's timer may run frames later.
        # Only the bar's own requests count: on a busy machine Textual may still repaint it
        # for a layout or a focus change left over from the app's start.
        asked: list[int] = []
        decisions: list[int] = []
        refresh, decide = SteadyScrollBar.refresh, SteadyScrollBar._repaint_if_changed

        def deciding(self):
            decisions.append(self.window_virtual_size)
            self.deciding = True
            try:
                decide(self)
            finally:
                self.deciding = False

        def counted_refresh(self, *args, **kwargs):
            if getattr(self, "deciding", False):
                asked.append(self.window_virtual_size)
            return refresh(self, *args, **kwargs)

        drawn: list[int] = []
        render = SteadyScrollBar.render

        def counted_render(self):
            drawn.append(self.window_virtual_size)
            return render(self)

        shown = bar_lines(bar)  # (drawn now: the bar compares later values with this one)
        monkeypatch.setattr(SteadyScrollBar, "refresh", counted_refresh)
        monkeypatch.setattr(SteadyScrollBar, "_repaint_if_changed", deciding)
        for count in (4990, 4000, 4999):  # a one-cell thumb at the top each time
            table.set_rows(range(count))
            await pilot.pause()
        assert bar.window_virtual_size == 5000  # (the header line and 4,999 rows)
        assert {4991, 4001, 5000} <= set(decisions)  # (the bar did weigh each change)
        assert asked == []
        assert bar_lines(bar) == shown  # a repaint would have drawn the same bar
        monkeypatch.setattr(SteadyScrollBar, "render", counted_render)
        table.set_rows(range(40))  # a long thumb
        await pilot.pause()
        assert asked and set(asked) == {41}
        assert (await drawn_after(pilot, drawn, 1))[-1] == 41
        asked.clear()
        rendered = len(drawn)
        table.move_cursor(row=39)  # scrolled to the end: the thumb moves down
        await pilot.pause()
        assert asked
        assert len(await drawn_after(pilot, drawn, rendered + 1)) > rendered
