"""Fingerprinting a folder from Python: the corpus walker as an iterator."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from ditto_tui._lib.pipelines import Pipeline, ditto
from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.corpus.documents import ScanOptions, Skipped
from ditto_tui.corpus.stream import iter_fingerprints

__all__ = ["Fingerprinted", "fingerprint_folder"]


class Fingerprinted(NamedTuple):
    """One document of a folder and its fingerprint."""

    id: str
    fingerprint: Fingerprint


def fingerprint_folder(
    path: str | os.PathLike[str],
    pipeline: Pipeline | None = None,
    *,
    max_size: int = 64 * 1024 * 1024,
    include_binary: bool = False,
    ignore: Sequence[str] = (),
    jobs: int | None = None,
    cache: bool = True,
) -> Iterator[Fingerprinted | Skipped]:
    """Walk ``path`` (a folder or one file) and yield each document's fingerprint.

    Yields ``Fingerprinted(id, fingerprint)`` for every document and
    ``Skipped(id, path, reason)`` for everything refused (binary, larger than
    ``max_size`` bytes, unreadable, a FIFO or device, a symlink leaving the folder or
    looping, not accepted by the pipeline, ...), in walk order: depth-first, names in
    byte order, as Go ditto's CLI. An id is ``path`` joined with the relative path (the
    same ids ``ditto-tui fingerprint`` prints); a maildir message is one document, an
    mbox file gives ``file#1``, ``file#2``, ...

    A ``path`` that does not exist raises ``FileNotFoundError`` at once (before the
    first item), as :class:`CorpusSession` does: a problem with the argument itself is
    an error, a problem with one file inside it a Skipped.

    ``ignore`` adds gitignore-style patterns (a ``.dittoignore`` in the folder is read
    too); ``include_binary`` fingerprints binary files as Go ditto does. Files are read
    in worker processes when there are many (``jobs``, default: the CPU count).
    ``cache=True`` answers unchanged files from the fingerprint cache in the user cache
    folder (see the guide, "The cache") and records new ones; ``cache=False`` reads
    everything and writes nothing outside ``path``.

    Deterministic for a folder that does not change while it is walked. Never raises for
    a problem with one file (that is a Skipped); memory stays bounded (a few chunks of
    files in flight). Safe to run from any thread; the iterator itself is one thread's.
    """
    root = os.fspath(path)
    if not os.path.lexists(root):
        raise FileNotFoundError(errno.ENOENT, "no such file or folder", root)
    options = ScanOptions(
        max_size=max_size, include_binary=include_binary, ignore=tuple(ignore)
    )
    return _walk(root, pipeline or ditto(), options, jobs, cache)


def _walk(
    root: str, pipeline: Pipeline, options: ScanOptions, jobs: int | None, cache: bool
) -> Iterator[Fingerprinted | Skipped]:
    for item in iter_fingerprints(
        [root], pipeline, options=options, jobs=jobs, use_cache=cache
    ):
        if isinstance(item, Skipped):
            yield item
        else:
            yield Fingerprinted(item[0], item[1])
