"""Exporting the families as shown, pausing watching, and live updates from disk."""

from __future__ import annotations

import csv
import json
import os
import shutil

from textual.widgets import Input

from ditto_tui.ui.screens.export import ExportDialog
from ditto_tui.ui.widgets.family_table import FamilyTable
from ditto_tui.ui.widgets.member_table import MemberTable
from tests.report.htmlcheck import check_html

from .conftest import settle, wait_for


async def test_export_writes_csv_and_asks_before_overwriting(corpus_dir, make_app, tmp_path):
    dest = tmp_path / "families.csv"
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        assert isinstance(app.screen, ExportDialog)
        app.screen.query_one("#export-path", Input).value = str(dest)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main_screen
        rows = list(csv.DictReader(dest.open(encoding="utf-8")))
        assert {r["family"] for r in rows} == {"1", "2", "3"}
        assert all(r["k"] == "3" and r["mode"] == "chain" for r in rows)
        assert len(rows) == 6
        # same path again: the first enter only warns, the second overwrites
        dest.write_text("old", encoding="utf-8")
        await pilot.press("/", *"heating", "enter", "x")
        dialog = app.screen
        dialog.query_one("#export-path", Input).value = str(dest)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is dialog and dialog.confirm_overwrite
        assert dest.read_text(encoding="utf-8") == "old"
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main_screen
        rows = list(csv.DictReader(dest.open(encoding="utf-8")))
        assert {r["member"] for r in rows} == {
            "letters/heating-complaint.txt",
            "letters/heating-complaint-v2.txt",
        }


async def test_export_jsonl_after_choosing_the_format(corpus_dir, make_app, tmp_path):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.click("#fmt-jsonl")
        path_input = app.screen.query_one("#export-path", Input)
        assert path_input.value.endswith(".jsonl")
        path_input.value = str(tmp_path / "f.jsonl")
        await pilot.click("#export-ok")
        await settle(pilot)
    records = [json.loads(line) for line in (tmp_path / "f.jsonl").read_text().splitlines()]
    assert [r["size"] for r in records] == [2, 2, 2]
    assert all(r["members"][0]["distance"] == 0 for r in records)


async def test_export_an_html_report_of_the_families_as_shown(corpus_dir, make_app, tmp_path):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.click("#fmt-html")
        path_input = app.screen.query_one("#export-path", Input)
        assert path_input.value.endswith(".html")
        path_input.value = str(tmp_path / "families.html")
        await pilot.click("#export-ok")
        await wait_for(pilot, lambda: not isinstance(app.screen, ExportDialog))
    page = check_html((tmp_path / "families.html").read_text())  # valid, and only our script
    assert page.classes["section.family"] == 3 and page.classes["tr.member"] == 6
    assert page.tags["svg"] == 1  # the families-per-k chart


async def test_pause_and_resume_watching(corpus_dir, make_app):
    app = make_app(corpus_dir, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.session.watch_state == "watching")
        await pilot.press("w")
        assert app.session.watch_state == "paused"
        await pilot.pause()
        assert "paused" in app.main_screen.query_one("#status").render_status().plain
        await pilot.press("w")
        assert app.session.watch_state == "watching"


async def test_live_changes_update_the_lists_in_place(corpus_dir, make_app):
    app = make_app(corpus_dir, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.session.watch_state == "watching")
        screen = app.main_screen
        table = screen.query_one(FamilyTable)
        # select the shop family's second member; it must stay selected through changes
        await pilot.press("/", *"dragonwell", "enter", "enter", "down")
        screen.query_one(Input).value = ""  # clear the filter: the selection stays
        await settle(pilot)
        selected = screen.selected_member()
        assert selected is not None and selected.startswith("shop/")

        # a new file: a copy of the haiku makes a new family
        shutil.copy(corpus_dir / "notes" / "haiku.txt", corpus_dir / "notes" / "haiku-copy.txt")
        await wait_for(
            pilot,
            lambda: (
                {"notes/haiku.txt", "notes/haiku-copy.txt"}
                in [set(f.members) for f in table.families]
            ),
        )
        assert screen.selected_member() == selected
        messages = [n.message for n in app._notifications]
        assert any("1 new" in m and "1 new family" in m for m in messages), messages

        # a removal: the weird family loses a member and disappears (singletons hidden)
        os.remove(corpus_dir / "weird" / "markup-copy.txt")
        await wait_for(
            pilot, lambda: all("weird/markup-copy.txt" not in f.members for f in table.families)
        )
        assert len([f for f in table.families if f.centre.startswith("weird/")]) == 0

        # a modification: the lentil soup becomes a copy of the todo list
        (corpus_dir / "recipes" / "lentil-soup.txt").write_bytes(
            (corpus_dir / "notes" / "todo.txt").read_bytes()
        )
        await wait_for(
            pilot,
            lambda: (
                {"notes/todo.txt", "recipes/lentil-soup.txt"}
                in [set(f.members) for f in table.families]
            ),
        )
        assert screen.selected_member() == selected
        assert isinstance(screen.query_one(MemberTable).selected.id, str)


