"""Screenshots of the review: decisions and progress on the main screen, the keep rules
preview, the actions dry run (fixed corpus, fixed mtimes, no watching)."""

from __future__ import annotations

import pytest

from .conftest import settle, wait_for


@pytest.fixture
def review_app(corpus_dir, make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("DITTO_TUI_TRASH_DIR", str(tmp_path / "trash"))
    return make_app(corpus_dir, review=True, review_dir=tmp_path / "cache")


def test_main_screen_with_decisions_and_progress(snap_compare, review_app):
    async def run_before(pilot) -> None:
        await settle(pilot)
        screen = pilot.app.main_screen
        for key in ("tab", "k", "down", "d", "down", "N", "r"):
            await pilot.press(key)
        await wait_for(pilot, lambda: screen.view is not None and screen.view.reviewed == 1)
        await settle(pilot)

    assert snap_compare(review_app, terminal_size=(120, 40), run_before=run_before)


def test_keep_rules_preview(snap_compare, review_app):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#scope").value = "all"
        screen.query_one("#rules").value = "newest, shortest-path"
        await pilot.pause()
        screen.do_preview()
        await wait_for(pilot, lambda: screen.preview is not None)
        await settle(pilot)

    assert snap_compare(review_app, terminal_size=(120, 40), run_before=run_before)


def test_actions_dry_run(snap_compare, review_app):
    async def run_before(pilot) -> None:
        await settle(pilot)
        screen = pilot.app.main_screen
        for key in ("tab", "k", "down", "d"):
            await pilot.press(key)
        await wait_for(pilot, lambda: len(screen.review.decisions) == 2)
        await pilot.press("A")
        await settle(pilot)
        actions = pilot.app.screen
        await wait_for(pilot, lambda: actions.targets is not None)
        actions.dry_run()
        await wait_for(pilot, lambda: actions.plan is not None)
        await settle(pilot)

    assert snap_compare(review_app, terminal_size=(120, 40), run_before=run_before)
