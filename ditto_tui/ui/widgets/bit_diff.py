"""BitDiff: two 64-bit fingerprints side by side, bit by bit.

Each fingerprint is drawn as 4 rows of 16 bits, bit 63 first, so a row reads like its 4 hex
digits. Differing bits are highlighted; the summary gives the XOR, the distance, the
similarity and which of the index's K+1 blocks agree (block i covers bits
``[i*64//(K+1), (i+1)*64//(K+1))``, counted from the least significant bit).
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

MASK64 = (1 << 64) - 1


def block_ranges(max_k: int) -> list[tuple[int, int]]:
    """The ``max_k + 1`` contiguous bit ranges ``[lo, hi)`` of a banded index built for K."""
    blocks = max_k + 1
    return [(i * 64 // blocks, (i + 1) * 64 // blocks) for i in range(blocks)]


def agreeing_blocks(a: int, b: int, max_k: int) -> list[bool]:
    """For each index block, whether ``a`` and ``b`` hold the same bits there."""
    xor = (a ^ b) & MASK64
    return [((xor >> lo) & ((1 << (hi - lo)) - 1)) == 0 for lo, hi in block_ranges(max_k)]


def similarity_text(distance: int) -> str:
    """``1 - d/64`` as a percentage with two decimals (``d=2`` gives ``96.88%``)."""
    return f"{(1 - distance / 64) * 100:.2f}%"


class BitDiff(Widget):
    """Renders the bit-level comparison of fingerprints ``a`` and ``b``."""

    DEFAULT_CSS = """
    BitDiff {
        height: auto;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    BitDiff > .bit-diff--same { color: $foreground-muted; }
    BitDiff > .bit-diff--differ { background: $error; color: $text; text-style: bold; }
    BitDiff > .bit-diff--heading { text-style: bold; color: $primary; }
    BitDiff > .bit-diff--agree { color: $success; text-style: bold; }
    BitDiff > .bit-diff--disagree { color: $error; }
    BitDiff > .bit-diff--label { color: $foreground-muted; }
    """

    COMPONENT_CLASSES = {
        "bit-diff--same",
        "bit-diff--differ",
        "bit-diff--heading",
        "bit-diff--agree",
        "bit-diff--disagree",
        "bit-diff--label",
    }

    a: reactive[int] = reactive(0, layout=True)
    b: reactive[int] = reactive(0, layout=True)
    max_k: reactive[int] = reactive(8, layout=True)

    def __init__(
        self,
        a: int = 0,
        b: int = 0,
        max_k: int = 8,
        *,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.set_reactive(BitDiff.a, int(a) & MASK64)
        self.set_reactive(BitDiff.b, int(b) & MASK64)
        self.set_reactive(BitDiff.max_k, max_k)

    @property
    def distance(self) -> int:
        return (self.a ^ self.b).bit_count()

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"bit-diff--{name}")

    def _bits(self, text: Text, value: int, xor: int, row: int, *, marks: bool = False) -> None:
        same, differ = self._style("same"), self._style("differ")
        for col in range(16):
            bit = 63 - (row * 16 + col)
            if col and col % 4 == 0:
                text.append(" ")
            differs = bool((xor >> bit) & 1)
            if marks:
                text.append("x" if differs else "·", differ if differs else same)
            else:
                text.append(str((value >> bit) & 1), differ if differs else None)
        nibbles = (value >> (48 - row * 16)) & 0xFFFF
        text.append(f" {nibbles:04x}", self._style("heading") if not marks else None)

    def render(self) -> Text:
        a, b = self.a, self.b
        xor = a ^ b
        label = self._style("label")
        heading = self._style("heading")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("   ")
        text.append("A".ljust(25), heading)
        text.append("B".ljust(25), heading)
        text.append("A xor B", heading)
        text.append("\n")
        for row in range(4):
            hi = 63 - row * 16
            text.append(f"{hi:>2} ", label)
            self._bits(text, a, xor, row)
            text.append(" ")
            self._bits(text, b, xor, row)
            text.append(" ")
            self._bits(text, xor, xor, row, marks=True)
            text.append("\n")
        d = self.distance
        text.append("A ", label)
        text.append(f"{a:016x}")
        text.append("  B ", label)
        text.append(f"{b:016x}")
        text.append("  xor ", label)
        text.append(f"{xor:016x}")
        text.append("\n")
        text.append("distance ", label)
        text.append(f"{d} bit{'s' if d != 1 else ''}", heading)
        text.append("  similarity ", label)
        text.append(similarity_text(d), heading)
        text.append("\n")
        blocks = agreeing_blocks(a, b, self.max_k)
        text.append(f"index blocks at K={self.max_k} ({len(blocks)}): ", label)
        agree, disagree = self._style("agree"), self._style("disagree")
        for i, ok in enumerate(blocks):
            text.append(f"{i}{'✓' if ok else '✗'}", agree if ok else disagree)
            text.append(" ")
        count = sum(blocks)
        text.append(f" {count} agree", label)
        return text


__all__ = ["BitDiff", "agreeing_blocks", "block_ranges", "similarity_text"]
