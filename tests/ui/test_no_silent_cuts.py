"""No one-line text is cut without saying so: at 80x24 and 120x40, on every screen, a
label, a box's placeholder or a list's empty-state sentence that does not fit its width
ends with an ellipsis (or is wrapped whole).

The screen is read as painted (the compositor's lines), each widget's full text from the
widget; a line is "cut" when the full text is wider than the widget and the painted line
does not end with ``…``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Static

from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.screens.help import HelpScreen
from ditto_tui.ui.screens.neighbours import NeighboursScreen
from ditto_tui.ui.widgets.virtual_table import VirtualTable

from .conftest import settle, wait_for

SIZES = [(80, 24), (120, 40)]


def _plain(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, (Text, Content)):
        return content.plain
    return None


def _full_lines(widget: Widget) -> list[str] | None:
    """The lines ``widget`` would show given room (None: not a one-line text widget)."""
    if isinstance(widget, Input):
        return [widget.placeholder] if not widget.value and widget.placeholder else None
    if isinstance(widget, VirtualTable):
        return widget.placeholder.splitlines() if not widget.rows else None
    if isinstance(widget, Static) and widget.content_region.height == 1:
        text = _plain(widget.content)
        return text.splitlines()[:1] if text else None
    return None


def silent_cuts(app) -> list[str]:
    """Every painted line of a one-line text that was cut without an ellipsis."""
    screen = app.screen
    strips = screen._compositor.render_strips()
    found = []
    for widget in screen.walk_children(with_self=False):
        if not widget.display or not widget.visible:
            continue
        lines = _full_lines(widget)
        if not lines:
            continue
        region = widget.content_region
        if region.width <= 0 or region.y < 0 or region.bottom > len(strips):
            continue
        if isinstance(widget, VirtualTable):  # a sentence under the header: wrapped whole
            painted_rows = [strips[y].crop(region.x, region.right).text.strip()
                            for y in range(region.y + 1, region.bottom)]
            shown = " ".join(" ".join(painted_rows).split())
            if shown != " ".join(" ".join(lines).split()) and not shown.endswith("…"):
                found.append(f"{type(widget).__name__}#{widget.id}: {shown!r} (of {lines!r})")
            continue
        first = region.y
        for offset, full in enumerate(lines):
            y = first + offset
            if y >= region.bottom:
                break
            painted = strips[y].crop(region.x, region.right).text.rstrip()
            if cell_len(full.rstrip()) > region.width and not painted.endswith("…"):
                found.append(f"{type(widget).__name__}#{widget.id}: {painted!r} (of {full!r})")
    return found


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_an_empty_folder_says_so_whole(tmp_path: Path, make_app, size) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    app = make_app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert silent_cuts(app) == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_screen_cuts_with_an_ellipsis(corpus_dir: Path, make_app, size) -> None:
    app = make_app(corpus_dir)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert silent_cuts(app) == [], "main screen"
        await pilot.press("slash")  # the member filter box shows its placeholder
        await settle(pilot)
        assert silent_cuts(app) == [], "main screen, filter"
        await pilot.press("escape")
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        await settle(pilot)
        assert silent_cuts(app) == [], "compare"
        await pilot.press("e")
        await settle(pilot)
        await pilot.pause(0.5)
        assert silent_cuts(app) == [], "compare, explained"
        await pilot.press("escape")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CompareScreen))
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NeighboursScreen))
        await settle(pilot)
        assert silent_cuts(app) == [], "neighbours"
        await pilot.press("escape")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await settle(pilot)
        assert silent_cuts(app) == [], "help"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_html_explained_and_the_dialogs_cut_with_an_ellipsis(
    corpus_dir: Path, make_app, tmp_path: Path, size
) -> None:
    app = make_app(corpus_dir, review=True, review_dir=tmp_path / "cache")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.main_screen
        row = next(i for i, f in enumerate(screen.view.families) if f.centre.endswith(".html"))
        screen.table.move_cursor(row=row)
        await settle(pilot)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen))
        await pilot.press("e")
        await settle(pilot)
        await pilot.pause(0.5)
        assert silent_cuts(app) == [], "compare of HTML, explained"
        await pilot.press("escape")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CompareScreen))
        for key, name in (("x", "export"), ("R", "keep rules"), ("L", "notices"),
                          ("exclamation_mark", "skipped"), ("o", "scan options")):
            before = app.screen
            await pilot.press(key)
            await wait_for(pilot, lambda before=before: app.screen is not before)
            await settle(pilot)
            assert silent_cuts(app) == [], name
            await pilot.press("escape")
            await wait_for(pilot, lambda before=before: app.screen is before)
