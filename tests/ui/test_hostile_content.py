"""Markup, ANSI escapes and control characters in documents and names display literally."""

from __future__ import annotations

from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.preview import Preview
from ditto_tui.ui.widgets.side_by_side import SideBySideDiff

from .conftest import settle

HOSTILE_NAME = "weird/[bold red]markup name.txt"


def strip_texts(widget, rows: int) -> list[str]:
    return [widget.render_line(y).text for y in range(rows)]


async def test_hostile_document_and_name_show_literally(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"weird", "enter", "enter")
        await settle(pilot)
        screen = app.main_screen
        table = screen.query_one(FamilyTable)
        assert [set(f.members) for f in table.families] == [{HOSTILE_NAME, "weird/markup-copy.txt"}]
        assert table.cell_text(0, "name") in (HOSTILE_NAME, "weird/markup-copy.txt")
        assert table.cell_text(0, "excerpt").startswith("Title: [bold red]not bold[/] and [link=")
        drawn = "\n".join(strip_texts(table, 3))
        assert "weird/[bold red]" in drawn and "Title: [bold red]" in drawn

        members = screen.query_one(MemberTable)
        assert "[bold red]markup name.txt" in [members.cell_text(i, "name") for i in range(2)]
        assert members.cell_text(0, "folder") == "weird"
        member_lines = "\n".join(strip_texts(members, 4))
        assert "[bold red]markup name.txt" in member_lines

        preview = screen.query_one(Preview)
        shown = "\n".join(strip_texts(preview, 6))
        assert "Title: [bold red]not bold[/] and [link=http://x]no link[/link]" in shown
        assert "\\x1b[31mred via ANSI\\x1b[0m and a bell\\x07 and SOH\\x01 here" in shown
        assert "\x1b" not in shown and "\x07" not in shown
        for y in range(6):
            for segment in preview.render_line(y):
                assert segment.style is None or not segment.style.link

        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        view = app.screen.query_one(SideBySideDiff)
        diff_text = "\n".join(strip_texts(view, 8))
        assert "[bold red]not bold[/]" in diff_text
        assert "\\x1b[31m" in diff_text
        assert "\x1b" not in diff_text
        title = app.screen.query_one("#compare-title").render()
        assert "[bold red]markup name.txt" in str(title)


async def test_skipped_files_are_listed_with_their_reasons(tmp_path, make_app):
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "fine.txt").write_text("an ordinary document about tides and harbours")
    (root / "logo.bin").write_bytes(b"\x89PNG\x00\x00\x01")
    (root / "tab\there [red]x[red].txt").write_text("a name with a tab and markup")
    (root / "pipe").symlink_to("/etc/hostname")  # leaves the folder
    app = make_app(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("exclamation_mark")
        await pilot.pause()
        screen = app.screen
        table = screen.query_one("#skipped")
        rows = [[cell.plain for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert rows == [
            ["logo.bin", "binary file"],
            ["pipe", "symlink leaves the folder"],
        ]
        title = screen.query_one("#skipped-title").render_line(0).text
        assert title.startswith("2 skipped files")
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main_screen
        await pilot.press("1")  # singletons on: the tab in the name is shown escaped
        await settle(pilot)
        names = [f.centre for f in app.main_screen.query_one(FamilyTable).families]
        assert "tab\there [red]x[red].txt" in names
        table = app.main_screen.query_one(FamilyTable)
        drawn = "\n".join(strip_texts(table, 4))
        assert "x[red].txt" in drawn  # cut in the middle: the file name's end stays
        assert "tab\\there [red]x[red].txt" in [table.cell_text(i, "name") for i in range(table.row_count)]
