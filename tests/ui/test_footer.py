"""The key bar rebuilds only when the keys it shows change, and styles each key once."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button, Static
from textual.widgets._footer import FooterKey

from ditto_tui.ui.widgets.footer import Footer


class Keyed(Static, can_focus=True):
    BINDINGS = [("x", "noop", "Extra")]

    def action_noop(self) -> None:
        pass


class Bar(App[None]):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield Keyed("keyed", id="keyed")
        yield Footer()


def shown(app: App) -> list[str]:
    return [key.description for key in app.query(FooterKey)]


async def test_same_keys_keep_the_bar_and_new_keys_rebuild_it() -> None:
    app = Bar()
    async with app.run_test() as pilot:
        app.query_one("#one").focus()
        await pilot.pause()
        keys = list(app.query(FooterKey))
        assert "Quit" in shown(app) and "Extra" not in shown(app)
        app.query_one("#two").focus()  # same keys: the same widgets stay
        await pilot.pause()
        await pilot.pause()
        assert list(app.query(FooterKey)) == keys
        app.query_one("#keyed").focus()  # one more key: rebuilt
        await pilot.pause()
        await pilot.pause()
        assert "Extra" in shown(app) and "Quit" in shown(app)
        app.query_one("#one").focus()
        await pilot.pause()
        await pilot.pause()
        assert "Extra" not in shown(app)


async def test_each_key_starts_with_its_final_compact_style() -> None:
    app = Bar()
    restyled: list[object] = []
    update_styles = app.update_styles

    def count(node=None, **options) -> None:
        restyled.append(node)
        update_styles(node, **options)

    app.update_styles = count  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await pilot.pause()
        keys = list(app.query(FooterKey))
        assert keys and not any(isinstance(node, FooterKey) for node in restyled)
        assert all(not key.has_class("-compact") for key in keys[:-1])  # as the bar
        assert keys[-1].has_class("-command-palette", "-compact")  # as Textual draws it
        app.query_one(Footer).compact = True  # the keys stay bound to the bar
        await pilot.pause()
        assert all(key.has_class("-compact") for key in app.query(FooterKey))
