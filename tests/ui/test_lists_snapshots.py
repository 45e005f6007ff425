"""Screenshots on deep, long paths (like /usr/share/doc) with mail and trivial families, at
80 and 120 columns, and of the scan options dialog, compared with reviewed baselines."""

from __future__ import annotations

from ditto_tui.ui.screens.scan_options import ScanOptionsDialog

from .conftest import settle, wait_for
from .test_labels_and_lists import LONG_ROOT, long_corpus


def steps(*keys: str, root_label: str = LONG_ROOT):
    async def run_before(pilot) -> None:
        pilot.app.main_screen.root_label = root_label
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


def test_long_paths_120x40(snap_compare, tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps("1"))


def test_long_paths_80x24(snap_compare, tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps("enter"))


def test_long_paths_compare_80x24(snap_compare, tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))

    async def run_before(pilot) -> None:
        await settle(pilot)
        pilot.app.open_compare(
            "usr/share/doc/libreoffice-help-common/help/en-US/text/shared/explorer/database/LangRef.txt",
            "usr/share/doc/libreoffice-help-en-gb/help/en-GB/text/shared/explorer/database/LangRef.txt",
        )
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_scan_options_dialog(snap_compare, tmp_path, make_app):
    app = make_app(long_corpus(tmp_path / "c"))

    async def run_before(pilot) -> None:
        await steps("o")(pilot)
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ScanOptionsDialog))
        box = pilot.app.screen.query_one("#min-size")
        box.cursor_blink = False  # a blinking cursor would make the picture depend on time
        await wait_for(pilot, lambda: pilot.app.focused is box)
        await settle(pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
