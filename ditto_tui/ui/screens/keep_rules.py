"""KeepRulesScreen: choose a keep rule chain or a bulk marking, preview it, apply it.

The screen gets the families (member ids), the documents, their fingerprints, k and the
review state in its constructor. The preview is computed in a thread worker
(:func:`~ditto_tui.explore.review.preview_marks`: every duplicate within k of its own
keeper, wide families split into tight groups) and shown in a virtual list, farthest
duplicates first, with each one's distance and similarity to its keeper and the counts of
families split, flagged too wide and left alone; "Apply" dismisses the screen with the
previewed marks (id -> decision), which the main screen records through the explorer.
Nothing is recorded without a preview of exactly the settings shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from ditto_tui.core.fingerprint.simhash import similarity_percent
from ditto_tui.core.review.decisions import Decision
from ditto_tui.core.review.keep import RULES
from ditto_tui.explore.review import MarkRow, preview_marks
from ditto_tui.ui.listing import shown
from ditto_tui.ui.widgets.columns import ColumnSpec
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.virtual_table import VirtualTable

MODE_CHOICES = [
    ("Keep rule: keep a copy, mark the members within k of it", "rule"),
    ("Bulk: mark the members under a folder", "folder"),
    ("Bulk: mark the members matching a glob", "glob"),
    ("Bulk: invert the duplicate marks", "invert"),
]
SCOPE_CHOICES = [("All families shown", "all"), ("The selected family", "family")]
LABELS = {"keep": "keep", "duplicate": "duplicate", "not-duplicate": "not dup"}


#: the dialog's settings as on screen: mode, scope, keep rules, preferred folders, argument
Settings = tuple[str, str, tuple[str, ...], tuple[str, ...], str]


class MarkTable(VirtualTable[MarkRow]):
    """The previewed marks: decision, bits and similarity to the keeper, family number,
    path, keeper (duplicates farthest from their keeper first)."""

    COLUMNS = (
        ColumnSpec("mark", "Mark", 9),
        ColumnSpec("bits", "Bits", 4),
        ColumnSpec("similarity", "Similar", 7),
        ColumnSpec("family", "Family", 6),
        ColumnSpec("path", "Path", 24, weight=1),
        ColumnSpec("keeper", "Duplicate of", 24, weight=1),
    )
    RIGHT_ALIGNED = frozenset({"bits", "similarity", "family"})

    def cell(self, row: MarkRow, key: str) -> str:
        doc_id, mark, family, keeper, bits = row
        if key == "mark":
            return LABELS.get(mark, mark)
        if key == "bits":
            return str(bits) if bits >= 0 else ""
        if key == "similarity":
            return similarity_percent(bits) if bits >= 0 else ""
        if key == "family":
            return str(family)
        if key == "keeper":
            return shown(keeper) if keeper else ""
        return shown(doc_id)


class KeepRulesScreen(Screen[dict[str, Decision] | None]):
    """Keep rules and bulk marking over ``families`` (or the ``selected`` family).

    ``scope_label`` names the ``selected`` scope when it is not the selected family (the
    members of a node chosen in the family tree, say). ``remembered`` are the settings it
    was left with last time (the dialog opens with them; a family scope needs a selected
    family). When it closes, :attr:`left_with` holds the settings it was left with."""

    DEFAULT_CSS = """
    KeepRulesScreen #keep-rules { border: round $primary; padding: 0 1; height: 1fr; }
    KeepRulesScreen .keep-row { height: auto; margin-bottom: 1; }
    KeepRulesScreen .keep-label { width: 13; padding: 0 1 0 0; text-style: bold; }
    KeepRulesScreen .keep-row Select { width: 1fr; }
    KeepRulesScreen .keep-row Input { width: 1fr; }
    KeepRulesScreen .keep-row Button { margin-right: 2; }
    KeepRulesScreen #keep-summary { height: auto; margin-bottom: 1; }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        *,
        selected: Sequence[str] | None,
        families: Sequence[Sequence[str]],
        documents: Mapping[str, Any],
        review: Any,
        fingerprints: Mapping[str, int],
        k: int,
        grouping: str = "chain",
        scope_label: str | None = None,
        remembered: Settings | None = None,
    ) -> None:
        super().__init__()
        self.selected = selected
        self.remembered = remembered
        self.left_with: Settings | None = None
        self.scope_label = scope_label
        self.families = families
        self.documents = documents
        self.review = review
        self.fingerprints = fingerprints
        self.k = k
        self.grouping = grouping
        self.preview: Any = None
        self._previewed: Settings | None = None  # the settings of self.preview

    def compose(self) -> ComposeResult:
        with Vertical(id="keep-rules"):
            with Horizontal(classes="keep-row"):
                yield Label("What", classes="keep-label")
                yield Select(MODE_CHOICES, value="rule", allow_blank=False, id="mode", compact=True)
            with Horizontal(classes="keep-row"):
                yield Label("Scope", classes="keep-label")
                yield Select(self.scope_choices(), value="all", allow_blank=False, id="scope",
                             compact=True)
            with Horizontal(classes="keep-row"):
                yield Label("Rules", classes="keep-label")
                yield Input(value="newest", id="rules", compact=True,
                            placeholder="in order, comma-separated: " + ", ".join(RULES))
            with Horizontal(classes="keep-row"):
                yield Label("Folders", classes="keep-label")
                yield Input(id="folders", compact=True,
                            placeholder="preferred (reference) folders, comma-separated; never marked")
            with Horizontal(classes="keep-row"):
                yield Label("Folder/glob", classes="keep-label")
                yield Input(id="argument", compact=True, placeholder="for bulk marking: a folder or a glob (*.bak)")
            with Horizontal(classes="keep-row"):
                yield Button("Preview", id="keep-preview", variant="primary", compact=True)
                yield Button("Apply", id="keep-apply", variant="warning", disabled=True, compact=True)
                yield Button("Cancel", id="keep-cancel", compact=True)
            yield Static(Text("Rules: " + ", ".join(RULES) + ". Press Preview."), id="keep-summary")
            yield MarkTable(id="keep-marks")
        yield Footer()

    def scope_choices(self) -> list[tuple[str, str]]:
        """The scopes offered: all families, and the selected family (or what
        ``scope_label`` names instead)."""
        if self.scope_label is None:
            return list(SCOPE_CHOICES)
        return [SCOPE_CHOICES[0], (self.scope_label, "family")]

    def on_mount(self) -> None:
        self.query_one("#keep-rules").border_title = "Keep rules and bulk marking"
        self.query_one(MarkTable).placeholder = "Nothing previewed yet."
        if self.selected is not None:
            self.query_one("#scope", Select).value = "family"
        if self.remembered is not None:
            mode, scope, rules, folders, argument = self.remembered
            self.query_one("#mode", Select).value = mode
            if scope == "all" or self.selected is not None:
                self.query_one("#scope", Select).value = scope
            self.query_one("#rules", Input).value = ", ".join(rules)
            self.query_one("#folders", Input).value = ", ".join(folders)
            self.query_one("#argument", Input).value = argument

    def settings(self) -> Settings:
        """The settings as they are on screen."""
        mode = str(self.query_one("#mode", Select).value)
        scope = str(self.query_one("#scope", Select).value)
        rules = tuple(r.strip() for r in self.query_one("#rules", Input).value.split(",") if r.strip())
        folders = tuple(
            f.strip().strip("/") for f in self.query_one("#folders", Input).value.split(",") if f.strip()
        )
        argument = self.query_one("#argument", Input).value.strip()
        return mode, scope, rules, folders, argument

    def _say(self, text: str) -> None:
        self.query_one("#keep-summary", Static).update(Text(text))

    @on(Select.Changed)
    @on(Input.Changed)
    def changed(self) -> None:
        if self.is_mounted:
            self.query_one("#keep-apply", Button).disabled = True

    @on(Input.Submitted)
    @on(Button.Pressed, "#keep-preview")
    def do_preview(self) -> None:
        mode, scope, rules, folders, argument = settings = self.settings()
        if mode == "rule":
            unknown = [r for r in rules if r not in RULES]
            if unknown or not rules:
                self._say(f"Unknown rule {', '.join(unknown) or '(none)'}; use: {', '.join(RULES)}.")
                return
            if "preferred" in rules and not folders:
                self._say("The preferred rule needs at least one folder.")
                return
        elif mode in ("folder", "glob") and not argument:
            self._say(f"Fill in the {mode} to mark.")
            return
        if scope == "family" and self.selected is None:
            self._say("No family is selected: choose all families.")
            return
        self._say("Computing the preview…")
        self.compute(settings)

    @work(thread=True, exclusive=True)
    def compute(self, settings: Settings) -> None:
        mode, scope, rules, folders, argument = settings
        families = [self.selected] if scope == "family" and self.selected is not None else self.families
        try:
            result = preview_marks(
                families, self.documents, self.review, self.fingerprints, self.k, mode=mode,
                rules=rules, folders=folders, argument=argument, grouping=self.grouping,
            )
        except ValueError as exc:
            self.app.call_from_thread(self._say, str(exc))
            return
        self.app.call_from_thread(self._show, settings, result)

    def _show(self, settings: Settings, result: Any) -> None:
        if settings != self.settings():
            return  # the settings changed meanwhile: that preview is not what is shown
        self.preview, self._previewed = result, settings
        self.query_one(MarkTable).set_rows(result.rows, cursor=0)
        text = (f"Preview at k={self.k}: {result.duplicates:,} duplicate(s) and "
                f"{result.keeps:,} kept in {result.families:,} "
                f"famil{'y' if result.families == 1 else 'ies'}; each duplicate is within "
                f"k={self.k} of the copy it duplicates (farthest first).")
        if result.split:
            text += (f" {result.split:,} family(ies) split into tight groups, each with a "
                     "copy kept.")
        if result.too_wide:
            text += (f" ◆ {result.too_wide:,} flagged: diameter above 2k={2 * self.k}, a "
                     "drift rather than copies of one document.")
        if result.skipped:
            text += f" {result.skipped:,} family(ies) left alone: every member would be marked."
        if result.unkept:
            text += (f" {result.unkept:,} member(s) left unmarked: no kept member within "
                     f"k={self.k}.")
        text += " Nothing is recorded until Apply."
        self._say(text)
        self.query_one("#keep-apply", Button).disabled = not result.marks

    @on(Button.Pressed, "#keep-apply")
    def apply(self) -> None:
        if self.preview is None or self._previewed != self.settings():
            self._say("Preview again: the settings changed.")
            return
        self.left_with = self.settings()
        self.dismiss(dict(self.preview.marks))

    @on(Button.Pressed, "#keep-cancel")
    def action_cancel(self) -> None:
        self.left_with = self.settings()
        self.dismiss(None)