async def test_export_defaults_to_a_named_file_beside_the_corpus(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        value = app.screen.query_one("#export-path", Input).value
        assert value == str(corpus_dir.parent / "corpus-families-k3-chain.csv")
        assert os.path.isabs(value)


def test_export_folder_falls_back_when_beside_the_root_is_not_writable(tmp_path, monkeypatch):
    from ditto_tui.ui.screens import export

    docs = tmp_path / "Documents"
    docs.mkdir()
    monkeypatch.setattr("platformdirs.user_documents_dir", lambda: str(docs))
    monkeypatch.setattr(export.os, "access", lambda path, mode: False)
    assert export.default_path("jsonl", 2, "star", str(tmp_path / "c")) == str(
        docs / "c-families-k2-star.jsonl"
    )


async def test_changes_during_the_initial_scan_are_applied_after_it(corpus_dir, monkeypatch):
    """Watching starts before the scan: a file written after the scan walked its folder
    (while the scan still holds the session) is in the index right after the scan,
    without waiting for a reconcile (turned off here)."""
    import time

    from ditto_tui.core.fingerprint.pipeline import make_pipeline
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.ui.app import DittoApp

    session = CorpusSession(
        corpus_dir, make_pipeline(), use_cache=False, jobs=1, reconcile_every=None
    )
    original = session.scan

    def scan_then_write(**kwargs):
        with session._update_lock:  # the scan holds the session until it returns
            result = original(**kwargs)
            (corpus_dir / "notes" / "late.txt").write_text("written at the end of the scan\n")
            time.sleep(0.6)  # the watcher sees the event meanwhile
            return result

    monkeypatch.setattr(session, "scan", scan_then_write)
    app = DittoApp(session, root="corpus", watch=True)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: "notes/late.txt" in app.snapshot, timeout=10)
    finally:
        session.close()


async def test_notices_show_when_they_happen_and_stay_in_the_log(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.session.notices.append("Cannot watch /x with inotify (test); polling instead.")
        await wait_for(
            pilot, lambda: any("polling instead" in n.message for n in app._notifications)
        )
        await pilot.press("L")
        await pilot.pause()
        from ditto_tui.ui.screens.notices import NoticesScreen

        assert isinstance(app.screen, NoticesScreen)
        assert any("polling instead" in text for _t, _s, text in app.screen.notices)
        await pilot.press("escape")
        assert app.screen is app.main_screen


async def test_the_explorer_says_when_the_compiled_engine_is_missing(corpus_dir, make_app,
                                                                     monkeypatch):
    """Fingerprints from numpy although nobody asked: a notice says why and what to do."""
    from ditto_tui.core.fingerprint import engine

    monkeypatch.setattr(engine, "missing", lambda: "the compiled engine is not installed (test)")
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert any("compiled engine is not installed" in n.message for n in app._notifications)
        assert "the compiled engine is not installed (test)" in app.notices


async def test_home_and_end_in_the_member_list(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("]", "]")
        await settle(pilot)
        members = app.main_screen.query_one(MemberTable)
        members.focus()
        await pilot.press("end")
        assert members.cursor_row == len(members.members) - 1 > 0
        await pilot.press("home")
        assert members.cursor_row == 0


async def test_export_by_keyboard_alone(corpus_dir, make_app, tmp_path):
    """x, down twice to HTML, down to the path: a space typed there is a space, a blank
    path is refused with a message, enter writes HTML (the format highlighted), and the
    notices (L) keep where it went."""
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        dialog = app.screen
        assert isinstance(dialog, ExportDialog)
        formats = dialog.query_one("#export-format")
        path_input = dialog.query_one("#export-path", Input)
        assert dialog.focused is formats  # the focus starts on the format
        await pilot.press("down", "down")  # the arrows choose: HTML is chosen, not only lit
        assert dialog.fmt == "html" and path_input.value.endswith(".html")
        await pilot.press("down")  # past the last format: the path
        assert dialog.focused is path_input
        before = path_input.value
        await pilot.press("space")  # a space is typed, the path is not replaced
        assert path_input.value == before + " "
        await pilot.press("up")
        assert dialog.focused is formats
        await pilot.press("down")
        path_input.value = ""
        await pilot.press("enter")  # a blank path: refused, and it says so
        assert app.screen is dialog
        warning = str(dialog.query_one("#export-warning").render())
        assert "Give a path" in warning
        dest = tmp_path / "families.html"
        path_input.value = str(dest)
        await pilot.press("up", "enter")  # enter on the format exports too
        await wait_for(pilot, lambda: app.screen is app.main_screen)
        await wait_for(pilot, lambda: dest.exists())
        assert "<html" in dest.read_text(encoding="utf-8").lower()
        kept = [text for _t, _s, text in app.notice_log]
        assert kept == [f"Exported 3 families to {dest}"]
        await pilot.press("L")
        await settle(pilot)
        assert str(dest) in app.screen.query_one("#notices").get_row_at(0)[2].plain
