"""HelpScreen: every key binding, per screen, generated from the bindings themselves, then
the words the explorer uses, explained (:data:`~ditto_tui.core.explain.glossary.GLOSSARY` and what
the screen's own labels mean), rendered as Markdown.

The page is rendered once per width (:func:`help_lines`; the app renders it ahead in a
worker at start and after a resize, for the width :func:`help_width` gives) and drawn a
visible line at a time (:class:`~ditto_tui.ui.widgets.rendered_page.RenderedPage`), so
``?`` opens it as fast as any other screen.
"""

from __future__ import annotations

from rich.console import Group
from rich.markdown import Markdown
from rich.table import Table
from rich.text import Text
from rich.theme import Theme
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen

from ditto_tui.core.explain.glossary import GLOSSARY
from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.screens.main.keys import MAIN_KEYS
from ditto_tui.ui.screens.neighbours import NeighboursScreen
from ditto_tui.ui.widgets.rendered_page import RenderedLines, RenderedPage

#: (title, the screen's key bindings) in the order the help shows them
SECTIONS: list[tuple[str, list[BindingType]]] = [
    ("Main screen", MAIN_KEYS),
    ("Compare", CompareScreen.BINDINGS),
    ("Neighbours", NeighboursScreen.BINDINGS),
]

EXTRA: dict[str, list[tuple[str, str]]] = {
    "Main screen": [
        ("tab / shift+tab", "move between slider, filter, families, members, preview"),
        ("← → (slider focused)", "change k; click or drag the slider with the mouse"),
        ("enter (families)", "go to the member list"),
        ("click a column header", "sort the families (or members) by that column"),
        ("s (members focused)", "sort the members: distance, name, folder, file size, time"),
        ("/ (members focused)", "show only the members matching a text; esc clears it"),
        ("↑ ↓ → ← space (tree)", "move in the family tree: → opens a node, ← closes it or goes up"),
        ("enter (tree)", "show only the members of that node (the root: all of them)"),
        ("esc (tree)", "show all the members again; with no node chosen, close the tree"),
        ("/ : (preview focused)", "find in the preview, go to a line (as in Compare)"),
    ],
    "Compare": [
        ("↑ ↓ pgup pgdn ← →", "scroll both sides together"),
        ("/", "find as you type in both sides (lower case matches any case; every match "
              "highlighted, \"3 of 17\"); n / N next/previous match, esc ends the find"),
        (": / ctrl+g", "go to a line: 120 goes to line 120 of A, b120 to line 120 of B"),
    ],
    "Neighbours": [("enter", "compare the highlighted document with the origin")],
    "Everywhere": [
        ("ctrl+p", "command palette: every action by name"),
        ("f1 / ?", "this help"),
        ("ctrl+q", "quit"),
    ],
}


def _keys(binding: Binding) -> str:
    """Every key of a binding, as the user types it."""
    names = {
        "left_square_bracket": "[",
        "right_square_bracket": "]",
        "slash": "/",
        "minus": "-",
        "plus": "+",
        "equals_sign": "=",
        "question_mark": "?",
        "exclamation_mark": "!",
        "space": "space",
        "escape": "esc",
    }
    return " / ".join(names.get(k, k) for k in binding.key.split(","))


def _section(title: str, rows: list[tuple[str, str]]) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 2), expand=True)
    table.title = Text(title, style="bold underline")
    table.title_justify = "left"
    table.add_column(width=22, no_wrap=True, style="bold")
    table.add_column(ratio=1)
    for keys, what in rows:
        table.add_row(Text(keys), Text(what))
    return table


def help_sections() -> list[tuple[str, list[tuple[str, str]]]]:
    """(title, [(keys, what they do)]) for each screen, from the bindings themselves."""
    sections = []
    for title, bindings in SECTIONS:
        rows = [(_keys(b), b.tooltip or b.description) for b in bindings if isinstance(b, Binding)]
        sections.append((title, rows + EXTRA.get(title, [])))
    sections.append(("Everywhere", EXTRA["Everywhere"]))
    return sections


