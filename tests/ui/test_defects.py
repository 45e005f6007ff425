"""Defects from a day of real work, each shown fixed: a preview that failed while the scan
registered its document is read again (1); Home/End in the skipped-files list (3); no
wrong empty state while the first scan runs (4)."""

from __future__ import annotations

from textual.widgets import DataTable

from ditto_tui.explore import MemorySource
from ditto_tui.ui.app import DittoApp
from ditto_tui.ui.screens.skipped import SkippedScreen
from ditto_tui.ui.widgets.families_pane import FamiliesPane
from ditto_tui.ui.widgets.preview import Preview

from .conftest import settle, three_member_families, wait_for


class SlowSource(MemorySource):
    """Publishes its documents only when the scan ends (as a cold scan registers them
    late): a read before that fails, as it did on a real 7,000-file folder."""

    failures = 0

    def read_text(self, id: str, *, limit: int | None = None) -> str:
        try:
            return super().read_text(id, limit=limit)
        except KeyError:
            self.failures += 1
            raise OSError(f"cannot read: {id!r}") from None


def families(n: int) -> dict[str, int]:
    return three_member_families(n, seed=11)


async def test_a_preview_that_failed_during_the_scan_is_read_again():
    source = SlowSource(families(60), batch=30, delay=0.4)
    app = DittoApp(source, root="memory", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        preview = app.main_screen.query_one(Preview)
        await wait_for(pilot, lambda: source.failures > 0, timeout=30)  # it did fail
        await settle(pilot, timeout=30)
        await wait_for(pilot, lambda: bool(preview.lines), timeout=10)
        assert preview.lines[0].startswith("document ")
        assert not app.main_screen.detail.preview_control.failed


async def test_no_wrong_empty_state_while_the_first_scan_runs(monkeypatch):
    shown: list[str] = []
    original = FamiliesPane.show_view

    def recording(self, view, documents, excerpts, *, keep, placeholder):
        shown.append(placeholder if not len(view) else "<families>")
        return original(self, view, documents, excerpts, keep=keep, placeholder=placeholder)

    monkeypatch.setattr(FamiliesPane, "show_view", recording)
    source = MemorySource(families(40), batch=20, delay=0.5)
    app = DittoApp(source, root="memory", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.main_screen.families_pane.table
        await wait_for(pilot, lambda: bool(shown), timeout=30)
        assert shown[0] in ("Loading…", "<families>")
        if shown[0] == "Loading…":
            assert table.placeholder == "Loading…"
        await settle(pilot, timeout=30)
        assert shown[-1] == "<families>"
        wrong = [p for p in shown if p.startswith(("No families", "No documents"))]
        assert wrong == [], shown


async def test_home_and_end_in_the_skipped_files(tmp_path, make_app):
    root = tmp_path / "c"
    root.mkdir()
    for i in range(60):
        (root / f"bin-{i:02d}.dat").write_bytes(b"\x00\x01\x02" * 100)
    (root / "a.txt").write_text("a small text\n")
    app = make_app(root)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("!")
        assert isinstance(app.screen, SkippedScreen)
        table = app.screen.query_one(DataTable)
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1 == 59
        await pilot.press("home")
        assert table.cursor_row == 0
