"""Marks belong to the family they were made in: a mark left in family A does not take
over `c` or `l` in family B, the status line counts the marks of the family on screen,
and `M` or esc in the member list clears them."""

from __future__ import annotations

from ditto_tui.ui.screens.chain_path import ChainPathScreen
from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.status_bar import StatusBar

from .conftest import settle


def status(app) -> str:
    return app.main_screen.query_one(StatusBar).render_status().plain


def checks(table: MemberTable) -> list[str]:
    return [table.cell_text(row, "mark") for row in range(len(table.members))]


async def test_a_mark_left_in_another_family_does_not_act_there(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        families = screen.table.families
        assert len(families) >= 2 and all(f.size == 2 for f in families[:2])
        family_a, family_b = families[0], families[1]
        members = screen.query_one(MemberTable)

        screen.table.focus()
        await pilot.press("enter")  # family A's members
        await settle(pilot)
        await pilot.press("space")
        marked = members.selected.id
        assert marked in family_a.members and screen.marked == [marked]
        assert checks(members).count("✓") == 1
        assert "1 marked" in status(app)

        screen.table.focus()
        await pilot.press("down")  # family B: A's mark does not act, nor count, here
        await settle(pilot)
        assert screen.selected_family().members == family_b.members
        assert screen.marked == [] and "marked" not in status(app)
        assert "✓" not in checks(members)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert {app.screen.left, app.screen.right} == set(family_b.members)
        await pilot.press("escape")
        await settle(pilot)
        members.focus()
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, ChainPathScreen)
        assert app.screen.target is None  # to B's representative, not to A's mark
        await pilot.press("escape")
        await settle(pilot)

        screen.table.focus()
        await pilot.press("up")  # back in A: its mark shows and acts again
        await settle(pilot)
        assert screen.marked == [marked] and "1 marked" in status(app)
        assert checks(members).count("✓") == 1


async def test_esc_in_the_member_list_and_M_clear_the_marks(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        members = screen.query_one(MemberTable)
        screen.table.focus()
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("space", "down", "space")
        assert len(screen.marked) == 2 and "2 marked" in status(app)
        assert checks(members) == ["✓", "✓"]
        await pilot.press("escape")  # marks there: esc clears them, the focus stays
        assert screen.marked == [] and "marked" not in status(app)
        assert checks(members) == [" ", " "] and members.has_focus
        await pilot.press("space")
        assert "1 marked" in status(app)
        await pilot.press("M")
        assert screen.marked == [] and "marked" not in status(app)
        await pilot.press("M")  # nothing marked: it says so
        assert any(n.message == "No document is marked in this family."
                   for n in app._notifications)


async def test_marking_in_another_family_replaces_the_marks_left_there(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        members = screen.query_one(MemberTable)
        screen.table.focus()
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("space", "down", "space")  # two in A
        screen.table.focus()
        await pilot.press("down", "enter")
        await settle(pilot)
        await pilot.press("space")  # one in B: A's two go, no "Mark replaced" notice
        assert screen.marked == [members.selected.id]
        assert screen.detail.marked == screen.marked
        assert not any(n.title == "Mark replaced" for n in app._notifications)
        screen.table.focus()
        await pilot.press("up")
        await settle(pilot)
        assert screen.marked == [] and "✓" not in checks(members)


def test_the_clear_marks_command_is_in_the_palette_and_the_help():
    from ditto_tui.ui.screens.help import help_sections
    from ditto_tui.ui.screens.main.keys import MAIN_KEYS

    binding = next(b for b in MAIN_KEYS if getattr(b, "action", "") == "clear_marks")
    assert binding.key == "M"
    rows = dict(help_sections()[0][1])
    assert "clear the marks" in rows["M"]
