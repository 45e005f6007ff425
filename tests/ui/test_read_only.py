"""A read-only explorer (``--read-only``, ``ditto-tui serve --read-only``): every decision,
action, undo, keep rule and export is refused with one clear notice and opens no dialog;
in a browser session opening a document in a program is not offered; screenshots go to
the folder the server names."""

from __future__ import annotations

import contextlib
import subprocess

import pytest

from ditto_tui.explore.policy import SessionPolicy
from ditto_tui.ui.app import DittoApp
from ditto_tui.ui.screens.main import MainScreen
from ditto_tui.ui.widgets.status_bar import StatusBar

from .conftest import settle, wait_for
from .test_review_flow import make_corpus, open_app


@pytest.fixture
def places(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("DITTO_TUI_TRASH_DIR", str(tmp_path / "trash"))
    root = tmp_path / "corpus"
    make_corpus(root)
    return root, cache


@pytest.fixture
def sessions():
    opened: list = []
    yield opened
    for s in opened:
        s.close()


def refusals(app: DittoApp) -> list[str]:
    return [n.message for n in app._notifications if "read-only" in n.message]


#: Each key that changes something, and the words of its refusal.
REFUSED = [
    ("k", "decisions are not recorded"), ("d", "decisions are not recorded"),
    ("N", "decisions are not recorded"), ("D", "decisions are not recorded"),
    ("r", "decisions are not recorded"), ("i", "decisions are not recorded"),
    ("I", "decisions are not recorded"), ("R", "decisions are not recorded"),
    ("A", "no file is trashed, moved or linked"), ("u", "nothing is undone"),
    ("x", "nothing is exported"),
]


async def test_each_change_is_refused_with_a_notice_and_no_dialog(places, sessions):
    root, cache = places
    app = open_app(root, cache, sessions, policy=SessionPolicy(read_only=True))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert screen.selected_member() is not None
        assert "reviewed · read-only" in str(screen.query_one(StatusBar).render())
        for count, (key, words) in enumerate(REFUSED, 1):
            await pilot.press(key)
            await wait_for(pilot, lambda count=count: len(refusals(app)) >= count)
            await pilot.pause()
            assert len(refusals(app)) == count and words in refusals(app)[-1], key
            assert isinstance(app.screen, MainScreen), key  # no dialog opened
        await settle(pilot)
        assert dict(screen.review.decisions) == {} and not screen.review.reviewed
        store = app.explorer.review_store
        assert store is not None and store.decision_records() == []


async def test_the_same_keys_record_when_not_read_only(places, sessions):
    root, cache = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        member = app.main_screen.selected_member()
        await pilot.press("d")
        await wait_for(pilot, lambda: app.main_screen.review.decision(member) == ("duplicate", False))
        assert refusals(app) == []
        assert "read-only" not in str(app.main_screen.query_one(StatusBar).render())


@pytest.mark.parametrize("web", [False, True])
async def test_a_browser_session_does_not_offer_the_editor(places, sessions, monkeypatch, web):
    root, cache = places
    ran: list[list[str]] = []
    monkeypatch.setattr(DittoApp, "is_web", property(lambda _self: web))
    monkeypatch.setattr(subprocess, "run", lambda command, **_kw: ran.append(command))
    monkeypatch.setattr(DittoApp, "suspend", lambda _self: contextlib.nullcontext())
    monkeypatch.setenv("EDITOR", "my-editor")
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert screen.check_action("open_external", ("EDITOR",)) is (not web)
        await pilot.press("e")
        await settle(pilot)
        assert bool(ran) is (not web)
        if not web:
            assert ran[0][0] == "my-editor"


async def test_screenshots_go_to_the_folder_given_and_the_notice_says_where(
    places, sessions, tmp_path, monkeypatch
):
    root, cache = places
    shots = tmp_path / "shots"
    monkeypatch.setattr(DittoApp, "is_web", property(lambda _self: True))
    app = open_app(root, cache, sessions, screenshots=shots)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_screenshot()
        await wait_for(pilot, lambda: any(shots.glob("*.svg")))
        saved = next(shots.glob("*.svg"))
        await wait_for(pilot, lambda: any("Saved" in n.message for n in app._notifications))
        message = next(n.message for n in app._notifications if "Saved" in n.message)
        assert message == f"Saved on the server to {saved.resolve()}"
