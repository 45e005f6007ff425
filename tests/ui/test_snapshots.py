"""Screenshots of the main, compare, neighbours and help screens (fixed corpus, fixed mtimes,
no watching) compared with the reviewed baselines in __snapshots__/."""

from __future__ import annotations

from .conftest import settle


def steps(*keys: str):
    """A run_before that waits for the scan, presses ``keys`` and waits again."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


def test_main_screen_k3(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps())


def test_main_screen_k6_with_press_family(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps("]", "]", "]"))


def test_compare_screen_bits_and_side_by_side(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    keys = ("/", *"heating", "enter", "c", "n")
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps(*keys))


def test_compare_screen_hostile_content(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    keys = ("/", *"weird", "enter", "c")
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps(*keys))


def test_neighbours_screen(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    keys = ("]", "]", "]", "up", "enter", "n")
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps(*keys))


def test_help_screen(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps("f1"))


def test_main_screen_80x24(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps("down"))


def test_compare_screen_80x24(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    keys = ("/", *"heating", "enter", "c")
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps(*keys))


def test_main_screen_light_theme(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)

    async def run_before(pilot) -> None:
        pilot.app.theme = "textual-light"
        await steps("down", "down")(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_compare_screen_find_80x24(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)
    keys = ("/", *"heating", "enter", "c", "slash", *"november", "enter", "n")
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps(*keys))


def test_main_screen_filter_marks_matching_members(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir, k=6)
    keys = ("/", *"draft", "enter")
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps(*keys))


def test_preview_find_with_hostile_text(snap_compare, corpus_dir, make_app):
    app = make_app(corpus_dir)

    async def run_before(pilot) -> None:
        await steps("/", *"weird", "enter")(pilot)
        pilot.app.main_screen.query_one("#preview").focus()
        await steps("slash", *"[bold red]")(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


def test_main_screen_family_tree_with_a_chosen_node(snap_compare, corpus_dir, make_app):
    """k=6, the press family's tree beside its members; its first sub-family chosen."""
    app = make_app(corpus_dir, k=6)
    assert snap_compare(app, terminal_size=(120, 40), run_before=steps("t", "down", "enter"))


def test_main_screen_family_tree_80x24(snap_compare, corpus_dir, make_app):
    """At 80 columns the tree stands above the members; a name with markup in it is
    shown literally."""
    app = make_app(corpus_dir, k=6)
    keys = ("/", *"markup", "enter", "t")
    assert snap_compare(app, terminal_size=(80, 24), run_before=steps(*keys))
