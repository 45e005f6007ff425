"""Screenshots of the explain panel on the compare screen (baselines in __snapshots__/)."""

from __future__ import annotations

from .conftest import settle
from .test_snapshots import steps


def test_compare_screen_explained(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    keys = ("/", *"heating", "enter", "c", "e")
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps(*keys))


def test_compare_screen_explained_80x24(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)

    async def run_before(pilot) -> None:
        await steps("/", *"heating", "enter", "c", "e")(pilot)
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_links_screen(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    keys = ("]", "]", "]", "/", *"press", "enter", "tab", "down", "down", "l")
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps(*keys))
