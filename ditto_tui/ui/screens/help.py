"""HelpScreen: every key binding, per screen, generated from the bindings themselves."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

SECTIONS: list[tuple[str, str]] = [
    ("Main screen", "ditto_tui.ui.screens.main:MainScreen"),
    ("Compare", "ditto_tui.ui.screens.compare:CompareScreen"),
    ("Neighbours", "ditto_tui.ui.screens.neighbours:NeighboursScreen"),
]

EXTRA: dict[str, list[tuple[str, str]]] = {
    "Main screen": [
        ("tab / shift+tab", "move between slider, filter, families, members, preview"),
        ("← → (slider focused)", "change k; click or drag the slider with the mouse"),
        ("enter (families)", "go to the member list"),
        ("click a column header", "sort the families by that column"),
    ],
    "Compare": [("↑ ↓ pgup pgdn ← →", "scroll both sides together")],
    "Neighbours": [("enter", "compare the highlighted document with the origin")],
    "Everywhere": [
        ("ctrl+p", "command palette: every action by name"),
        ("f1 / ?", "this help"),
        ("ctrl+q", "quit"),
    ],
}


def _keys(binding: Binding) -> str:
    if binding.key_display:
        return binding.key_display
    names = {
        "left_square_bracket": "[",
        "right_square_bracket": "]",
        "slash": "/",
        "question_mark": "?",
        "space": "space",
        "escape": "esc",
    }
    return " / ".join(names.get(k, k) for k in binding.key.split(","))


def _load(path: str):
    module, name = path.split(":")
    return getattr(__import__(module, fromlist=[name]), name)


def help_text() -> Text:
    """The help page as one ``Text``."""
    text = Text()
    for title, path in SECTIONS:
        text.append(f"{title}\n", style="bold underline")
        for binding in _load(path).BINDINGS:
            assert isinstance(binding, Binding)
            text.append(f"  {_keys(binding):<22}", style="bold")
            text.append(f"{binding.description}\n")
        for keys, what in EXTRA.get(title, []):
            text.append(f"  {keys:<22}", style="bold")
            text.append(f"{what}\n")
        text.append("\n")
    text.append("Everywhere\n", style="bold underline")
    for keys, what in EXTRA["Everywhere"]:
        text.append(f"  {keys:<22}", style="bold")
        text.append(f"{what}\n")
    return text


class HelpScreen(ModalScreen[None]):
    """Modal list of key bindings; any of escape, q, ? or f1 closes it."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss(None)", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(help_text(), id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help").border_title = "Keys  (esc to close)"
