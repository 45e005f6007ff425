"""A new border title or subtitle repaints the border line it is drawn on, nothing else."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import Static

from ditto_tui.ui.widgets.borders import set_border_subtitle, set_border_title


class Boxed(App):
    CSS = "Static { border: round $primary; padding: 1 2; height: 10; }"

    def compose(self) -> ComposeResult:
        yield Static("inside")


def lines(widget) -> list[str]:
    width, height = widget.outer_size
    return [strip.text for strip in widget.render_lines(Region(0, 0, width, height))]


async def test_titles_repaint_their_border_line_only():
    app = Boxed()
    async with app.run_test(size=(40, 14)) as pilot:
        box = app.query_one(Static)
        await pilot.pause()
        before = lines(box)
        set_border_title(box, "Top title")
        dirty = set(box._styles_cache._dirty_lines)
        assert dirty == {0}
        await pilot.pause()
        after = lines(box)
        assert "Top title" in after[0] and after[1:] == before[1:]
        set_border_subtitle(box, "Bottom words")
        assert set(box._styles_cache._dirty_lines) == {9}
        await pilot.pause()
        last = lines(box)
        assert "Bottom words" in last[9] and last[:9] == after[:9]
        set_border_subtitle(box, "Bottom words")  # the same text: nothing to repaint
        assert not box._styles_cache._dirty_lines
        # what is drawn is what a repaint of the whole box draws
        box.refresh()
        await pilot.pause()
        assert lines(box) == last
