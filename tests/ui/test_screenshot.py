"""Palette -> Screenshot saves where the user can find it and says the full path, or why not."""

from __future__ import annotations

import os
from pathlib import Path

from textual.command import CommandList

from ditto_tui.ui import screenshot
from ditto_tui.ui.screenshot import screenshot_folder, screenshot_name, write_screenshot

from .conftest import settle, wait_for


def test_the_folder_is_downloads_else_here_else_the_cache(tmp_path):
    downloads, here, cache = tmp_path / "Downloads", tmp_path / "here", tmp_path / "cache"
    here.mkdir()

    def pick() -> Path:
        return screenshot_folder(
            downloads=lambda: str(downloads), cwd=lambda: str(here), cache=lambda: str(cache)
        )

    assert pick() == here  # no Downloads folder: the current folder
    downloads.mkdir()
    assert pick() == downloads
    downloads.rmdir()
    here.rmdir()  # nowhere to write: the cache folder
    assert pick() == cache


def test_a_screenshot_never_overwrites(tmp_path):
    first = write_screenshot("<svg/>", tmp_path / "new", "shot.svg")
    second = write_screenshot("<svg>2</svg>", tmp_path / "new", "shot.svg")
    assert first.name == "shot.svg" and second.name == "shot-2.svg"
    assert first.read_text() == "<svg/>"
    assert "/" not in screenshot_name("ditto-tui: a/b") and screenshot_name("x").endswith(".svg")


async def test_palette_screenshot_without_downloads_saves_here_and_says_where(
    corpus_dir, make_app, tmp_path, monkeypatch
):
    here = tmp_path / "work"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setattr(screenshot, "_downloads", lambda: str(tmp_path / "no-Downloads"))
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *"screenshot")
        commands = app.screen.query_one(CommandList)  # wait for the palette's search
        await wait_for(pilot, lambda: commands.highlighted is not None and "Screenshot" in str(
            commands.get_option_at_index(commands.highlighted).prompt))
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(here.glob("*.svg")))
        saved = next(here.glob("*.svg"))
        assert "<svg" in saved.read_text()
        await wait_for(pilot, lambda: any("Saved to" in n.message for n in app._notifications))
        message = next(n.message for n in app._notifications if "Saved to" in n.message)
        assert message == f"Saved to {saved.resolve()}"


async def test_a_screenshot_that_cannot_be_saved_says_why(corpus_dir, make_app, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.action_screenshot(path=os.fspath(blocker / "shots"))
        await wait_for(pilot, lambda: any("Could not" in n.message for n in app._notifications))
        message = next(n.message for n in app._notifications if "Could not" in n.message)
        assert str(blocker / "shots") in message and "Not a directory" in message
