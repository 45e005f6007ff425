"""Display forms of document text: control characters made visible, HTML reduced to text.

Pure functions over ``str``. Nothing here interprets markup: the results are plain strings
that the UI wraps in ``rich.text.Text`` objects, so ``[bold]`` in a document stays ``[bold]``.
"""

from __future__ import annotations

import html
import re

__all__ = [
    "TERMINAL_CONTROLS",
    "escape_controls",
    "excerpt",
    "html_text",
    "mail_excerpt",
    "visible",
    "visible_lines",
    "wrap_points",
]

#: What a terminal would obey rather than show: C0 controls, DEL, C1 controls (U+0080-U+009F,
#: CSI U+009B among them) and the bidi controls that reorder text (U+200E/F, embeddings and
#: overrides U+202A-U+202E, isolates U+2066-U+2069).
TERMINAL_CONTROLS = "\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
# The same without TAB (expanded by visible()), and with the lone surrogates that stand for
# raw bytes 0x80-0x9F of a name that is not UTF-8 (os.fsdecode's surrogateescape).
_CONTROL = re.compile(
    "[" + TERMINAL_CONTROLS.replace("\x00-\x1f", "\x00-\x08\x0a-\x1f") + "\udc80-\udc9f]"
)
_UNSAFE = re.compile(f"[{TERMINAL_CONTROLS}\udc80-\udc9f]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_TAG = re.compile(r"<(?:!--.*?-->|[A-Za-z!/?][^>]*)>", re.S)
_BLOCK = re.compile(
    r"<\s*/?\s*(?:p|div|br|li|ul|ol|tr|table|h[1-6]|section|article|header|footer|pre|"
    r"blockquote|title|head|body|html|nav|dd|dt|dl)\b[^>]*>",
    re.I,
)
_SCRIPT = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.I | re.S)
_BLANKS = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_SPACES = re.compile(r"[ \t\r\f\v]+")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a raw byte kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _escape_named(match: re.Match[str]) -> str:
    return _NAMED.get(match.group()) or _escape(match)


def escape_controls(text: str) -> str:
    """``text`` with every character a terminal would obey written as an escape.

    The one rule for names and messages on a terminal, used by the CLI and (through
    :func:`visible`) the explorer: TAB, LF and CR become ``\\t``, ``\\n``, ``\\r``; other
    C0 controls, DEL and C1 controls ``\\xNN``; bidi controls ``\\uNNNN``; a raw byte
    0x80-0x9F of a name that is not UTF-8 (a surrogateescape) ``\\xNN``. Everything else,
    other raw bytes included, is left as it is.
    """
    if text.isascii() and text.isprintable():
        return text
    return _UNSAFE.sub(_escape_named, text)


def visible(line: str, *, tab: int = 4) -> str:
    """Return ``line`` with tabs expanded and every control character shown as ``\\xNN``.

    ESC becomes the four characters ``\\x1b`` so an ANSI sequence is displayed, never obeyed.
    Intended for a single line: a newline inside ``line`` is escaped as ``\\x0a`` too.
    """
    if "\t" in line:
        line = line.expandtabs(tab)
    if line.isascii() and line.isprintable():
        return line
    return _CONTROL.sub(_escape, line)


def visible_lines(text: str, *, tab: int = 4) -> list[str]:
    """Split ``text`` into display lines (on ``\\n``, ``\\r\\n`` or ``\\r``), each made visible."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return [visible(line, tab=tab) for line in lines]


def html_text(source: str) -> str:
    """Readable text of an HTML document: scripts/styles dropped, block tags become line
    breaks, other tags removed, entities decoded, runs of blank lines collapsed.

    A display aid only; fingerprints use ``normalize`` (ditto's rules), not this.
    """
    text = _SCRIPT.sub(" ", source)
    text = _BLOCK.sub("\n", text)
    text = _TAG.sub("", text)
    text = html.unescape(text)
    text = "\n".join(_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANKS.sub("\n\n", text).strip("\n")


def excerpt(text: str, width: int = 60) -> str:
    """First ``width`` characters of ``text`` on one line (whitespace collapsed), made visible."""
    flat = " ".join(text[: width * 4].split())
    return visible(flat[:width])


def mail_excerpt(subject: str, sender: str, width: int = 60) -> str:
    """A mail message on one line: ``"<subject> — <sender>"``, made visible.

    ``subject`` and ``sender`` are decoded header values (RFC 2047 already undone). The
    sender is shown by its display name when it has one, else by its address; a missing
    subject reads ``(no subject)``. Longer than ``width``: the subject is shortened
    (ending in ``…``) so that the sender stays, unless the sender alone is too long.
    """
    who = " ".join(_sender_name(sender).split())
    topic = " ".join(subject.split()) or "(no subject)"
    if not who:
        return _fit(topic, width)
    room = width - len(who) - 3
    if room >= min(len(topic), 12):
        return visible(f"{_fit(topic, room)} — {who}")
    return _fit(f"{topic} — {who}", width)


def _sender_name(sender: str) -> str:
    """``Name`` of ``"Name" <addr>`` (or ``addr`` when it has no name); else ``sender``."""
    sender = sender.strip()
    start = sender.rfind("<")
    if start < 0 or not sender.endswith(">"):
        return sender
    name = sender[:start].strip().strip('"').strip()
    return name or sender[start + 1 : -1].strip()


def _fit(text: str, width: int) -> str:
    """``text`` made visible, cut to ``width`` characters ending in ``…`` when longer."""
    if len(text) <= width:
        return visible(text)
    return visible(text[: max(width - 1, 0)]) + "…" if width > 0 else ""


def wrap_points(line: str, width: int) -> list[tuple[int, int]]:
    """Split ``line`` into ``[start, stop)`` pieces of at most ``width`` characters, breaking
    after a space when one lies in the second half of the piece, else hard."""
    pieces = []
    start = 0
    while len(line) - start > width:
        cut = line.rfind(" ", start + width // 2, start + width)
        stop = cut + 1 if cut >= 0 else start + width
        pieces.append((start, stop))
        start = stop
    pieces.append((start, len(line)))
    return pieces
