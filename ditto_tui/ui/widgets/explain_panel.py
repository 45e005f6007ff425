"""ExplainPanel: why two documents are (not) near-duplicates, above their side-by-side diff.

``explain(...)`` computes in a thread worker: first the explanation (features, cosine and
the distance it predicts, each bit's margins, fragile bits, the features behind each
differing bit), shown as soon as it is ready; then the text only one side's features
cover, handed to an :class:`ExplainedDiff` to underline. Document text is rendered
literally (``display.visible``), never as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from ditto_tui.core.explain.explanation import PairExplanation, explain_pair, unique_spans
from ditto_tui.core.explain.features import document_features
from ditto_tui.core.explain.text import display_spans
from ditto_tui.core.fingerprint.normalize import decode_go
from ditto_tui.core.text.display import visible
from ditto_tui.ui.widgets.explained_diff import ExplainedDiff, Highlights

__all__ = ["ExplainPanel", "explanation_text"]


@dataclass(frozen=True)
class _Styles:
    label: Style
    heading: Style
    differ: Style
    fragile: Style
    muted: Style


#: the A xor B column's heading, its legend: x and ! differ, ! and ~ were close votes
#: (fragile: ~ is the same on both sides but could flip); · is the same and firm. (It
#: fits the panel at 80 columns: keep it this short.)
LEGEND = "xor (x ! differ, ! ~ fragile)"


def _bits_grid(text: Text, e: PairExplanation, s: _Styles) -> None:
    """A, B and their xor as 4 rows of 16 bits (bit 63 first); differing bits in
    ``differ``, fragile ones (close votes) in ``fragile``; the xor row marks x (differs),
    ! (differs, fragile) and ~ (same, fragile)."""
    fragile = {i for i in range(64) if abs(e.strength_a[i]) < 0.25 or abs(e.strength_b[i]) < 0.25}
    xor = e.fingerprint_a ^ e.fingerprint_b
    text.append("   ")
    for name in ("A", "B", LEGEND):
        text.append(name.ljust(21), s.heading)
    text.append("\n")
    for row in range(4):
        text.append(f"{63 - row * 16:>2} ", s.label)
        for value in (e.fingerprint_a, e.fingerprint_b, None):
            for col in range(16):
                bit = 63 - (row * 16 + col)
                if col and col % 4 == 0:
                    text.append(" ")
                differs = bool(xor >> bit & 1)
                style = s.differ if differs else (s.fragile if bit in fragile else s.muted)
                if value is None:
                    glyph = ("!" if bit in fragile else "x") if differs else ("~" if bit in fragile else "·")
                else:
                    glyph = str(value >> bit & 1)
                text.append(glyph, style)
            text.append("  ")
        text.append("\n")


def explanation_text(e: PairExplanation, styles: _Styles | None = None, *, note: str = "") -> Text:
    """The panel's content for explanation ``e`` (plain Text; ``note`` ends it)."""
    s = styles or _Styles(Style(dim=True), Style(bold=True), Style(reverse=True, bold=True),
                          Style(underline=True), Style(dim=True))
    text = Text(no_wrap=True, overflow="ellipsis")
    union = e.features_a + e.features_b - e.shared
    low, high = e.predicted_range
    text.append("distance ", s.label)
    text.append(f"{e.distance}", s.heading)
    text.append("  · SimHash expects ", s.label)
    text.append(f"{e.predicted_distance:.1f}", s.heading)
    text.append(f" (90% {low}–{high}): ", s.label)
    text.append(e.verdict, s.heading)
    text.append("\n")
    text.append("shared features ", s.label)
    text.append(f"{e.shared:,} of {union:,}", s.heading)
    text.append(f" ({e.shared / union if union else 1:.1%})", s.label)
    text.append("  · cosine ", s.label)
    text.append(f"{e.cosine:.4f}", s.heading)
    text.append(f"  · A {e.features_a:,} features, B {e.features_b:,}", s.label)
    text.append("\n")
    _bits_grid(text, e, s)
    if e.bits:
        text.append(f"{len(e.fragile_bits)} of {e.distance} differing bit(s) were close votes (fragile)\n",
                    s.label)
    for b in e.bits:
        text.append(f"bit {b.bit:>2} ", s.heading)
        text.append(f"A={b.value_a} {b.margin_a:+d} ({b.strength_a:+.2f}σ)  "
                    f"B={b.value_b} {b.margin_b:+d} ({b.strength_b:+.2f}σ)", s.label)
        if b.fragile:
            text.append("  fragile", s.fragile)
        text.append(f"  · pushed by features only in A {b.push_a:+d}, only in B {b.push_b:+d}, "
                    f"shared {b.push_shared:+d}\n", s.label)
        text.append("       ")
        for side in ("a", "b"):
            shown = [ev for ev in b.evidence if ev.side == side]
            if shown:
                text.append(f"  only in {side.upper()}:", s.heading)
                for ev in shown:
                    text.append(" «")
                    text.append(visible(ev.text))
                    text.append("»")
        text.append("\n")
    if note:
        text.append(note, s.label)
    return text


