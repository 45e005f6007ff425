"""The family filter says when nothing matches, and shows which members matched: marked,
the cursor on the first of them (even past row 500 of a large family), n to the next."""

from __future__ import annotations

from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.member_table import MemberTable

from .conftest import settle, wait_for

TEXT = (
    "Terms of use. The service is offered as it is, without warranty of any kind. "
    "You may copy and share the documents for any purpose, keeping this notice. "
) * 6


async def test_no_match_names_the_filter(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"qqzz")
        await settle(pilot)
        table = app.main_screen.query_one(FamilyTable)
        assert not table.families
        drawn = "\n".join(table.render_line(y).text for y in range(1, 5))
        assert "No family matches 'qqzz'." in drawn
        assert "Singletons hidden: 1 shows them." in drawn and "ctrl+u" in drawn
        assert "raise k" not in drawn  # not the hint for an empty corpus view


async def test_matching_members_are_marked_and_reached_past_row_500(tmp_path, make_app):
    root = tmp_path / "big"
    root.mkdir()
    for i in range(3200):
        (root / f"a-{i:04d}.txt").write_text(TEXT)
    for i in (1, 2, 3):
        (root / f"zz-target-{i}.txt").write_text(TEXT)
    (root / "other.txt").write_text("something else entirely, a note about boats and tides\n")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, timeout=240)
        screen = app.main_screen
        await pilot.press("/", *"target", "enter")
        await settle(pilot)
        families = screen.query_one(FamilyTable).families
        assert [f.size for f in families] == [3203]
        members = screen.query_one(MemberTable)
        await wait_for(pilot, lambda: len(members.members) == 3203)
        await wait_for(pilot, lambda: screen.selected_member() == "zz-target-1.txt")
        assert members.cursor_row == 3200  # the first match, far past row 500
        assert members.cell_text(3200, "mark") == "»"
        assert members.cell_text(0, "mark") == " "
        assert "1 of 3 members match the filter" in members.border_subtitle
        assert screen.previewed == "zz-target-1.txt"
        members.focus()
        await pilot.press("full_stop")
        assert screen.selected_member() == "zz-target-2.txt"
        assert "2 of 3" in members.border_subtitle
        await pilot.press("full_stop", "full_stop")  # past the last: round to the first
        assert screen.selected_member() == "zz-target-1.txt"
        await pilot.press("comma")  # back: round to the last
        assert screen.selected_member() == "zz-target-3.txt"
        await pilot.press("home", "full_stop")
        assert screen.selected_member() == "zz-target-1.txt"
        # (in the member list `/` filters the members: ctrl+f is the family filter there)
        await pilot.press("ctrl+f", "ctrl+u", "enter")  # no filter: no » marks
        await settle(pilot)
        assert members.cell_text(3200, "mark") == " "
        assert members.border_subtitle == ""


async def test_the_member_found_by_the_filter_stays_through_later_views(corpus_dir, make_app):
    app = make_app(corpus_dir, k=6)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"draft", "enter")
        await settle(pilot)
        screen = app.main_screen
        assert screen.selected_member() == "press/tidewell-2.0-draft.txt"
        await pilot.press("s", "1")  # new views of the same family: the match stays
        await settle(pilot)
        assert screen.selected_member() == "press/tidewell-2.0-draft.txt"


async def test_a_filter_key_matching_the_same_members_does_not_redraw_them(
    corpus_dir, make_app, monkeypatch
):
    app = make_app(corpus_dir, k=6)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"draf")
        await settle(pilot)
        screen = app.main_screen
        members = screen.query_one(MemberTable)
        assert screen.selected_member() == "press/tidewell-2.0-draft.txt"
        drawn: list[int] = []
        draw = MemberTable.render_line

        def counted(table, y):
            drawn.append(y)
            return draw(table, y)

        monkeypatch.setattr(MemberTable, "render_line", counted)
        await pilot.press("t")  # "draft": the same member matches
        await settle(pilot)
        assert screen.pattern == "draft"
        assert drawn == []
        row = next(i for i, m in enumerate(members.members) if m.id == screen.selected_member())
        assert members.cell_text(row, "mark") == "»"
        await pilot.press("ctrl+u")  # no filter: no member is marked any more
        await settle(pilot)
        assert screen.pattern == ""
        row = next(i for i, m in enumerate(members.members) if m.id == "press/tidewell-2.0-draft.txt")
        assert members.cell_text(row, "mark") == " "
        assert drawn  # and the list was redrawn without the mark
