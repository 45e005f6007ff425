"""The preview follows the file (issue 33): an edit that leaves the fingerprint as it was
still shows, at once, with the new size; coming back from the editor shows what was
written; and while another document is read the preview never shows the previous one's
text under the new heading."""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import threading
from pathlib import Path

import pytest

from ditto_tui.ui.widgets.preview import LOADING, Preview
from ditto_tui.ui.widgets.title_line import TitleLine

from .conftest import settle, wait_for

TEXT = "The quick brown fox jumps over the lazy dog near the river bank today\n"


@pytest.fixture
def pair(tmp_path: Path) -> Path:
    """A folder of two near-duplicates (one family) whose texts differ in case only (the
    same fingerprint), each with its own fixed modification time."""
    root = tmp_path / "pair"
    root.mkdir()
    (root / "a.txt").write_text(TEXT)
    (root / "b.txt").write_text(TEXT.replace("brown", "BROWN"))
    for index, name in enumerate(("a.txt", "b.txt")):
        stamp = 1_700_000_000 + index * 3600
        os.utime(root / name, (stamp, stamp))
    return root


def body(preview: Preview) -> str:
    return "\n".join(preview.lines)


def heading(screen) -> str:
    return screen.query_one("#preview-title", TitleLine).plain


@pytest.mark.parametrize(
    ("edit", "seen"),
    [
        (lambda text: text.replace("quick", "QUICK"), "QUICK"),  # the same size
        (lambda text: text + "\n\n\n\n", None),  # grown by what the pipeline ignores
    ],
    ids=["letters in another case", "blank lines appended"],
)
async def test_an_edit_that_keeps_the_fingerprint_shows_in_the_preview(
    pair: Path, make_app, edit, seen
):
    app = make_app(pair, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.session.watch_state == "watching")
        screen = app.main_screen
        preview = screen.query_one(Preview)
        await wait_for(pilot, lambda: bool(preview.lines))
        doc_id = screen.previewed
        assert doc_id is not None
        path = pair / doc_id
        fingerprint = app.snapshot.fingerprint(doc_id)
        old_lines = len(preview.lines)
        new = edit(path.read_text())
        path.write_text(new)

        if seen is not None:
            await wait_for(pilot, lambda: seen in body(preview), timeout=15)
        else:  # only blank lines: the preview has more lines, the heading the new size
            await wait_for(pilot, lambda: len(preview.lines) > old_lines, timeout=15)
        await settle(pilot)
        assert app.snapshot.fingerprint(doc_id) == fingerprint  # (the premise)
        assert f"{len(new.encode())} B" in heading(screen)
        assert app.snapshot.documents[doc_id].size == len(new.encode())


async def test_the_family_excerpt_follows_an_edit_that_keeps_the_fingerprint(pair, make_app):
    app = make_app(pair, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: app.session.watch_state == "watching")
        screen = app.main_screen
        centre = screen.selected_family().centre
        excerpts = screen.excerpt_reader.excerpts
        await wait_for(pilot, lambda: centre in excerpts)
        path = pair / centre
        path.write_text(path.read_text().replace("lazy", "LAZY"))
        await wait_for(pilot, lambda: "LAZY" in excerpts.get(centre, ""), timeout=15)


async def test_coming_back_from_the_editor_shows_what_was_written(pair, make_app, monkeypatch):
    # the "editor" changes letters in place (the fingerprint stays); nothing watches the folder
    script = "import sys, pathlib; p = pathlib.Path(sys.argv[1]); " \
        "p.write_text(p.read_text().replace('lazy', 'SLEEPY'))"
    monkeypatch.setenv("EDITOR", shlex.join([sys.executable, "-c", script]))
    app = make_app(pair, watch=False)
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)  # (no terminal to give away)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        preview = app.main_screen.query_one(Preview)
        await wait_for(pilot, lambda: "lazy" in body(preview))
        await pilot.press("e")
        await wait_for(pilot, lambda: "SLEEPY" in body(preview), timeout=10)


async def test_another_document_being_read_never_shows_the_previous_text(pair, make_app):
    app = make_app(pair, watch=False)
    session = app.session
    release = threading.Event()
    read_text = session.read_text

    def slow_read(doc_id: str, *, limit: int | None = None) -> str:
        if doc_id == slow:
            release.wait(20)  # a large document: read for seconds
        return read_text(doc_id, limit=limit)

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        preview = screen.query_one(Preview)
        await wait_for(pilot, lambda: bool(preview.lines))
        first = screen.previewed
        slow = "b.txt" if first == "a.txt" else "a.txt"
        session.read_text = slow_read
        try:
            screen.member_table.focus()
            await pilot.press("down")
            await wait_for(pilot, lambda: screen.previewed == slow)
            await pilot.pause()
            assert slow in heading(screen)
            # the previous document's text is gone at once: "loading…" until the text is read
            assert preview.reading  # render_line draws LOADING alone, whatever lines are kept
            assert preview.find_sides()[0] == [[]]  # and nothing of them is found
        finally:
            release.set()
        await wait_for(pilot, lambda: bool(preview.lines))
        assert (pair / slow).read_text().split()[2] in body(preview)  # brown, or BROWN


def test_a_loading_preview_draws_loading_alone() -> None:
    """While another document is read, the body is the loading line only, whatever text
    of the previous one is kept."""
    from textual.app import App

    class One(App[None]):
        def compose(self):
            yield Preview()

    async def run() -> None:
        app = One()
        async with app.run_test(size=(60, 10)) as pilot:
            preview = app.query_one(Preview)
            preview.show(["the previous document", "its second line"])
            preview.reading = True
            preview.refresh()
            await pilot.pause()
            painted = [preview.render_line(y).text.strip() for y in range(4)]
            assert painted == [LOADING, "", "", ""]

    import asyncio

    asyncio.run(run())
