"""What a corpus is made of: documents, skips, mail metadata, scan options and change batches.

These are plain values shared by the walker, the cache, the session and the UI. Ids are `str`
built with ``surrogateescape`` from the file-system bytes, so a name that is not valid UTF-8 is
kept (never dropped, never a crash); :func:`display_id` renders such a name with ``\\xNN``
escapes for the screen.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ditto_tui.core.fingerprint.simhash import Fingerprint

MiB = 1024 * 1024

#: Kinds of document a corpus can hold.
KINDS = ("text", "html", "maildir", "mbox")
#: The kinds that are mail messages (lists show their subject and sender; never modified).
MAIL_KINDS = ("maildir", "mbox")


@dataclass(frozen=True, slots=True)
class Document:
    """One fingerprinted unit of a corpus.

    ``id`` is relative to the corpus root, ``/``-separated; a maildir message is
    ``"box/cur/<file>"`` and an mbox message is ``"archive.mbox#N"`` with N counted from 1 in
    file order. ``path`` is the absolute path of the file holding the document. For an mbox
    message ``offset``/``size`` locate the stored message bytes inside that file; for every
    other kind ``offset`` is 0 and ``size`` is the file size. ``mtime_ns`` and ``inode`` are
    those of the holding file when it was read.
    """

    id: str
    path: str
    kind: str
    size: int
    mtime_ns: int
    inode: int
    offset: int = 0


@dataclass(frozen=True, slots=True)
class Skipped:
    """A path the corpus did not fingerprint and why (``reason`` is a short human phrase).

    ``same_as`` is set when the path is another name of a document already in the corpus
    (a symlink to a file inside the root, a second hard link): the id of that document.
    """

    id: str
    path: str
    reason: str
    same_as: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class MailInfo:
    """Display metadata of a mail message; RFC 2047 encoded words are already decoded."""

    subject: str
    sender: str
    date: str


@dataclass(frozen=True, slots=True)
class ScanOptions:
    """What a walk accepts.

    ``max_size`` bounds the bytes read per file (larger files are skipped, never truncated);
    ``include_binary`` fingerprints files with a NUL byte in their first 8 KiB (as Go ditto
    does) instead of skipping them; ``ignore`` adds gitignore-style patterns to the defaults
    and to the root's ``.dittoignore``; ``follow_symlinks`` descends symlinked folders whose
    target stays inside the root (off by default: every file is then reached by its real
    path once). Links leaving the root are always skipped, and a symlinked file, or a second
    hard link, is always the same document as the file it names (skipped as an alias).
    ``min_size`` skips files smaller than that many bytes and ``skip_empty`` skips empty
    files (both judged on the file, so an mbox counts as a whole). ``html_any`` makes a
    pipeline that picks files by name (html) take every file, where by default a file
    without an HTML name is taken only when its first bytes look like HTML.
    Every file left out for one of these reasons is reported as a skip.
    """

    max_size: int = 64 * MiB
    include_binary: bool = False
    ignore: tuple[str, ...] = ()
    follow_symlinks: bool = False
    min_size: int = 0
    skip_empty: bool = False
    html_any: bool = False


#: The default options (a shared immutable value).
DEFAULT_OPTIONS = ScanOptions()


def options_summary(options: ScanOptions) -> str:
    """The options that differ from the defaults, in a few words for a status line
    (``""`` when all are default), e.g. ``"min 1 KiB · no empty · links followed"``.

    Ignore patterns are counted, not listed (they can be long); the parts keep a fixed
    order so the line does not jump.
    """
    parts: list[str] = []
    if options.min_size != DEFAULT_OPTIONS.min_size:
        parts.append(f"min {human_size(options.min_size)}")
    if options.max_size != DEFAULT_OPTIONS.max_size:
        parts.append(f"max {human_size(options.max_size)}")
    if options.skip_empty:
        parts.append("no empty")
    if options.include_binary:
        parts.append("binary")
    if options.follow_symlinks:
        parts.append("links followed")
    if options.html_any:
        parts.append("html: any file")
    if options.ignore:
        n = len(options.ignore)
        parts.append(f"{n} ignore {'rule' if n == 1 else 'rules'}")
    return " · ".join(parts)


def human_size(n: int) -> str:
    """Bytes as a short figure: ``12 bytes``, ``1 KiB``, ``1.5 MiB``, ``64 MiB``."""
    if n < 1024:
        return f"{n} {'byte' if n == 1 else 'bytes'}"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        value /= 1024
        if value < 1024 or unit == "TiB":
            break
    return f"{value:.4g} {unit}"


_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text: str, *, allow_zero: bool) -> int:
    """A size in bytes written as a person writes it: ``64M``, ``512k``, ``1GiB``,
    ``1.5m``, ``1000000`` (case and surrounding spaces ignored; k, m, g are powers of 1024).

    Raises ``ValueError`` with a short message naming the text (``not a size: 'x' (e.g.
    64M)``, ``size must not be negative: ...``, and without ``allow_zero`` ``size must be
    positive: ...``), fit to show the user as it is.
    """
    body = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = body[-1] if body and body[-1] in "kmg" else ""
    try:
        value = int(float(body[: len(body) - len(unit)]) * _SIZE_UNITS[unit])
    except (ValueError, OverflowError):  # OverflowError: "inf"
        raise ValueError(f"not a size: {text!r} (e.g. 64M)") from None
    if value < 0:
        raise ValueError(f"size must not be negative: {text!r}")
    if value == 0 and not allow_zero:
        raise ValueError(f"size must be positive: {text!r}")
    return value


@dataclass(slots=True)
class ScanProgress:
    """Progress of a scan: documents and bytes done so far; ``total`` once discovery ended."""

    done: int
    total: int | None
    bytes_done: int
    elapsed: float


class FixedDocuments(Mapping[str, "Document"]):
    """A read-only id -> :class:`Document` mapping whose records never change (a stored
    result set). A source may hand one whole to every :class:`ChangeBatch` instead of a
    record per batch: readers then look up only the ids they hold fingerprints of, and no
    record is copied (a lazy mapping makes its records on access)."""


@dataclass(slots=True)
class ChangeBatch:
    """A set of corpus changes to apply in one go.

    ``added`` and ``changed`` map ids to their new fingerprints, ``removed`` lists ids that
    left the corpus (including documents that became skipped), ``skipped`` lists the new
    skips. ``documents`` holds the record each fingerprint of ``added`` and ``changed`` was
    computed from, and the new record of a document re-read with an unchanged fingerprint
    (touched, or grown by bytes the pipeline ignores): a reader that applies the batches in
    order keeps records and fingerprints of the same moment. A source whose records never
    change may pass one :class:`FixedDocuments` instead. ``rescan`` is True when the batch
    comes from a full rescan (after a watcher overflow or a failed watch) rather than from
    individual events.
    """

    added: dict[str, Fingerprint] = field(default_factory=dict)
    changed: dict[str, Fingerprint] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    documents: Mapping[str, Document] = field(default_factory=dict)
    rescan: bool = False

    def __bool__(self) -> bool:
        """True when the batch changes anything (a rescan batch always counts)."""
        return bool(
            self.added or self.changed or self.removed or self.skipped or self.rescan
            or (self.documents and not isinstance(self.documents, FixedDocuments))
        )

    def touched(self) -> Iterator[str]:
        """The ids whose content this batch says changed: fingerprints added, changed and
        removed, and documents re-read with an unchanged fingerprint (edited, rewritten,
        grown by bytes the pipeline ignores; their record is new). What was read of them
        (a preview, an excerpt) is stale. Ids may repeat; none for :class:`FixedDocuments`
        records (they never change)."""
        yield from self.added
        yield from self.changed
        yield from self.removed
        if not isinstance(self.documents, FixedDocuments):
            yield from self.documents

    def extend(self, other: ChangeBatch) -> None:
        """Fold a later batch into this one (later facts win per id). Batches of
        :class:`FixedDocuments` fold only with batches of the same mapping."""
        self.documents = _fold_records(self.documents, other.documents, other.removed)
        for id_ in other.removed:
            self.added.pop(id_, None)
            self.changed.pop(id_, None)
        for id_, fp in other.added.items():
            if id_ in self.removed:
                self.removed.remove(id_)
                self.changed[id_] = fp
            else:
                self.added[id_] = fp
        for id_, fp in other.changed.items():
            if id_ in self.added:
                self.added[id_] = fp
            else:
                self.changed[id_] = fp
        self.removed.extend(i for i in other.removed if i not in self.removed)
        self.skipped.extend(other.skipped)
        self.rescan = self.rescan or other.rescan


def _fold_records(
    mine: Mapping[str, Document], later: Mapping[str, Document], removed: list[str]
) -> Mapping[str, Document]:
    if isinstance(mine, FixedDocuments) or isinstance(later, FixedDocuments):
        if mine is later or not mine:
            return later
        if not later:
            return mine
        raise ValueError("a batch of fixed documents folds only with batches of the same")
    records = mine if isinstance(mine, dict) else dict(mine)
    for id_ in removed:
        records.pop(id_, None)
    records.update(later)
    return records


def display_id(id_: str) -> str:
    """Render an id for the screen: undecodable bytes become ``\\xNN`` escapes."""
    raw = os.fsencode(id_)
    return raw.decode("utf-8", "backslashreplace")