class ExplainPanel(VerticalScroll):
    """The explanation of the pair last passed to :meth:`explain` (hidden until then)."""

    DEFAULT_CSS = """
    ExplainPanel { height: auto; max-height: 50%; padding: 0 1; display: none; }
    ExplainPanel.-shown { display: block; }
    ExplainPanel > Static { width: auto; }
    ExplainPanel > .explain-panel--label { color: $foreground-muted; }
    ExplainPanel > .explain-panel--heading { text-style: bold; color: $primary; }
    ExplainPanel > .explain-panel--differ { background: $error; color: $text; text-style: bold; }
    ExplainPanel > .explain-panel--fragile { color: $warning; text-style: underline; }
    ExplainPanel > .explain-panel--muted { color: $foreground-muted; }
    """
    COMPONENT_CLASSES = {
        "explain-panel--label",
        "explain-panel--heading",
        "explain-panel--differ",
        "explain-panel--fragile",
        "explain-panel--muted",
    }

    class Explained(Message):
        """The explanation (and, once ``highlights`` is set, the spans) are shown."""

        def __init__(self, panel: ExplainPanel, explanation: PairExplanation,
                     highlights: tuple[Highlights, Highlights] | None) -> None:
            super().__init__()
            self.panel = panel
            self.explanation = explanation
            self.highlights = highlights

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.explanation: PairExplanation | None = None
        self._pair: tuple[str, str] | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("explaining…"), id="explain-body")

    def _styles(self) -> _Styles:
        get = self.get_component_rich_style
        return _Styles(get("explain-panel--label"), get("explain-panel--heading"),
                       get("explain-panel--differ"), get("explain-panel--fragile"),
                       get("explain-panel--muted"))

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    def hide(self, target: ExplainedDiff | None = None) -> None:
        """Hide the panel (and clear ``target``'s highlights)."""
        self.remove_class("-shown")
        if target is not None:
            target.set_highlights({}, {})

    def explain(self, session: Any, pipeline: Any, left: str, right: str, *,
                target: ExplainedDiff | None = None, mapped: tuple[bool, bool] = (True, True)) -> None:
        """Show the panel and explain documents ``left``/``right`` of ``session`` under
        ``pipeline``; underline in ``target`` the text only one side has, on the sides
        whose diff shows the document's own text (``mapped``)."""
        self.add_class("-shown")
        self.explanation = None
        self._pair = (left, right)
        self.query_one("#explain-body", Static).update(Text("explaining…"))
        if target is not None:
            target.set_highlights({}, {})
        self._compute(session, pipeline, left, right, target, mapped)

    @work(thread=True, exclusive=True, group="explain")
    def _compute(self, session: Any, pipeline: Any, left: str, right: str,
                 target: ExplainedDiff | None, mapped: tuple[bool, bool]) -> None:
        worker = get_current_worker()
        try:
            data = (session.read_bytes(left), session.read_bytes(right))
            features = (document_features(pipeline, data[0]), document_features(pipeline, data[1]))
        except (OSError, KeyError, TypeError) as exc:
            self.app.call_from_thread(self._failed, str(exc) or type(exc).__name__)
            return
        e = explain_pair(*features)
        if worker.is_cancelled:
            return
        self.app.call_from_thread(self._show, (left, right), e, None, "")
        marks: list[Highlights] = []
        counts = []
        for side, (doc, other, raw) in enumerate(
            ((features[0], features[1], data[0]), (features[1], features[0], data[1]))
        ):
            chars = unique_spans(doc, other)[1]
            counts.append(len(chars))
            marks.append(display_spans(decode_go(raw), chars) if mapped[side] else {})
            if worker.is_cancelled:
                return
        note = f"underlined in the diff: text only one side's features cover (A {counts[0]}, B {counts[1]} passages)"
        if not all(mapped):
            note += "; HTML shown as text has no highlights: press t for the source"
        self.app.call_from_thread(self._show, (left, right), e, (marks[0], marks[1]), note, target)

    def _failed(self, reason: str) -> None:
        self.query_one("#explain-body", Static).update(Text(f"cannot explain: {reason}"))

    def _show(self, pair: tuple[str, str], e: PairExplanation,
              highlights: tuple[Highlights, Highlights] | None, note: str,
              target: ExplainedDiff | None = None) -> None:
        if pair != self._pair:
            return  # a newer pair is being explained
        self.explanation = e
        self.query_one("#explain-body", Static).update(explanation_text(e, self._styles(), note=note))
        if highlights is not None and target is not None:
            target.set_highlights(*highlights)
        self.post_message(self.Explained(self, e, highlights))
