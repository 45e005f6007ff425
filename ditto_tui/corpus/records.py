"""Records passed between the walker, the reader, the cache and the session.

Plain immutable values with no behaviour beyond naming their fields, so that ``walk``,
``scan``, ``cache`` and ``session`` all import them from here and never from each other
in a circle.
"""

from __future__ import annotations

from typing import NamedTuple

from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.corpus.documents import Document, Skipped

__all__ = ["CachedFile", "FileEntry", "FileResult", "Resolved"]


class FileEntry(NamedTuple):
    """A file the walker accepted as a candidate document (not read yet).

    ``id`` is root-relative (``/``-separated); ``kind`` is ``"text"``, ``"html"`` or
    ``"maildir"`` (an mbox is only recognised when read); ``size``/``mtime_ns``/``inode``
    come from ``lstat`` of the file. ``sniff`` is True for a file the pipeline refused by
    name: it is a document only if the pipeline's ``accepts_head`` takes its first bytes
    (checked when it is read).
    """

    id: str
    path: str
    kind: str
    size: int
    mtime_ns: int
    inode: int
    sniff: bool = False

    @property
    def key(self) -> tuple[int, int, int]:
        """The change-detection key (size, mtime_ns, inode)."""
        return (self.size, self.mtime_ns, self.inode)


class FileResult(NamedTuple):
    """What reading one file produced (picklable, small).

    ``key`` is (size, mtime_ns, inode) at the read; ``fp`` is the whole-file fingerprint
    (None for an mbox, a skipped binary file or a failure); ``parts`` holds one
    (offset, size, fp) per mbox message; ``skip`` is a reason when the file is refused.
    """

    id: str
    key: tuple[int, int, int]
    binary: bool
    mbox: bool
    fp: int | None
    parts: tuple[tuple[int, int, int], ...]
    skip: str | None


class Resolved(NamedTuple):
    """The outcome for one walked file: its documents with fingerprints, or a skip.

    ``key`` is the (size, mtime_ns, inode) the fingerprints belong to; ``from_cache`` tells
    whether the file was answered without reading it. The session keeps these for every
    file, so they share what they can: the key's and the documents' numbers are the
    entry's when they are equal, and each fingerprint is the one object the session
    publishes.
    """

    entry: FileEntry
    key: tuple[int, int, int]
    docs: tuple[tuple[Document, Fingerprint], ...]
    skip: Skipped | None
    from_cache: bool


class CachedFile(NamedTuple):
    """One cached file: its key at the read and what it yielded (see :class:`FileResult`)."""

    key: tuple[int, int, int]
    binary: bool
    mbox: bool
    fp: int | None
    parts: tuple[tuple[int, int, int], ...]