def help_renderable() -> Group:
    """The keys: one two-column table per section."""
    parts: list[Table | Text] = []
    for title, rows in help_sections():
        if parts:
            parts.append(Text(""))
        parts.append(_section(title, rows))
    return Group(*parts)


#: the Markdown's styles: plain emphasis on the panel's colours (Rich's defaults colour
#: headings and code for a bare terminal)
HELP_THEME = Theme({
    "markdown.h1": "bold underline", "markdown.h2": "bold underline", "markdown.h3": "bold",
    "markdown.code": "bold", "markdown.item.bullet": "bold", "markdown.item.number": "bold",
    "markdown.link": "underline", "markdown.block_quote": "italic",
})


def help_page() -> Group:
    """The whole help page: the keys (:func:`help_renderable`), then the words."""
    return Group(help_renderable(), Text(""), Markdown(SCREEN_WORDS + GLOSSARY))


def help_lines() -> RenderedLines:
    """The help page's lines, rendered once per width (see the module docstring)."""
    return RenderedLines(help_page, theme=HELP_THEME)


def help_width(screen_width: int) -> int:
    """The width the help page is drawn at on a screen ``screen_width`` cells wide: the
    box of ``#help`` (80% of the screen, at most 90; app.tcss) less its border, padding
    and scroll bar."""
    return min(screen_width * 8 // 10, 90) - 2 - 2 - 2


#: what the labels of the main screen mean (the glossary explains the terms)
SCREEN_WORDS = """\
## On the screen

**Families list**: *Members* is how many documents the family holds, *Diameter* the
distance between its two farthest members (≤ means an upper bound, for very large
families; ≫ after it: a chain family far wider than k, try star grouping with `g`),
*Representative* the member standing for it. A family whose excerpt is a note starting
with ◆ is trivial: ◆ *empty files*, ◆ *identical* (identical fingerprints). Before the
member count, ✓ marks a family marked reviewed (`r`) and ⊘ an ignored one (shown with
`F4`).

**Members list**: *To rep.* is the member's distance to the representative, in bits;
*Similar* the same as a similarity %; *File size* is in bytes (KB, MB). The list shows
the whole family; `s` sorts it, `/` filters it.

**k chart** (beside the slider): the chain families at the current k: `fam` how many
have two or more documents, `docs` the documents in them, `max` the documents of the
largest, `diam` the largest diameter (≤: a bound, for a very large family). When the
line has room, `fam` and `docs` also draw one bar per k from 0 to K, the current one
highlighted. Hover for the table of every k, with the families too wide for their k.

**Family tree** (`t`): the selected chain family at k, and under each node its
sub-families at the highest k below it at which it splits (levels where nothing splits
are left out), down to documents with one fingerprint. A line reads `k=2  5 docs  diam 4
name`: the k at which it is a family, its documents, its diameter, its representative
(narrow: `k=2  5  d4  name`). ◆ *too wide* marks a node whose diameter is above 2k and
k+4, *identical* (≡) a node of identical fingerprints, ● the chosen node: enter chooses
one and the member list shows only its members (its title says *tree node k=…*); esc or
the root shows them all. With a node chosen, `R` offers it as the keep rule's scope.

**Explain** (`e` on the compare screen): the bit grid shows A, B and A xor B, 16 bits a
row from bit 63; in the xor row `x` is a bit that differs, `!` one that differs and was
a close vote (fragile: a small edit could flip it), `~` one that is the same on both
sides but fragile on at least one, `·` one that is the same and firm.

**Status line**: documents, files skipped (`!` lists them with the reason), families at
the current k (with singletons on: `+ N single`), k, the grouping, the documents marked in
the selected family (`2 marked`: `c` compares them; `M` clears), the watch state, the
pipeline, and the scan options when they are not the defaults (`o` changes them).

"""


class HelpScreen(ModalScreen[None]):
    """Modal list of key bindings; any of escape, q, ? or f1 closes it. ``lines`` is the
    page, rendered ahead (default: rendered now, at the width it gets)."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss(None)", "Close")]

    def __init__(self, lines: RenderedLines | None = None) -> None:
        super().__init__()
        self.lines = lines if lines is not None else help_lines()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield RenderedPage(self.lines, id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help").border_title = "Keys and words  (esc to close)"
