"""A user on real-looking paths at 80 and 120 columns: one-line labels keep what matters,
lists show names and folders, words explain themselves, mail shows its subject, trivial
families say what they are, the member list sorts and filters, and scan options change in
the app."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.screens.help import HelpScreen
from ditto_tui.ui.screens.neighbours import NeighboursScreen
from ditto_tui.ui.screens.scan_options import ScanOptionsDialog
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.neighbour_table import NeighbourTable
from ditto_tui.ui.widgets.scan_progress import ScanProgress
from ditto_tui.ui.widgets.status_bar import StatusBar
from ditto_tui.ui.widgets.title_line import TitleLine

from .conftest import fix_mtimes, settle, wait_for

TEXT = (
    "This package was debianized by a maintainer long ago. The upstream authors are listed "
    "below, together with the licence under which the files are distributed. Permission is "
    "hereby granted, free of charge, to any person obtaining a copy of this software and "
    "associated documentation files, to deal in the software without restriction.\n"
)
DEEP_A = "usr/share/doc/libreoffice-help-common/help/en-US/text/shared/explorer/database/LangRef.txt"
DEEP_B = "usr/share/doc/libreoffice-help-en-gb/help/en-GB/text/shared/explorer/database/LangRef.txt"
LONG_ROOT = "/home/someone/Documents/archives/2026/customer-exports/mirror-of-usr-share-doc"
MAIL = (
    "Return-Path: <renee@example.org>\n"
    "Received: from relay.example.org (relay.example.org [192.0.2.7]) by mx.example.org "
    "with ESMTPS id 4Wz1; Tue, 3 Sep 2024 10:00:01 +0000\n"
    "From: Renée Dupont <renee@example.org>\nSubject: Quarterly heating report for the "
    "east wing\nDate: Tue, 3 Sep 2024 10:00:00 +0000\n\n"
)


def write(root: Path, rel: str, data: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def long_corpus(root: Path) -> Path:
    """Deep, long paths like /usr/share/doc; a pair of empty files; a maildir pair."""
    write(root, DEEP_A, TEXT)
    write(root, DEEP_B, TEXT.replace("long ago", "long, long ago"))
    write(root, "usr/share/doc/a-package/empty-changelog", b"")
    write(root, "usr/share/doc/b-package/empty-changelog", b"")
    write(root, "mail/cur/1700000000.1.host:2,S", MAIL + TEXT)
    write(root, "mail/cur/1700000001.2.host:2,S", MAIL.replace("east", "west") + TEXT)
    (root / "mail/new").mkdir()
    (root / "mail/tmp").mkdir()
    write(root, "notes/unrelated.txt", "Completely different words about gardening and soup.\n")
    fix_mtimes(root)
    return root


def families(app) -> FamilyTable:
    return app.main_screen.query_one(FamilyTable)


def members(app) -> MemberTable:
    return app.main_screen.query_one(MemberTable)


def row_of(app, doc_id: str) -> int:
    return next(i for i, f in enumerate(families(app).families) if doc_id in f.members)


async def select_family(pilot, doc_id: str) -> None:
    app = pilot.app
    families(app).move_cursor(row=row_of(app, doc_id))
    await settle(pilot)


# -- defect 2: one-line labels ---------------------------------------------------------------
async def test_status_line_keeps_k_grouping_watch_and_pipeline_at_80_columns(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    app.main_screen.root_label = LONG_ROOT
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.main_screen.query_one(StatusBar)
        # the figures of a real corpus (7,054 files of /usr/share/doc, watched)
        bar.show(replace(bar.status, documents=7054, skipped=1794, families=601, watch="watching"))
        await pilot.pause()
        line = bar.render_status().plain
        assert len(line) <= bar.content_size.width
        for part in ("k=3", "chain", "watching", "ditto/2", "7,054 docs", "601 fam"):
            assert part in line, line
        assert "…" in line  # the root lost its start, or parts were left out: it says so
        drawn = "".join(seg.text for seg in bar.render_line(0))
        assert "watching" in drawn  # drawn on the one line, not wrapped away


async def test_status_line_and_panel_title_agree_with_singletons_on(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        view = app.main_screen.view
        singles = len(view) - view.shown_multi
        assert singles > 0
        status = app.main_screen.query_one("#status").render_status().plain
        title = str(app.main_screen.families_pane.border_title)
        assert f"{view.multi} families + {singles} single" in status
        assert f"{view.multi} + {singles} single" in title


async def test_compare_header_shows_both_file_names(tmp_path, make_app):
    root = long_corpus(tmp_path / "c")
    for size in ((120, 40), (80, 24)):
        app = make_app(root)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            app.open_compare(DEEP_A, DEEP_B)
            await wait_for(pilot, lambda app=app: isinstance(app.screen, CompareScreen))
            await pilot.pause()
            line = app.screen.query_one("#compare-title", TitleLine).plain
            assert len(line) <= size[0] - 2
            assert line.startswith("A usr/share/doc/")
            assert line.count("LangRef.txt") == 2, line
            assert "⟷" in line and "B " in line


async def test_preview_header_keeps_kind_size_and_fingerprint(tmp_path, make_app):
    root = long_corpus(tmp_path / "c")
    for size in ((120, 40), (80, 24)):
        app = make_app(root)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await select_family(pilot, DEEP_A)
            doc_id = app.main_screen.selected_member()
            fp = f"{app.snapshot.fingerprint(doc_id):016x}"
            line = app.main_screen.query_one("#preview-title", TitleLine).plain
            width = app.main_screen.query_one("#preview-title").content_size.width
            assert len(line) <= width
            assert "text" in line and " B" in line, line
            if size[0] == 120:
                assert fp in line and "LangRef.txt" in line, line
            else:  # the fingerprint's start, and the file name's end
                assert fp[:8] + "…" in line and "Ref.txt" in line, line


# -- defect 8, names and folders -----------------------------------------------------------------
async def test_member_and_neighbour_lists_show_name_and_folder_using_the_width(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select_family(pilot, DEEP_A)
        table = members(app)
        keys = [spec.key for spec, _w in table.columns]
        assert "name" in keys and "folder" in keys
        assert {table.cell_text(i, "name") for i in range(2)} == {"LangRef.txt"}
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NeighboursScreen))
        near = app.screen.query_one(NeighbourTable)
        await wait_for(pilot, lambda: near.row_count >= 2)
        layout = near.columns
        used = sum(w + 2 for _s, w in layout)
        assert used == near.scrollable_content_region.width  # no blank cells at the right
        assert [s.label for s, _w in layout][:4] == ["Distance", "Similar", "Name", "Folder"]
        assert near.cell_text(0, "name") == "LangRef.txt"
        assert dict((s.key, w) for s, w in layout)["modified"] == 16


async def test_neighbours_modified_is_readable_at_80_columns(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await select_family(pilot, DEEP_A)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NeighboursScreen))
        near = app.screen.query_one(NeighbourTable)
        await wait_for(pilot, lambda: near.row_count >= 2)
        widths = dict((s.key, w) for s, w in near.columns)
        assert widths.get("modified", 0) >= 10  # at least the whole date
        line = "".join(seg.text for seg in near.render_line(1))
        assert "2025-06-" in line


# -- words that explain themselves -------------------------------------------------------------
async def test_column_names_and_similarity_say_what_they_are(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        labels = [s.label for s, _w in families(app).columns]
        assert labels[:3] == ["Members", "Diameter", "Representative"]
        await select_family(pilot, DEEP_A)
        table = members(app)
        labels = [s.label for s, _w in table.columns]
        assert "To rep." in labels and "Similar" in labels and "Size" not in labels
        assert table.cell_text(0, "similarity") == "100.00%"


async def test_help_explains_the_terms(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        from ditto_tui.ui.widgets.rendered_page import RenderedPage

        text = " ".join(app.screen.query_one(RenderedPage).plain.split())  # as one line
        for term in ("Chain", "Star", "Diameter", "Distance to the representative",
                     "Index blocks", "k chart", "To rep."):
            assert term in text


# -- mail, notes ------------------------------------------------------------------------------
async def test_mail_family_shows_subject_and_sender_as_its_excerpt(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = families(app)
        row = row_of(app, "mail/cur/1700000000.1.host:2,S")
        await wait_for(pilot, lambda: table.cell_text(row, "excerpt") != "")
        text = table.cell_text(row, "excerpt")
        assert "Quarterly heating report" in text and "Renée Dupont" in text
        assert "Received" not in text


async def test_trivial_families_say_what_they_are(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = families(app)
        row = row_of(app, "usr/share/doc/a-package/empty-changelog")
        assert table.cell_text(row, "excerpt") == "◆ empty files"
        await select_family(pilot, "usr/share/doc/a-package/empty-changelog")
        assert "empty files" in str(members(app).border_title)


# -- member list: sort and filter ------------------------------------------------------------
def big_family(root: Path) -> Path:
    for i in range(40):
        write(root, f"dir{i % 4}/copy-{i:02d}.txt", TEXT + f"copy {i}\n" + "x" * i)
    fix_mtimes(root)
    return root


async def test_member_list_sorts_by_any_column_and_filters(tmp_path, make_app):
    app = make_app(big_family(tmp_path / "c"), k=8)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # to the member list
        table = members(app)
        assert app.focused is table
        assert table.row_count == 40  # the whole family
        await pilot.press("s")  # distance -> name
        await settle(pilot)
        names = [m.id.rsplit("/", 1)[1] for m in table.members]
        assert names == sorted(names)
        await pilot.press("s", "s")  # -> folder -> file size
        await settle(pilot)
        sizes = [m.size for m in table.members]
        assert sizes == sorted(sizes, reverse=True)
        assert app.main_screen.k == 8  # `s` sorted the members, not the families
        await pilot.press("slash")
        await pilot.press(*"dir3")
        await settle(pilot)
        assert table.row_count == 10
        assert all(m.id.startswith("dir3/") for m in table.members)
        assert "10 match" in str(table.border_title)
        await pilot.press("escape")
        await settle(pilot)
        assert table.row_count == 40 and app.focused is table


async def test_clicking_a_member_header_sorts_by_it(tmp_path, make_app):
    app = make_app(big_family(tmp_path / "c"), k=8)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = members(app)
        x = 0
        for spec, width in table.columns:
            if spec.key == "name":
                break
            x += width + 2
        await pilot.click("#members", offset=(x + 1, 0))
        await settle(pilot)
        assert table.sort_key == "name"
        names = [m.id.rsplit("/", 1)[1] for m in table.members]
        assert names == sorted(names)


# -- scan options in the app -----------------------------------------------------------------
async def test_scan_options_dialog_rescans_and_the_status_line_says_so(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        before = len(app.snapshot)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ScanOptionsDialog))
        box = app.screen.query_one("#min-size")
        box.value = "1k"
        await pilot.click("#skip-empty")
        await pilot.click("#apply")
        await wait_for(pilot, lambda: not isinstance(app.screen, ScanOptionsDialog))
        await wait_for(pilot, lambda: app.session.options.min_size == 1024)
        await settle(pilot)
        assert app.session.options.skip_empty
        assert len(app.snapshot) < before  # the empty files and small notes are skipped now
        status = app.main_screen.query_one("#status").render_status().plain
        assert "min 1 KiB" in status and "no empty" in status


async def test_a_bad_minimum_size_is_explained_and_nothing_changes(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ScanOptionsDialog))
        app.screen.query_one("#min-size").value = "lots"
        await pilot.press("enter")
        assert isinstance(app.screen, ScanOptionsDialog)
        assert "not a size" in str(app.screen.query_one("#scan-options-error").render())
        await pilot.press("escape")
        assert app.session.options.min_size == 0


# -- layout does not jump -----------------------------------------------------------------------
async def test_scan_progress_does_not_push_the_panels_down(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        pane = app.main_screen.query_one("#families-pane")
        y = pane.region.y
        app.main_screen.scan_progressed(3, 10, 0.5)
        await pilot.pause()
        assert app.main_screen.query_one(ScanProgress).display
        assert pane.region.y == y
        assert pane.region.height == app.main_screen.query_one("#families-pane").region.height


async def test_preview_header_completes_when_its_document_becomes_known(tmp_path, make_app):
    """A warm start can preview a member before the snapshot lists its document (kind,
    size): the header (and the text/source choice) is redone when it does."""
    import dataclasses

    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await select_family(pilot, DEEP_A)
        detail = app.main_screen.detail
        doc_id = detail.selected_member()
        full = app.main_screen.snapshot
        detail.snapshot = dataclasses.replace(full, documents={})
        detail.show_preview(doc_id, force=True)
        title = app.main_screen.query_one("#preview-title", TitleLine)
        assert "text ·" not in title.plain
        detail.show_family(detail.family, full)
        await pilot.pause()
        assert "text · " in title.plain


async def test_scan_options_typed_size_and_enter(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ScanOptionsDialog))
        await pilot.press("backspace", "2", "k", "enter")
        await wait_for(pilot, lambda: app.session.options.min_size == 2048)
        await settle(pilot)
        assert "min 2 KiB" in app.main_screen.query_one("#status").render_status().plain


async def test_s_and_slash_sort_and_filter_families_when_the_member_list_has_no_focus(
    tmp_path, make_app
):
    app = make_app(big_family(tmp_path / "c"), k=8)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.focused is families(app)
        await pilot.press("s")
        await settle(pilot)
        assert app.main_screen.sort_key == "diameter"
        assert members(app).sort_key == "distance"
        await pilot.press("slash")
        assert app.focused is app.main_screen.query_one("#filter")


async def test_tab_skips_the_member_filter_box_unless_it_is_in_use(tmp_path, make_app):
    app = make_app(big_family(tmp_path / "c"), k=8)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("tab")
        assert app.focused is members(app)
        await pilot.press("slash", "d", "i", "r", "1", "tab")
        await settle(pilot)
        assert members(app).row_count == 10  # the filter stays
        assert app.focused is not app.main_screen.query_one("#member-filter")
        families(app).focus()
        await pilot.press("tab")
        assert app.focused is members(app)  # out of the tab order again


async def test_a_too_wide_chain_keeps_its_excerpt_and_marks_its_diameter() -> None:
    """A chain family far wider than k (here 12 bits at k=3) keeps its excerpt in the
    list; the hint to try star grouping is the ≫ after its diameter."""
    from ditto_tui.explore import MemorySource
    from ditto_tui.ui.app import DittoApp

    # a chain of 5 links of 3 bits: neighbours within k=3, the ends 15 bits apart
    fps = {f"chain-{i}.txt": (1 << (3 * i)) - 1 for i in range(6)}
    fps["pair-a.txt"], fps["pair-b.txt"] = 0xF0F0_0000_0000_0000, 0xF0F0_0000_0000_0001
    texts = {doc: f"Minutes of meeting {doc}: the harbour light needs a lens." for doc in fps}
    app = DittoApp(MemorySource(fps, texts=texts), watch=False, max_k=8, k=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = families(app)
        chain = row_of(app, "chain-0.txt")
        await wait_for(pilot, lambda: table.cell_text(chain, "excerpt") != "")
        assert table.cell_text(chain, "excerpt").startswith("Minutes of meeting")
        assert table.cell_text(chain, "diameter") == "15 ≫"
        pair = row_of(app, "pair-a.txt")
        assert table.cell_text(pair, "diameter") == "1"
        await select_family(pilot, "chain-0.txt")
        assert "try star grouping" in str(members(app).border_title)


async def test_status_line_keeps_the_document_count_at_80_columns(tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.main_screen.query_one(StatusBar)
        # a real review under way, watched: the progress and the family count give way first
        bar.show(replace(bar.status, documents=7054, skipped=1794, families=601,
                         watch="watching", review="312 of 601 reviewed"))
        await pilot.pause()
        line = bar.render_status().plain
        assert len(line) <= bar.content_size.width
        for part in ("7,054 docs", "k=3", "chain", "watching", "ditto/2"):
            assert part in line, line
        bar.show(replace(bar.status, marked=2))  # two marked: said too, the count stays
        await pilot.pause()
        line = bar.render_status().plain
        assert "7,054 docs" in line and "2 marked" in line, line
