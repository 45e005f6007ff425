"""A user explores the fixed corpus on the main screen."""

from __future__ import annotations

import contextlib

from textual.geometry import Region
from textual.widgets import OptionList

from ditto_tui.ui.screens.help import HelpScreen
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.k_slider import KSlider
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.preview import Preview

from .conftest import ScreenUpdates, settle, wait_for


def family_sets(app) -> list[set[str]]:
    return [set(f.members) for f in app.main_screen.query_one(FamilyTable).families]


PRESS = {
    "press/tidewell-2.0.txt",
    "press/tidewell-2.0-final.txt",
    "press/tidewell-2.0-draft.txt",
    "press/tidewell-2.0-fr-notes.txt",
}


async def test_families_at_k3_then_slider_keys_recluster(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        families = family_sets(app)
        assert len(families) == 3
        assert {"shop/dragonwell.html", "shop/dragonwell-sale.html"} in families
        assert PRESS not in families
        await pilot.press("]", "+")
        assert app.main_screen.k == 5
        assert app.main_screen.query_one(KSlider).value == 5
        await settle(pilot)  # the view is built off the UI thread
        assert PRESS in family_sets(app)
        await pilot.press("[", "[", "-", "-")
        assert app.main_screen.k == 1
        await settle(pilot)
        assert family_sets(app) == [{"weird/[bold red]markup name.txt", "weird/markup-copy.txt"}]


async def test_slider_follows_the_mouse_and_arrow_keys(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        slider = app.main_screen.query_one(KSlider)
        x8 = slider._positions()[8]
        await pilot.click("#k-slider", offset=(x8, 0))
        assert slider.value == 8
        assert app.main_screen.k == 8
        x0 = slider._positions()[0]
        await pilot.click("#k-slider", offset=(x0, 0))
        assert app.main_screen.k == 0
        assert family_sets(app) == []
        slider.focus()
        await pilot.press("right", "right", "right")
        assert app.main_screen.k == 3
        assert len(family_sets(app)) == 3


async def test_filter_by_substring_and_glob(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/")
        await pilot.press(*"sale")
        assert family_sets(app) == [{"shop/dragonwell.html", "shop/dragonwell-sale.html"}]
        await pilot.press("enter")
        assert isinstance(app.focused, FamilyTable)
        await pilot.press("/", *("backspace",) * 4, *"*.txt")
        assert {"shop/dragonwell.html", "shop/dragonwell-sale.html"} not in family_sets(app)
        assert len(family_sets(app)) == 2
        await pilot.press("escape")
        assert isinstance(app.focused, FamilyTable)


async def test_sort_singletons_and_grouping_toggles(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("]", "]")  # k=5: press family (4 members, diameter 7 in chain mode)
        await settle(pilot)  # the view is built off the UI thread
        table = screen.query_one(FamilyTable)
        assert table.families[0].size == 4
        await pilot.press("s")
        assert screen.sort_key == "diameter"
        diameters = [f.diameter for f in table.families]
        assert diameters == sorted(diameters, reverse=True)
        await pilot.press("s")
        assert screen.sort_key == "name"
        names = [f.centre for f in table.families]
        assert names == sorted(names)
        await pilot.press("s")
        assert screen.sort_key == "newest"
        await pilot.press("1")
        assert screen.singletons
        assert sum(f.size for f in table.families) == 13
        await pilot.press("g")
        await settle(pilot)
        assert screen.mode == "star"
        assert sum(f.size for f in table.families) == 13
        await pilot.press("g")
        await settle(pilot)
        assert screen.mode == "chain"


async def test_clicking_a_column_header_sorts(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one(FamilyTable)
        before = sum(width + 2 for _spec, width in table.columns[:2])
        assert table.columns[2][0].key == "name"
        await pilot.click(FamilyTable, offset=(before + 3, 0))
        assert app.main_screen.sort_key == "name"
        await pilot.click(FamilyTable, offset=(1, 0))
        assert app.main_screen.sort_key == "size"
        await pilot.click(FamilyTable, offset=(before + 3, 2))  # a row: moves the cursor
        assert table.cursor_row == 1
        await pilot.click(FamilyTable, offset=(before + 3, 0))
        assert app.main_screen.sort_key == "name"


async def test_members_and_preview_follow_the_selection(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        families = screen.query_one(FamilyTable).families
        await pilot.press("down")
        await settle(pilot)
        members = screen.query_one(MemberTable)
        assert {m.id for m in members.members} == set(families[1].members)
        assert members.members[0].distance == 0
        preview = screen.query_one(Preview)
        assert preview.lines, "the selected member is previewed"
        assert screen.previewed == members.members[0].id


async def test_html_preview_text_or_source(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"dragonwell", "enter")
        await settle(pilot)
        preview = app.main_screen.query_one(Preview)
        assert preview.lines[0] == "Dragonwell green tea"
        assert not any("<p>" in line for line in preview.lines)
        await pilot.press("h")
        await settle(pilot)
        assert any("<p>" in line for line in preview.lines)


async def test_help_screen_and_command_palette(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.screen is app.main_screen
        await pilot.press("ctrl+p")
        await pilot.press(*"Singletons")
        await wait_for(
            pilot,
            lambda: any(
                "Singletons" in str(option.prompt)
                for option in app.screen.query_one(OptionList).options
            ),
        )
        await pilot.press("enter")
        await settle(pilot)
        assert app.main_screen.singletons


async def test_copy_path_puts_the_file_path_on_the_clipboard(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        selected = app.main_screen.selected_member()
        assert app.clipboard == str(corpus_dir / selected)


async def test_editor_runs_suspended_with_the_document_path(corpus_dir, make_app, monkeypatch):
    calls = []
    monkeypatch.setenv("EDITOR", "myeditor --flag")
    monkeypatch.setattr("ditto_tui.ui.app.subprocess.run", lambda cmd, check: calls.append(cmd))
    app = make_app(corpus_dir)
    suspended = []

    @contextlib.contextmanager
    def fake_suspend():
        suspended.append(True)
        yield

    monkeypatch.setattr(app, "suspend", fake_suspend)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        selected = app.main_screen.selected_member()
    assert suspended == [True]
    assert calls == [["myeditor", "--flag", str(corpus_dir / selected)]]


async def test_dragging_the_slider_moves_k(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        slider = app.main_screen.query_one(KSlider)
        positions = slider._positions()
        await pilot.mouse_down("#k-slider", offset=(positions[3], 0))
        await pilot.hover("#k-slider", offset=(positions[6], 0))
        await pilot.mouse_up("#k-slider", offset=(positions[6], 0))
        await settle(pilot)
        assert slider.value == 6
        assert app.main_screen.k == 6
        assert PRESS in family_sets(app)


async def test_resizing_restyles_the_screen_only_when_it_turns_narrow_or_wide(
    corpus_dir, make_app, monkeypatch
):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        chart = screen.query_one("#k-chart")
        assert screen.has_class("-wide") and not screen.has_class("-narrow")
        assert chart.display
        passes: list[int] = []
        restyle = app.stylesheet.update_nodes

        def counted(nodes, animate=False):
            nodes = list(nodes)
            if screen in nodes:  # a style pass over the whole screen
                passes.append(len(nodes))
            return restyle(nodes, animate=animate)

        monkeypatch.setattr(app.stylesheet, "update_nodes", counted)
        await pilot.resize_terminal(115, 40)
        await pilot.resize_terminal(110, 40)
        await settle(pilot)
        assert passes == []  # still wide: nothing to restyle
        await pilot.resize_terminal(109, 40)
        await settle(pilot)
        assert len(passes) == 1
        assert screen.has_class("-narrow") and not screen.has_class("-wide")
        assert chart.display  # (the view options are hidden, the chart stays)
        assert not screen.query_one("#view-options").display
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert len(passes) == 2
        assert screen.has_class("-wide") and not screen.has_class("-narrow")
        assert chart.display


async def test_a_focus_change_redraws_what_it_changes_not_the_whole_screen(
    corpus_dir, make_app, monkeypatch
):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        pane = screen.query_one("#families-pane")
        members = screen.query_one(MemberTable)
        updates = ScreenUpdates().watch(screen, monkeypatch)
        full, redrawn = updates.full, updates.redrawn
        assert screen.query_one(FamilyTable).has_focus
        await pilot.press("tab")
        await settle(pilot)
        assert members.has_focus and not full
        # the families pane's border (its focus colour) and the member list's cursor
        for region in (pane.region, members.region):
            assert any(region.overlaps(dirty) for dirty in redrawn)
        redrawn.clear()
        await pilot.press("shift+tab")
        await settle(pilot)
        assert screen.query_one(FamilyTable).has_focus and not full
        for region in (pane.region, members.region):
            assert any(region.overlaps(dirty) for dirty in redrawn)


async def test_an_app_that_exits_leaves_no_drawn_lines_behind(corpus_dir, make_app):
    """Textual memoizes each widget's background styles with the widget's line cache as
    key: once the app is gone, nothing it drew may stay alive through that memo."""
    from textual._styles_cache import StylesCache

    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert StylesCache.get_inner_outer.cache_info().currsize > 0  # the screen was drawn
    assert StylesCache.get_inner_outer.cache_info().currsize == 0


async def test_a_new_pane_title_redraws_the_title_line_not_the_pane(
    corpus_dir, make_app, monkeypatch
):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        pane = screen.query_one("#families-pane")
        title = pane.border_title
        before = pane.render_lines(Region(0, 0, pane.outer_size.width, pane.outer_size.height))
        updates = ScreenUpdates().watch(screen, monkeypatch)
        await pilot.press("]")  # k=4: the title says so
        await settle(pilot)
        assert pane.border_title != title and "k=4" in pane.border_title
        assert not updates.full
        top, side = pane.region.y, pane.region.x  # the title's line, the left border
        assert any(d.contains(side, top) for d in updates.redrawn)
        assert not any(d.contains(side, top + 5) for d in updates.redrawn)
        # the title line on screen is the new one, the other lines are as they were
        drawn = pane.render_lines(Region(0, 0, pane.outer_size.width, pane.outer_size.height))
        assert "k=4" in drawn[0].text and drawn[1:] == before[1:]


async def test_the_control_bar_stands_apart_from_the_screen_in_every_theme(corpus_dir, make_app):
    """$boost is the faint contrast tint that Textual 7 gave every theme (Textual 8's is
    transparent in all but textual-dark): the control bar, like the cursor row of a list
    without focus, is drawn with it and stays apart from the background around it."""
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        controls = screen.query_one("#controls")
        for theme, boost in (
            ("textual-dark", "#FFFFFF0A"),
            ("textual-light", "#0000000A"),
            ("dracula", "#FFFFFF0A"),
            ("solarized-light", "#0000000A"),
        ):
            app.theme = theme
            await settle(pilot)
            assert app.get_css_variables()["boost"] == boost
            assert controls.background_colors[1] != screen.background_colors[1], theme


async def test_help_is_rendered_ahead_and_only_drawn_on_f1(corpus_dir, make_app, monkeypatch):
    """The help page is rendered in a worker once the scan ends, for the width it will have: `?`
    renders nothing, it draws the lines in sight (as fast as the notices screen)."""
    from ditto_tui.ui.screens.help import help_width
    from ditto_tui.ui.widgets.rendered_page import RenderedLines, RenderedPage

    app = make_app(corpus_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.help_lines.has(help_width(100)))
        rendered: list[int] = []
        render = RenderedLines._render

        def counted(self: RenderedLines, width: int):
            rendered.append(width)
            return render(self, width)

        monkeypatch.setattr(RenderedLines, "_render", counted)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.pause()
        page = app.screen.query_one(RenderedPage)
        assert page.content_size.width == help_width(100)
        assert rendered == []  # drawn from the lines rendered ahead
        assert "Main screen" in page.plain and "Words used here" in page.plain
        await pilot.press("escape")
        await pilot.resize_terminal(120, 40)  # a new width: rendered ahead again
        await wait_for(pilot, lambda: app.help_lines.has(help_width(120)))
        await pilot.press("question_mark")
        await pilot.pause()
        assert rendered == [help_width(120)]  # by the worker, before the key


def test_help_lists_find_and_go_to_line_for_compare():
    from ditto_tui.ui.screens.help import help_sections

    rows = dict(dict(help_sections())["Compare"])
    assert "find as you type" in rows["/"]
    assert "go to a line" in rows[": / ctrl+g"]
