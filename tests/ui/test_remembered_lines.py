"""The k chart and the status line draw a state seen before from memory, and draw again
when their styles change."""

from __future__ import annotations

from textual.geometry import Region

from ditto_tui.ui.widgets.k_chart import KChart
from ditto_tui.ui.widgets.status_bar import StatusBar

from .conftest import settle


def drawn(widget) -> list:
    """The widget's lines as on screen (text and style of each segment)."""
    width, height = widget.outer_size
    return [list(strip) for strip in widget.render_lines(Region(0, 0, width, height))]


def fresh(widget) -> list:
    """The widget's lines drawn again from scratch."""
    vars(widget).pop("_cached_styles_key", None)
    widget.refresh()
    return drawn(widget)


async def test_a_state_seen_before_is_drawn_from_memory(corpus_dir, make_app, monkeypatch):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        chart, status = screen.query_one(KChart), screen.query_one(StatusBar)
        await pilot.press("]")
        await settle(pilot)
        await pilot.press("[")  # back at k=3: both were drawn at k=3 already
        await settle(pilot)
        rendered: list[str] = []
        for cls in (KChart, StatusBar):
            render = cls.render

            def counted(self, render=render):
                rendered.append(type(self).__name__)
                return render(self)

            monkeypatch.setattr(cls, "render", counted)
        at_k3 = {w: drawn(w) for w in (chart, status)}
        await pilot.press("]")
        await settle(pilot)
        assert screen.k == 4 and rendered == []  # (k=4 was drawn before too)
        assert drawn(chart) != at_k3[chart] and drawn(status) != at_k3[status]
        await pilot.press("[")
        await settle(pilot)
        assert rendered == []
        for widget in (chart, status):
            assert drawn(widget) == at_k3[widget] == fresh(widget)
        rendered.clear()
        app.theme = "textual-light"  # new colours: drawn again
        await settle(pilot)
        assert "KChart" in rendered and "StatusBar" in rendered
        for widget in (chart, status):
            assert drawn(widget) != at_k3[widget]
            assert drawn(widget) == fresh(widget)
