"""No false state while the corpus loads (issue 33): until the view of the whole corpus
is painted, the status line says "loading" (never "watching" beside a count that is not
final) and the empty family list says "Loading…" (never "No families"). The view thread
is held here, as a large corpus holds it (a warm start of 100,000 documents computes its
listing for a second after the scan ended)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from ditto_tui.explore import MemorySource, view_builder
from ditto_tui.ui.app import DittoApp
from ditto_tui.ui.widgets.status_bar import StatusBar

from .conftest import settle, three_member_families, wait_for


def families(n: int) -> dict[str, int]:
    return three_member_families(n, seed=5)


@pytest.fixture
def hold_views(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Callable[[], bool]], threading.Event]]:
    """``hold_views(when)``: the view thread waits before each view it builds while
    ``when()`` holds, until the event returned is set (set at the end in any case)."""
    released: list[threading.Event] = []
    build = view_builder.build_view

    def hold(when: Callable[[], bool]) -> threading.Event:
        release = threading.Event()
        released.append(release)

        def held(*args, **kwargs):
            if when():
                release.wait(30)
            return build(*args, **kwargs)

        monkeypatch.setattr(view_builder, "build_view", held)
        return release

    yield hold
    for release in released:
        release.set()


def status_line(app: DittoApp) -> str:
    return app.main_screen.query_one(StatusBar).render_status().plain


async def test_before_the_first_view_the_list_and_status_say_loading(
    corpus_dir, make_app, hold_views
):
    app = make_app(corpus_dir, watch=True)
    release = hold_views(lambda: True)  # no view until released
    async with app.run_test(size=(140, 40)) as pilot:
        screen = app.main_screen
        table = screen.families_pane.table
        await wait_for(
            pilot, lambda: not app.scanning and app.session.watch_state == "watching"
        )
        await wait_for(pilot, lambda: len(screen.snapshot) > 0)
        assert screen.view is None
        assert table.placeholder == "Loading…"
        assert screen.query_one(StatusBar).status.watch == "loading"
        assert "watching" not in status_line(app)
        release.set()
        await settle(pilot)
        assert screen.view is not None and screen.view.multi > 0
        assert screen.query_one(StatusBar).status.watch == "watching"
        assert "watching" in status_line(app)


async def test_after_the_scan_the_partial_view_is_not_called_final(hold_views):
    corpus = families(40)
    source = MemorySource(corpus, batch=20, delay=0.3)
    app = DittoApp(source, root="memory", watch=True)
    # views of the running scan come; the one after it ended waits
    release = hold_views(lambda: not app.explorer.scanning and len(app.explorer.snapshot) > 0)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = app.main_screen
        await wait_for(pilot, lambda: screen.view is not None and screen.view.multi > 0,
                       timeout=30)
        await wait_for(pilot, lambda: not app.scanning and source.watch_state == "watching",
                       timeout=30)
        await wait_for(pilot, lambda: len(screen.snapshot) == len(corpus))
        partial = screen.view  # built while the scan ran (its families may be all, or not)
        assert partial is not None
        status = screen.query_one(StatusBar).status
        assert status.watch == "loading"
        assert "watching" not in status_line(app)
        release.set()
        await settle(pilot, timeout=30)
        assert screen.view is not None and screen.view.multi == 40
        assert screen.query_one(StatusBar).status.watch == "watching"
