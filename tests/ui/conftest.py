"""Fixtures for the UI tests: the fixed corpus, an app factory and a way to wait until idle."""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.css.stylesheet import Stylesheet
from textual.widgets import Input

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.ui.app import DittoApp

DATA = Path(__file__).parent / "data" / "corpus"
BASE_MTIME = 1_750_000_000  # 2025-06-15 15:06:40 UTC


def fix_mtimes(root: Path) -> None:
    """Give every file a fixed, distinct modification time (hours apart, in name order)."""
    for index, path in enumerate(sorted(p for p in root.rglob("*") if p.is_file())):
        stamp = BASE_MTIME + index * 3600
        os.utime(path, (stamp, stamp))


@pytest.fixture(autouse=True, scope="session")
def css_parsed_once() -> Iterator[None]:
    """Every app of the session shares the parsed rules of each CSS source (test speed only).

    Each app parses the same CSS again (Textual caches it per stylesheet, i.e. per app):
    about a tenth of a UI test's start-up. The rules depend on the CSS, where it was read
    from, its scope and the theme's variables: all of them are the key. Textual shares
    these rule objects between parses in one app already, so they are never changed."""
    parsed: dict[tuple, list] = {}
    parse = Stylesheet._parse_rules

    def parse_once(self: Stylesheet, css: str, read_from: tuple[str, str],
                   is_default_rules: bool = False, tie_breaker: int = 0,
                   scope: str = "") -> list:
        key = (css, read_from, is_default_rules, tie_breaker, scope,
               tuple(sorted(self._variables.items())))
        rules = parsed.get(key)
        if rules is None:
            rules = parsed[key] = parse(self, css, read_from, is_default_rules, tie_breaker, scope)
        return rules

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Stylesheet, "_parse_rules", parse_once)
        yield


@pytest.fixture(autouse=True)
def steady_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Text boxes keep their cursor shown: a blink would make a screenshot depend on how
    long the machine took to get there (a loaded machine caught it half a second later)."""

    def shown(self: Input) -> None:
        self._cursor_visible = True

    monkeypatch.setattr(Input, "_toggle_cursor", shown)


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    """A private copy of the fixed corpus with deterministic mtimes."""
    root = tmp_path / "corpus"
    shutil.copytree(DATA, root)
    fix_mtimes(root)
    return root


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Callable[..., DittoApp]]:
    """``make_app(root, **options)``: a DittoApp over a fresh uncached session (closed after)."""
    sessions: list[CorpusSession] = []

    def factory(root: Path, **options) -> DittoApp:
        session = CorpusSession(root, make_pipeline(), use_cache=False, jobs=1)
        sessions.append(session)
        options.setdefault("watch", False)
        options.setdefault("root", "corpus")
        return DittoApp(session, **options)

    yield factory
    for session in sessions:
        session.close()


async def settle(pilot, timeout: float = 15.0) -> None:
    """Wait until the scan is over and no worker is running, then let messages drain.

    Quiet means so at three checks in a row, each after a pause: a pause lets the app
    process what is queued and returns only once the process (every thread of it) has
    been idle for a 20 ms window."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline:
        await pilot.pause()
        busy = (
            app.scanning
            or any(not w.is_finished for w in app.workers)
            or not app.main_screen.view_current()
        )
        quiet = 0 if busy else quiet + 1
        if quiet >= 3:
            await pilot.pause()
            return
    raise TimeoutError("the app did not settle")


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Poll ``condition`` while the app runs, after each pause (which returns once the
    process has been idle for 20 ms); TimeoutError if it never holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await pilot.pause()
        if condition():
            return
    raise TimeoutError("condition never held")


class ScreenUpdates:
    """Counts a screen's compositor updates: ``full`` (whole-screen repaints) and the
    regions ``redrawn`` by partial ones (set up with :meth:`watch`)."""

    def __init__(self) -> None:
        self.full: list[bool] = []
        self.redrawn: list = []

    def watch(self, screen, monkeypatch: pytest.MonkeyPatch) -> ScreenUpdates:
        compositor = screen._compositor
        render_full, render_partial = compositor.render_full_update, compositor.render_partial_update

        def counted_full(*args, **kwargs):
            self.full.append(True)
            return render_full(*args, **kwargs)

        def counted_partial(*args, **kwargs):
            self.redrawn.extend(compositor._dirty_regions)
            return render_partial(*args, **kwargs)

        monkeypatch.setattr(compositor, "render_full_update", counted_full)
        monkeypatch.setattr(compositor, "render_partial_update", counted_partial)
        return self


def three_member_families(n: int, seed: int) -> dict[str, int]:
    """``n`` families of three documents (``fNNN/m0..2.txt``) one bit from a random base
    each (drawn from ``seed``), far from one another."""
    rng = random.Random(seed)
    out = {}
    for f in range(n):
        base = rng.getrandbits(64)
        for m in range(3):
            out[f"f{f:03d}/m{m}.txt"] = base ^ (1 << m)
    return out
