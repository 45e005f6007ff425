"""The fingerprint command's bulk stream: fingerprints of a walk in batches, no cache.

The same documents, ids, order and skips (with their reasons) as
:func:`~ditto_tui.corpus.stream.iter_fingerprints` with ``use_cache=False``, for the
ditto/2 pipeline, at a fraction of the per-file cost: the walk stays as it is (it decides
every skip), each file is read with one open, one read and one close when nothing about
it is unusual (anything else takes the careful reader, which gives the reason), a chunk
of documents is fingerprinted in one compiled call, and results travel as plain ints
(no per-document objects). Worker processes start when the work is large enough.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, NamedTuple, overload

from ditto_tui.core.fingerprint.featurize import Featurizer
from ditto_tui.corpus.documents import DEFAULT_OPTIONS, ScanOptions, Skipped
from ditto_tui.corpus.mail import looks_like_mbox
from ditto_tui.corpus.reading import BINARY_PROBE, read_walked
from ditto_tui.corpus.records import FileEntry
from ditto_tui.corpus.rootdir import RootDir
from ditto_tui.corpus.scan import (
    BINARY_REASON,
    CHUNK_BYTES,
    INFLIGHT_PER_JOB,
    POOL_MIN_BYTES,
    POOL_MIN_FILES,
    default_jobs,
    die_with_parent,
    mbox_fingerprints,
    pool_context,
    sniff_then_fingerprint,
)
from ditto_tui.corpus.stream import id_maker
from ditto_tui.corpus.walk import SAME_FILE, Walker

if TYPE_CHECKING:  # concurrent.futures is imported by runs that use a pool
    from concurrent.futures import Future

__all__ = ["Batch", "MessageIds", "fingerprint_batches"]

#: Files of one chunk: one compiled call, one message to or from a worker. Its bytes are
#: bounded by the scan's ``CHUNK_BYTES``, the one bound of a chunk sent to a worker.
CHUNK_FILES = 512

#: What one file gave: its fingerprint, the fingerprints of its mbox messages, or a skip
#: reason.
Outcome = int | list[int] | str


class MessageIds(Sequence[str]):
    """The ids of an mbox's ``messages`` messages, ``<base>#1`` to ``<base>#<messages>``,
    made only when asked for (a writer can use ``base`` and ``len`` instead)."""

    __slots__ = ("base", "messages")

    def __init__(self, base: str, messages: int) -> None:
        self.base = base
        self.messages = messages

    def __len__(self) -> int:
        return self.messages

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        numbers = range(1, self.messages + 1)
        if isinstance(index, slice):
            return [f"{self.base}#{i}" for i in numbers[index]]
        return f"{self.base}#{numbers[index]}"

    def __repr__(self) -> str:
        return f"MessageIds({self.base!r}, {self.messages})"


class Batch(NamedTuple):
    """Documents in walk order with their fingerprints, and the skips met among them:
    ``(i, skipped)`` comes before ``ids[i]`` (``i == len(ids)``: after the last). The
    messages of an mbox come as a batch of their own, whose ``ids`` is a ``MessageIds``."""

    ids: Sequence[str]
    fps: list[int]
    skips: list[tuple[int, Skipped]]


def fingerprint_batches(
    paths: Sequence[str],
    featurizer: Featurizer,
    *,
    options: ScanOptions = DEFAULT_OPTIONS,
    jobs: int | None = None,
) -> Iterator[Batch]:
    """Fingerprints of every document under ``paths`` in batches (see the module
    docstring); ``jobs`` as for :func:`~ditto_tui.corpus.scan.resolve_entries`."""
    for arg in paths:
        if not os.path.lexists(arg):
            yield Batch([], [], [(0, Skipped(arg, os.path.abspath(arg), "no such file or folder"))])
            continue
        walker = Walker(arg, options, accepts=featurizer.accepts, pipeline_name=featurizer.name)
        try:
            yield from _walk_batches(walker, id_maker(arg, walker), featurizer, options, jobs)
        finally:
            walker.close()


class _Chunk:
    __slots__ = ("items", "entries", "size", "future", "outcomes")

    def __init__(self) -> None:
        self.items: list[FileEntry | Skipped] = []
        self.entries: list[FileEntry] = []
        self.size = 0
        self.future: Future[list[Outcome]] | None = None
        self.outcomes: list[Outcome] | None = None


def _chunks(walker: Walker) -> Iterator[_Chunk]:
    chunk = _Chunk()
    for item in walker.walk():
        chunk.items.append(item)
        if isinstance(item, FileEntry):
            chunk.entries.append(item)
            chunk.size += item.size
            if len(chunk.entries) >= CHUNK_FILES or chunk.size >= CHUNK_BYTES:
                yield chunk
                chunk = _Chunk()
    if chunk.items:
        yield chunk


def _walk_batches(
    walker: Walker, ident: Callable[[str], str], featurizer: Featurizer, options: ScanOptions,
    jobs: int | None,
) -> Iterator[Batch]:
    source = _chunks(walker)
    head: list[_Chunk] = []
    files = size = 0
    for chunk in source:
        head.append(chunk)
        files += len(chunk.entries)
        size += chunk.size
        if files >= POOL_MIN_FILES and size >= POOL_MIN_BYTES:
            break
    n_jobs = jobs if jobs is not None and jobs > 0 else default_jobs()
    use_pool = n_jobs > 1 and files >= POOL_MIN_FILES and size >= POOL_MIN_BYTES
    root = walker.rootdir

    def local(entries: list[FileEntry]) -> list[Outcome]:
        return _outcomes(featurizer, root, entries, options.max_size, options.include_binary,
                         1 if use_pool else n_jobs)

    def chunks() -> Iterator[_Chunk]:
        yield from head
        yield from source

    if not use_pool:
        for chunk in chunks():
            chunk.outcomes = local(chunk.entries)
            yield from _batches(chunk, ident)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = pool_context()
    pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
        max_workers=n_jobs, mp_context=context, initializer=_init_worker,
        initargs=(featurizer, root, options.max_size, options.include_binary, os.getpid()),
    )
    inflight: deque[_Chunk] = deque()
    limit = n_jobs * INFLIGHT_PER_JOB

    def finish(chunk: _Chunk) -> Iterator[Batch]:
        if chunk.future is not None:
            try:
                chunk.outcomes = chunk.future.result()
            except BrokenProcessPool:
                chunk.outcomes = local(chunk.entries)
        return _batches(chunk, ident)

    try:
        for chunk in chunks():
            if pool is not None and chunk.entries:
                try:
                    # plain tuples: a NamedTuple pickles several times slower
                    chunk.future = pool.submit(_work, [(*e[:1], "", *e[2:]) for e in chunk.entries])
                except (BrokenProcessPool, RuntimeError):
                    pool = None
            if chunk.future is None:
                chunk.outcomes = local(chunk.entries)
            inflight.append(chunk)
            while len(inflight) > limit or (
                inflight and (inflight[0].future is None or inflight[0].future.done())
            ):
                yield from finish(inflight.popleft())
        while inflight:
            yield from finish(inflight.popleft())
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _batches(chunk: _Chunk, ident: Callable[[str], str]) -> Iterator[Batch]:
    """The chunk's documents and skips in walk order, with ditto's ids: one batch, and one
    more for the messages of each mbox (after the documents and skips before it)."""
    ids: list[str] = []
    fps: list[int] = []
    skips: list[tuple[int, Skipped]] = []
    outcomes = iter(chunk.outcomes or ())
    for item in chunk.items:
        if isinstance(item, FileEntry):
            got = next(outcomes)
            if type(got) is int:
                ids.append(ident(item.id))
                fps.append(got)
            elif isinstance(got, list):
                if ids or skips:
                    yield Batch(ids, fps, skips)
                    ids, fps, skips = [], [], []
                if got:
                    yield Batch(MessageIds(ident(item.id), len(got)), got, [])
            else:
                assert isinstance(got, str)
                skips.append((len(ids), Skipped(ident(item.id), item.path, got)))
        else:
            if item.same_as is not None:
                same = ident(item.same_as)
                item = Skipped(item.id, item.path, SAME_FILE + same, same)
            skips.append((len(ids), Skipped(ident(item.id), item.path, item.reason, item.same_as)))
    if ids or skips:
        yield Batch(ids, fps, skips)


def _outcomes(
    featurizer: Featurizer,
    root: RootDir,
    entries: Sequence[tuple[str, str, str, int, int, int, bool]],
    max_size: int,
    include_binary: bool,
    threads: int,
) -> list[Outcome]:
    """Read and fingerprint a chunk of walked files (``FileEntry`` fields, maybe as a plain
    tuple); never raises."""
    out: list[Outcome] = [""] * len(entries)
    datas: list[bytes] = []
    where: list[int] = []
    with root.batch():
        for i, entry in enumerate(entries):
            rel, kind, inode, sniff = entry[0], entry[2], entry[5], entry[6]
            got = None if sniff else read_walked(root, rel, inode, max_size)
            if got is None:
                out[i] = _careful(featurizer, root, entry, max_size, include_binary, threads)
                continue
            data = got[0]
            if not include_binary and data.find(b"\0", 0, BINARY_PROBE) != -1:
                out[i] = BINARY_REASON
                continue
            if kind == "text" and looks_like_mbox(rel.rsplit("/", 1)[-1], data[:256]):
                try:
                    out[i] = mbox_fingerprints(featurizer, data, threads)[2]
                except Exception:  # noqa: BLE001 - the careful path names the failure
                    out[i] = _careful(featurizer, root, entry, max_size, include_binary, threads)
                continue
            datas.append(data)
            where.append(i)
    if datas:
        spans = []
        offset = 0
        for data in datas:
            spans.append((offset, len(data)))
            offset += len(data)
        try:
            fps = featurizer.fingerprint_spans(b"".join(datas), spans)
        except Exception:  # noqa: BLE001 - one file at a time then, each with its reason
            for i in where:
                out[i] = _careful(featurizer, root, entries[i], max_size, include_binary, threads)
        else:
            for i, fp in zip(where, fps, strict=True):
                out[i] = int(fp)
    return out


def _careful(
    featurizer: Featurizer, root: RootDir, entry: tuple[str, str, str, int, int, int, bool],
    max_size: int, include_binary: bool, threads: int,
) -> Outcome:
    """What the stream's careful reader makes of one file (the reason of any skip)."""
    result = sniff_then_fingerprint(
        featurizer, FileEntry(*entry), root, max_size=max_size, include_binary=include_binary,
        threads=threads,
    )
    if result.skip is not None:
        return result.skip
    if result.mbox:
        return [fp for _off, _n, fp in result.parts]
    assert result.fp is not None
    return result.fp


_WORKER: tuple[Featurizer, RootDir, int, bool] | None = None


def _init_worker(
    featurizer: Featurizer, root: RootDir, max_size: int, include_binary: bool, owner: int
) -> None:
    global _WORKER
    die_with_parent(owner)
    _WORKER = (featurizer, root, max_size, include_binary)


def _work(entries: list[tuple[str, str, str, int, int, int, bool]]) -> list[Outcome]:
    assert _WORKER is not None, "worker not initialised"
    featurizer, root, max_size, include_binary = _WORKER
    return _outcomes(featurizer, root, entries, max_size, include_binary, 1)
