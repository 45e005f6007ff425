"""The key bar: one widget drawn cell for cell as Textual's Footer, following the focus,
pressing the key clicked, with each key's tooltip, and scrolling keys that do not fit."""

from __future__ import annotations

import io

from rich.console import Console
from rich.segment import Segment
from textual import events, widgets
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import CommandPalette
from textual.widgets import Button, Static, Tooltip

from ditto_tui.ui.widgets.footer import Footer


class Keyed(Static, can_focus=True):
    BINDINGS = [
        Binding("x", "extra", "Extra", tooltip="the extra key"),
        Binding("z", "off", "Off"),  # shown disabled
        Binding("y", "extra", "Hidden", show=False),
        Binding("ctrl+t", "extra", "Same action"),  # one key per action: not shown
    ]
    pressed = 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "off" else True

    def action_extra(self) -> None:
        self.pressed += 1

    def action_off(self) -> None:
        raise AssertionError("a disabled key ran")


class Bar(App[None]):
    BINDINGS = [Binding("q", "quit", "Quit", tooltip="leave")]
    TOOLTIP_DELAY = 0.05

    def __init__(self, bar: type = Footer) -> None:
        super().__init__()
        self.bar = bar

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield Keyed("keyed", id="keyed")
        yield self.bar()


def shown(app: App) -> list[str]:
    return [key.description for key in app.query_one(Footer).keys]


