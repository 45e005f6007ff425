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


async def test_the_bar_repaints_only_when_its_thumb_moves(monkeypatch):
    app = NumbersApp()
    async with app.run_test(size=(40, 14)) as pilot:
        table = app.query_one(Numbers)
        table.set_rows(range(5000))
        await pilot.pause()
        bar = table.vertical_scrollbar
        assert isinstance(bar, SteadyScrollBar) and bar.display
        drawn: list[int] = []
        render = SteadyScrollBar.render

        def counted(self):
            drawn.append(self.window_virtual_size)
            return render(self)

        shown = bar_lines(bar)
        monkeypatch.setattr(SteadyScrollBar, "render", counted)
        for count in (4990, 4000, 4999):  # a one-cell thumb at the top each time
            table.set_rows(range(count))
            await pilot.pause()
        assert bar.window_virtual_size == 5000  # (the header line and 4,999 rows)
        assert drawn == []
        monkeypatch.setattr(SteadyScrollBar, "render", render)
        assert bar_lines(bar) == shown  # a repaint would have drawn the same bar
        monkeypatch.setattr(SteadyScrollBar, "render", counted)
        table.set_rows(range(40))  # a long thumb
        await pilot.pause()
        assert drawn == [41]
        table.move_cursor(row=39)  # scrolled to the end: the thumb moves down
        await pilot.pause()
        assert len(drawn) == 2
