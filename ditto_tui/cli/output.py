"""What the commands write: records on stdout (ids escaped for a terminal, or JSON lines)
and one-line messages on stderr prefixed with the program's name."""

from __future__ import annotations

import json
import re
import sys
from typing import IO

from ditto_tui.core.text.display import escape_controls

__all__ = ["PROG", "Output", "escape_id", "warn"]

PROG = "ditto-tui"


def escape_id(doc_id: str) -> bytes:
    """An id as the path's raw bytes, with what a terminal would obey escaped (``\\t``,
    ``\\n``, ``\\x1b``, C1 controls and raw 0x80-0x9F bytes as ``\\x9b``, bidi controls as
    ``\\u202e``: :func:`ditto_tui.core.text.display.escape_controls`, the explorer's rule too).

    A record is therefore always one line that reads as written, while every other byte
    (including invalid UTF-8 in file names) is written exactly as ditto writes it.
    """
    return escape_controls(doc_id).encode("utf-8", "surrogateescape")


#: Characters a terminal obeys that JSON leaves raw (C1 and bidi controls); written as
#: ``\\uXXXX`` escapes, which decode to the same string.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class Output:
    """Buffered binary writer on stdout that turns a closed pipe into a quiet exit."""

    def __init__(self, stream: IO[bytes] | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout.buffer

    def line(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        self._stream.write(data + b"\n")

    def write(self, data: bytes) -> None:
        """Raw bytes (whole lines), as they are."""
        self._stream.write(data)

    def json(self, obj: object) -> None:
        """One JSON object per line, UTF-8. A name that is not valid UTF-8 (a lone
        surrogate from surrogateescape) is written as a ``\\udcXX`` escape, which
        ``json.loads`` + ``os.fsencode`` turn back into the original bytes."""
        try:
            text = json.dumps(obj, ensure_ascii=False)
            data = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")
        except UnicodeEncodeError:
            data = json.dumps(obj).encode("ascii")
        self.line(data)

    def flush(self) -> None:
        self._stream.flush()


def warn(message: str) -> None:
    """One line on stderr, prefixed with the program name; control characters escaped."""
    sys.stderr.buffer.write(b"ditto-tui: " + escape_id(message) + b"\n")
    sys.stderr.flush()