def bottom_row(app: App) -> list[str]:
    """The segments of the screen's last row, as a screenshot records them."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, simplify=False))
    segments = list(Segment.filter_control(console._record_buffer))
    return [repr(s) for s in list(Segment.split_and_crop_lines(segments, length=width))[-1]]


async def test_the_keys_follow_the_focus_and_only_repaint_the_bar() -> None:
    app = Bar()
    async with app.run_test() as pilot:
        app.query_one("#one").focus()
        await pilot.pause()
        bar = app.query_one(Footer)
        assert "Quit" in shown(app) and "Extra" not in shown(app)
        assert shown(app)[-1] == "palette" and bar.keys[-1].palette
        keys = bar.keys
        app.query_one("#two").focus()  # the same keys
        await pilot.pause()
        assert bar.keys is keys
        layouts = 0
        refresh_layout = app.screen._refresh_layout

        def count(*args, **kwargs) -> None:
            nonlocal layouts
            layouts += 1
            refresh_layout(*args, **kwargs)

        app.screen._refresh_layout = count  # type: ignore[method-assign]
        app.query_one("#keyed").focus()  # more keys: drawn again in place
        await pilot.pause()
        await pilot.pause()
        assert shown(app)[:3] == ["Extra", "Off", "Quit"]
        assert "Hidden" not in shown(app) and "Same action" not in shown(app)
        assert [key.disabled for key in bar.keys[:3]] == [False, True, False]
        assert not bar.children and layouts == 0
        app.query_one("#one").focus()
        await pilot.pause()
        assert "Extra" not in shown(app)


async def test_the_bar_is_drawn_cell_for_cell_as_textuals_footer() -> None:
    """Every cell and style of the row, and where the screen splits it, in two themes, two
    widths (one too narrow for the keys), with a disabled key and under the mouse."""
    rows: dict[type, list[list[str]]] = {}
    for bar in (widgets.Footer, Footer):
        rows[bar] = []
        for size in ((60, 8), (30, 8)):
            app = Bar(bar)
            async with app.run_test(size=size) as pilot:
                app.query_one("#keyed").focus()
                for theme in ("textual-dark", "textual-light"):
                    app.theme = theme
                    await pilot.hover("#one")
                    await pilot.pause()
                    rows[bar].append(bottom_row(app))
                    for x in (1, 12, size[0] - 3):  # a key, the disabled key, the palette
                        await pilot.hover(offset=(x, size[1] - 1))
                        await pilot.pause()
                        rows[bar].append(bottom_row(app))
    assert len(rows[Footer]) == 16 and rows[Footer] == rows[widgets.Footer]
    for first in range(0, 16, 4):  # each hover drew its key differently
        assert len({"".join(row) for row in rows[Footer][first:first + 4]}) == 4


async def test_a_click_presses_the_key_and_a_disabled_key_rings_the_bell() -> None:
    app = Bar()
    rang: list[bool] = []
    app.bell = lambda: rang.append(True)  # type: ignore[method-assign]
    async with app.run_test(size=(60, 8)) as pilot:
        keyed = app.query_one(Keyed)
        keyed.focus()
        await pilot.pause()
        await pilot.click(Footer, offset=(4, 0))  # "Extra"
        await pilot.pause()
        assert keyed.pressed == 1 and not rang
        await pilot.click(Footer, offset=(12, 0))  # "Off", disabled
        await pilot.pause()
        assert keyed.pressed == 1 and rang == [True]
        await pilot.click(Footer, offset=(40, 0))  # between the keys and the palette
        await pilot.pause()
        assert keyed.pressed == 1 and rang == [True]
        await pilot.click(Footer, offset=(55, 0))  # the palette's key
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)


async def rest_on(pilot, x: int) -> None:
    """Move the mouse onto the bar's column ``x`` and rest there. Textual hides a tooltip
    shown when the mouse moves inside its widget, and shows it again after the next move
    once the mouse rests: a hand on a mouse always makes that next move."""
    tip = pilot.app.screen.get_child_by_type(Tooltip)
    for _ in range(3):
        await pilot.hover(Footer, offset=(x, 0))
        await pilot.pause(0.15)
        if tip.display:
            return


async def test_resting_on_a_key_shows_its_tooltip() -> None:
    app = Bar()
    async with app.run_test(size=(60, 8), tooltips=True) as pilot:
        app.query_one(Keyed).focus()
        await pilot.pause()
        bar = app.query_one(Footer)
        tip = app.screen.get_child_by_type(Tooltip)
        await rest_on(pilot, 2)
        assert bar.tooltip == "the extra key"
        assert tip.display and str(tip.render()) == "the extra key"
        await rest_on(pilot, 18)  # "Quit"
        assert bar.tooltip == "leave" and tip.display and str(tip.render()) == "leave"
        await rest_on(pilot, 11)  # "Off" has none
        assert bar.tooltip is None and not tip.display
        await rest_on(pilot, 55)  # the palette's key: its binding's tooltip
        palette = "Open the command palette"
        assert bar.tooltip == palette and tip.display and str(tip.render()) == palette
        await pilot.hover("#one")
        await pilot.pause(0.2)
        assert bar.tooltip is None and not tip.display


def wheel(app: App, down: bool, x: int, y: int) -> None:
    kind = events.MouseScrollDown if down else events.MouseScrollUp
    app.post_message(kind(None, x, y, 0, 1 if down else -1, 0, False, False, False,
                          screen_x=x, screen_y=y))


async def test_the_wheel_scrolls_keys_that_do_not_fit() -> None:
    app = Bar()
    async with app.run_test(size=(30, 8)) as pilot:
        app.query_one(Keyed).focus()
        await pilot.pause()
        bar = app.query_one(Footer)
        assert bar.key_at(0) == 0 and bar.key_at(17) == 2  # "Quit", cut by the palette's key
        wheel(app, True, 3, 7)
        await pilot.pause()
        assert bar.key_at(0) == 0 and bar.key_at(5) == 1  # 4 columns on
        for _ in range(5):
            wheel(app, True, 3, 7)
        await pilot.pause()
        assert bar.key_at(17) == 2 and bar.key_at(18) == 3  # all of "Quit" in view, no further
        assert bar_text(app).startswith("ra  z Off  q Quit ▏^p palette")
        for _ in range(6):
            wheel(app, False, 3, 7)
        await pilot.pause()
        assert bar_text(app).startswith(" x Extra  z Off")


def bar_text(app: App) -> str:
    return app.query_one(Footer).render_line(0).text


async def test_keys_that_fit_do_not_scroll() -> None:
    app = Bar()
    async with app.run_test(size=(60, 8)) as pilot:
        app.query_one(Keyed).focus()
        await pilot.pause()
        before = bar_text(app)
        wheel(app, True, 3, 7)
        await pilot.pause()
        assert bar_text(app) == before and before.startswith(" x Extra  z Off  q Quit ")
