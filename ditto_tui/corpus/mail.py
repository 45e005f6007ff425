"""Mail stores: maildir folders, mbox files, and the headers the UI shows.

A maildir is a folder holding ``cur/``, ``new/`` and ``tmp/`` folders; each file in ``cur/``
and ``new/`` is one message (``tmp/`` holds deliveries in progress and is not read). An mbox
is a file whose first line is a postmark (``From sender date``) -- or any ``From `` line when
the name ends in ``.mbox``; it holds one message per postmark, numbered from 1 in file
order. A message's fingerprinted bytes are the message as stored: for mbox, the bytes after
its postmark line up to the next postmark (without the separating blank line), ``>From``
quoting left as is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ditto_tui.corpus.documents import MailInfo

#: Bytes of a message read for its Subject, From and Date (a header block is far shorter).
MAIL_HEAD_BYTES = 256 * 1024
MAILDIR_PARTS = ("cur", "new", "tmp")
#: Folders of a maildir whose files are messages.
MESSAGE_FOLDERS = ("cur", "new")

_POSTMARK = re.compile(rb"^From \S+ +(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ")
_MBOX_SUFFIXES = (".mbox", ".mbx")


def is_maildir(path: str) -> bool:
    """True when ``path`` is a folder holding ``cur``, ``new`` and ``tmp`` folders."""
    return all(os.path.isdir(os.path.join(path, part)) for part in MAILDIR_PARTS)


def looks_like_mbox(name: str, head: bytes) -> bool:
    """Whether a file with this name and these first bytes is an mbox.

    A ``.mbox``/``.mbx`` name needs a first line starting ``From ``; any other name needs a
    real postmark line (``From <sender> <weekday> ...``), so a text file beginning "From
    here on" stays a text file.
    """
    if not head.startswith(b"From "):
        return False
    if name.lower().endswith(_MBOX_SUFFIXES):
        return True
    return _POSTMARK.match(head) is not None


def split_mbox(data: bytes) -> list[tuple[int, int]]:
    """(offset, size) of every message in an mbox buffer, in file order.

    Separators are lines starting ``From `` (as Python's :mod:`mailbox` reads them); the
    blank line that ends each message (before the next postmark or at the end of the file)
    belongs to the mbox format, not to the message.
    """
    starts: list[int] = []  # positions of postmark lines
    if data.startswith(b"From "):
        starts.append(0)
    pos = data.find(b"\nFrom ")
    while pos != -1:
        starts.append(pos + 1)
        pos = data.find(b"\nFrom ", pos + 1)
    spans: list[tuple[int, int]] = []
    for i, line_start in enumerate(starts):
        eol = data.find(b"\n", line_start)
        body = len(data) if eol == -1 else eol + 1
        end = starts[i + 1] if i + 1 < len(starts) else len(data)
        size = end - body  # look at the message's end without copying it
        if data.endswith(b"\r\n\r\n", body, end) or (size == 2 and data.startswith(b"\r\n", body)):
            end -= 2
        elif data.endswith(b"\n\n", body, end) or (size == 1 and data[body] == 0x0A):
            end -= 1
        spans.append((body, end - body))
    return spans


def maildir_message_names(folder: str) -> Iterator[str]:
    """Names of message files directly in a maildir ``cur``/``new`` folder, in byte order."""
    names = [e.name for e in os.scandir(folder) if not e.name.startswith(".")]
    names.sort(key=os.fsencode)
    yield from names


def _bytes_text(raw: bytes, charset: str | None) -> str:
    """Decode header bytes: the declared charset, else UTF-8, else Latin-1 (never fails)."""
    for cs in (charset, "utf-8", "latin-1"):
        if cs and cs != "unknown-8bit":
            try:
                return raw.decode(cs)
            except (LookupError, UnicodeDecodeError):
                continue
    return raw.decode("latin-1")


def _decoded(value: object) -> str:
    """A header value as readable text: RFC 2047 encoded words decoded, raw 8-bit bytes read
    as UTF-8 (or Latin-1), whitespace folded; never raises."""
    import email.errors
    import email.header

    if value is None:
        return ""
    try:
        parts = email.header.decode_header(value)  # type: ignore[arg-type]
    except (ValueError, LookupError, UnicodeError, email.errors.HeaderParseError):
        parts = [(str(value), None)]
    out = []
    for chunk, charset in parts:
        if isinstance(chunk, str):
            chunk = chunk.encode("utf-8", "surrogateescape")
        out.append(_bytes_text(chunk, charset))
    return " ".join("".join(out).split())


def mail_info(message: bytes) -> MailInfo:
    """Subject, sender and date of a stored message, decoded for display.

    Malformed headers never raise: they come back as raw text (or empty when absent).
    """
    import email.policy
    from email.parser import BytesHeaderParser

    head_end = message.find(b"\n\n")
    crlf_end = message.find(b"\r\n\r\n")
    cut = min((p for p in (head_end, crlf_end) if p != -1), default=len(message))
    head = message[: cut + 4]
    msg = BytesHeaderParser(policy=email.policy.compat32).parsebytes(head)
    return MailInfo(_decoded(msg["subject"]), _decoded(msg["from"]), _decoded(msg["date"]))
