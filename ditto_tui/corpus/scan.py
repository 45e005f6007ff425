"""Turning walked files into fingerprints: cache look-ups, then reading in worker processes.

:func:`resolve_entries` consumes a walk (``FileEntry``/``Skipped`` in walk order) and yields
one :class:`Resolved` per file, in the same order. Files whose (size, mtime_ns, inode) match
the cache are answered without being opened; the others are read and fingerprinted, in
worker processes when there are enough of them (at least ``POOL_MIN_FILES`` files and
``POOL_MIN_BYTES`` bytes), else in-process to avoid the pool's start-up cost. Workers get
chunks of entries and return only ids, stat keys and integer fingerprints; at most
``INFLIGHT_PER_JOB`` chunks per job are in flight, so memory stays bounded on any corpus.
Workers die with the process that started them (:func:`die_with_parent`), even when it is
killed with SIGKILL.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.core.html.sniff import SNIFF_BYTES
from ditto_tui.corpus.documents import DEFAULT_OPTIONS, Document, ScanOptions, Skipped
from ditto_tui.corpus.mail import looks_like_mbox, split_mbox
from ditto_tui.corpus.reading import SkipFile, read_document_bytes, read_head, refused_reason
from ditto_tui.corpus.records import CachedFile, FileEntry, FileResult, Resolved
from ditto_tui.corpus.rootdir import RootDir

if TYPE_CHECKING:  # the cache (sqlite3, numpy) is imported by whoever opens one
    import multiprocessing.context
    from concurrent.futures import Future

    from ditto_tui.core.fingerprint.pipeline import Pipeline
    from ditto_tui.corpus.cache import FingerprintCache

__all__ = [
    "FileResult",
    "Resolved",
    "default_jobs",
    "fingerprint_file",
    "mbox_fingerprints",
    "pool_context",
    "resolve_entries",
    "sniff_then_fingerprint",
    "to_resolved",
]

POOL_MIN_FILES = 50
POOL_MIN_BYTES = 2 * 1024 * 1024
CHUNK_FILES = 128
#: Bytes of the files of one chunk sent to a worker (the bulk stream's chunks too).
CHUNK_BYTES = 4 * 1024 * 1024
INFLIGHT_PER_JOB = 3
BINARY_REASON = "binary file"


def fingerprint_file(
    pipeline: Pipeline,
    entry: FileEntry,
    root: RootDir,
    *,
    max_size: int,
    include_binary: bool,
    threads: int = 1,
) -> FileResult:
    """Read one file (through ``root``) and fingerprint it (an mbox message by message);
    never raises. (A ``sniff`` entry goes through :func:`sniff_then_fingerprint`.)

    ``threads`` > 1 lets a pipeline that can (``fingerprint_spans``) share an mbox's
    messages between threads.
    """
    try:
        data, st, binary = read_document_bytes(
            root, root.file_rel(entry.id), max_size=max_size, want_binary=include_binary
        )
    except SkipFile as exc:
        return FileResult(entry.id, entry.key, False, False, None, (), exc.reason)
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    if binary and not include_binary:
        return FileResult(entry.id, key, True, False, None, (), BINARY_REASON)
    try:
        name = entry.id.rsplit("/", 1)[-1]
        if entry.kind == "text" and looks_like_mbox(name, data[:256]):
            parts = tuple(zip(*mbox_fingerprints(pipeline, data, threads), strict=True))
            return FileResult(entry.id, key, binary, True, None, parts, None)
        return FileResult(entry.id, key, binary, False, int(pipeline.fingerprint(data)), (), None)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop a scan
        reason = f"could not fingerprint ({type(exc).__name__}: {exc})"
        return FileResult(entry.id, key, binary, False, None, (), reason)


def mbox_fingerprints(
    pipeline: Pipeline, data: bytes, threads: int = 1
) -> tuple[list[int], list[int], list[int]]:
    """The messages of the mbox ``data`` (the spans of ``split_mbox``) as three lists:
    offsets, sizes and fingerprints. The compiled kernel finds and fingerprints them in
    one pass when the pipeline offers it (``mbox_parts``); else they are split first,
    then fingerprinted in one call (``fingerprint_spans``) or one at a time."""
    by_kernel = getattr(pipeline, "mbox_parts", None)
    found = by_kernel(data, threads) if by_kernel is not None else None
    if found is not None:
        return found.offsets.tolist(), found.sizes.tolist(), found.fps.tolist()
    spans = split_mbox(data)
    by_spans = getattr(pipeline, "fingerprint_spans", None)
    if by_spans is not None:  # one call for all messages
        fps = [int(fp) for fp in by_spans(data, spans, threads=threads)]
    else:
        fps = [int(pipeline.fingerprint(data[off : off + n])) for off, n in spans]
    return [off for off, _ in spans], [n for _, n in spans], fps


def sniff_then_fingerprint(
    pipeline: Pipeline,
    entry: FileEntry,
    root: RootDir,
    *,
    max_size: int,
    include_binary: bool,
    threads: int = 1,
) -> FileResult:
    """:func:`fingerprint_file`, after judging a ``sniff`` entry by
    ``pipeline.accepts_head`` on its first ``SNIFF_BYTES`` bytes (refused: a skip, the rest
    of the file never read); never raises."""
    if entry.sniff:
        refused = _refused_head(pipeline, entry, root)
        if refused is not None:
            return refused
    return fingerprint_file(
        pipeline, entry, root, max_size=max_size, include_binary=include_binary,
        threads=threads,
    )


def _refused_head(pipeline: Pipeline, entry: FileEntry, root: RootDir) -> FileResult | None:
    """The skip of a ``sniff`` entry whose first bytes the pipeline refuses (or that cannot
    be read), None when it is a document."""
    try:
        head = read_head(root, root.file_rel(entry.id), SNIFF_BYTES)
    except SkipFile as exc:
        return FileResult(entry.id, entry.key, False, False, None, (), exc.reason)
    judge = getattr(pipeline, "accepts_head", None)  # pipelines without it: by name only
    if judge is not None and judge(head):
        return None
    return FileResult(entry.id, entry.key, False, False, None, (),
                      refused_reason(pipeline.name))


def to_resolved(entry: FileEntry, result: FileResult, *, from_cache: bool) -> Resolved:
    """Documents (or the skip) a file result stands for; ids of mbox messages are ``id#N``."""
    key = entry[3:6]  # (the entry's numbers, shared, when the read saw the same file)
    if result.key != key:
        key = result.key
    if result.skip is not None:
        return Resolved(entry, key, (), Skipped(entry.id, entry.path, result.skip), from_cache)
    size, mtime_ns, inode = key
    if result.mbox:
        docs = tuple(
            (Document(f"{entry.id}#{i}", entry.path, "mbox", n, mtime_ns, inode, off),
             Fingerprint(fp))
            for i, (off, n, fp) in enumerate(result.parts, 1)
        )
    else:
        assert result.fp is not None
        docs = ((Document(entry.id, entry.path, entry.kind, size, mtime_ns, inode),
                 Fingerprint(result.fp)),)
    return Resolved(entry, key, docs, None, from_cache)


# -- worker processes -------------------------------------------------------------------
_WORKER: tuple[Pipeline, RootDir, int, bool] | None = None


def _init_worker(
    pipeline: Pipeline, root: RootDir, max_size: int, include_binary: bool, owner: int
) -> None:
    global _WORKER
    die_with_parent(owner)
    _WORKER = (pipeline, root, max_size, include_binary)


PR_SET_PDEATHSIG = 1
#: Seconds between two checks that the owner still lives (where no descriptor tells).
PARENT_CHECK_SECONDS = 0.5


def die_with_parent(owner: int) -> None:
    """End this worker process when ``owner`` (the process whose pool it serves) ends,
    even by SIGKILL.

    The owner is not always the OS parent (with 'forkserver' the server forked us), so:
    on Linux ``PR_SET_PDEATHSIG`` covers the parent, and a daemon thread waits on a pidfd
    of the owner (readable once it exited), or, without pidfds, checks it twice a second.
    """
    if sys.platform.startswith("linux") and os.getppid() == owner:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if not _alive(owner):  # died before we were ready
        os._exit(1)
    pidfd: int | None = None
    with contextlib.suppress(AttributeError, OSError):
        pidfd = os.pidfd_open(owner)  # type: ignore[attr-defined,unused-ignore]
    threading.Thread(
        target=_watch_owner, args=(owner, pidfd), name="ditto-tui owner watch", daemon=True
    ).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return True  # no /proc: trust kill()


def _watch_owner(owner: int, pidfd: int | None) -> None:
    if pidfd is not None:
        select.select([pidfd], [], [])
        os._exit(1)
    while _alive(owner):
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


def _work(entries: list[FileEntry]) -> list[FileResult]:
    assert _WORKER is not None, "worker not initialised"
    pipeline, root, max_size, include_binary = _WORKER
    with root.batch():
        return [
            sniff_then_fingerprint(
                pipeline, e, root, max_size=max_size, include_binary=include_binary
            )
            for e in entries
        ]


_LAZY = ("ProcessPoolExecutor", "BrokenProcessPool")


def __getattr__(name: str) -> Any:
    """``ProcessPoolExecutor`` and ``BrokenProcessPool`` of ``concurrent.futures``,
    imported at first use: a run without a pool never pays for that import."""
    if name in _LAZY:
        from concurrent.futures import process

        value = getattr(process, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _pool_classes() -> tuple[Any, Any]:
    """(ProcessPoolExecutor, BrokenProcessPool), as this module's attributes (so a test
    can replace them)."""
    module = sys.modules[__name__]
    return module.ProcessPoolExecutor, module.BrokenProcessPool


def pool_context() -> multiprocessing.context.BaseContext:
    """'fork' on Linux while the process is single-threaded, else 'forkserver' (Linux) or the
    platform default: forking a threaded process (a UI, a watcher) can deadlock the child.
    (``multiprocessing`` and ``concurrent.futures`` are imported only by runs that use a
    pool: about 0.03 s of a command's start-up.)"""
    import multiprocessing

    if sys.platform.startswith("linux"):
        if threading.active_count() == 1:
            return multiprocessing.get_context("fork")
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context()


def default_jobs() -> int:
    """Worker count when none is given: the CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# -- resolving a walk -------------------------------------------------------------------
_Item = FileEntry | Skipped


class _Chunk:
    """A run of walk items in order; its misses are computed together (maybe in a worker)."""

    __slots__ = ("items", "misses", "miss_bytes", "future", "results")

    def __init__(self) -> None:
        self.items: list[_Item | Resolved] = []
        self.misses: list[FileEntry] = []
        self.miss_bytes = 0
        self.future: Future[list[FileResult]] | None = None
        self.results: list[FileResult] | None = None


def resolve_entries(
    items: Iterable[FileEntry | Skipped],
    pipeline: Pipeline,
    root: RootDir,
    *,
    options: ScanOptions = DEFAULT_OPTIONS,
    jobs: int | None = None,
    cache: FingerprintCache | None = None,
    rows: Mapping[str, CachedFile] | None = None,
    cached: Callable[[FileEntry], Resolved | None] | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> Iterator[Resolved | Skipped]:
    """Resolve a walk to fingerprints, in walk order (see the module docstring).

    Files are opened through ``root`` (the walker's ``rootdir``) only.
    ``jobs`` is the worker count (None or 0: every CPU this process may use; 1: no
    worker processes). ``cached(entry)`` may answer an entry first (the session's in-memory state); then
    ``rows`` (cache rows of this pipeline, from ``FingerprintCache.load``) are consulted;
    everything else is read, and new results are written to ``cache``. Stops early
    (without error) when ``cancelled()`` turns True.
    """
    identity = pipeline.identity

    def lookup(entry: FileEntry) -> Resolved | None:
        if cached is not None:
            hit = cached(entry)
            if hit is not None:
                return hit
        if rows is None:
            return None
        row = rows.get(entry[0])
        if row is None:
            return None
        key = entry[3:6]  # (size, mtime_ns, inode) without the property call: hot path
        row_key, binary, mbox, fp, parts = row
        if row_key != key:
            return None
        if entry.sniff:  # cached under other options (html_any)? Its head decides again.
            refused = _refused_head(pipeline, entry, root)
            if refused is not None:
                return to_resolved(entry, refused, from_cache=False)
        if binary and not options.include_binary:
            result = FileResult(entry.id, key, True, False, None, (), BINARY_REASON)
        elif mbox:
            result = FileResult(entry.id, key, binary, True, None, parts, None)
        elif fp is None:
            return None
        else:  # the common case, kept short: one document
            doc = Document(entry[0], entry[1], entry[2], key[0], key[1], key[2])
            return Resolved(entry, key, ((doc, Fingerprint(fp)),), None, True)
        return to_resolved(entry, result, from_cache=True)

    def chunks() -> Iterator[_Chunk]:
        chunk = _Chunk()
        for item in items:
            if isinstance(item, FileEntry):
                hit = lookup(item)
                if hit is not None:
                    chunk.items.append(hit)
                else:
                    chunk.items.append(item)
                    chunk.misses.append(item)
                    chunk.miss_bytes += item.size
            else:
                chunk.items.append(item)
            if len(chunk.misses) >= CHUNK_FILES or chunk.miss_bytes >= CHUNK_BYTES or (
                len(chunk.items) >= 8 * CHUNK_FILES
            ):
                yield chunk
                chunk = _Chunk()
        if chunk.items:
            yield chunk

    def local(entries: list[FileEntry], threads: int = 1) -> list[FileResult]:
        with root.batch():
            return [
                sniff_then_fingerprint(
                    pipeline, e, root, max_size=options.max_size,
                    include_binary=options.include_binary, threads=threads,
                )
                for e in entries
            ]

    def emit(chunk: _Chunk) -> Iterator[Resolved | Skipped]:
        results = iter(chunk.results or ())
        for item in chunk.items:
            if isinstance(item, FileEntry):
                result = next(results)
                if cache is not None:
                    cache.put(identity, result)
                yield to_resolved(item, result, from_cache=False)
            else:
                yield item

    # Decide between in-process and a pool by peeking at the first chunks.
    source = chunks()
    head: list[_Chunk] = []
    files = size = 0
    for chunk in source:
        head.append(chunk)
        files += len(chunk.misses)
        size += chunk.miss_bytes
        if files >= POOL_MIN_FILES and size >= POOL_MIN_BYTES:
            break
    n_jobs = jobs if jobs is not None and jobs > 0 else default_jobs()  # 0/None: all CPUs
    use_pool = n_jobs > 1 and files >= POOL_MIN_FILES and size >= POOL_MIN_BYTES

    def all_chunks() -> Iterator[_Chunk]:
        yield from head
        yield from source

    try:
        if not use_pool:
            for chunk in all_chunks():
                if cancelled():
                    return
                if chunk.misses:  # no pool: threads may share an mbox's messages
                    chunk.results = local(chunk.misses, n_jobs)
                yield from emit(chunk)
            return
        yield from _pooled(
            all_chunks(), pipeline, root, options, n_jobs, local, emit, cancelled
        )
    finally:
        if cache is not None:
            cache.flush()


def _pooled(
    chunk_iter: Iterator[_Chunk],
    pipeline: Pipeline,
    root: RootDir,
    options: ScanOptions,
    n_jobs: int,
    local: Callable[[list[FileEntry]], list[FileResult]],
    emit: Callable[[_Chunk], Iterator[Resolved | Skipped]],
    cancelled: Callable[[], bool],
) -> Iterator[Resolved | Skipped]:
    """Ordered, bounded parallel map of chunks over a process pool (falls back in-process
    for the rest of the run if the pool breaks, e.g. a worker killed by the OOM killer)."""
    ProcessPoolExecutor, BrokenProcessPool = _pool_classes()  # noqa: N806 - the classes
    context = pool_context()
    pool: Any = ProcessPoolExecutor(
        max_workers=n_jobs,
        mp_context=context,
        initializer=_init_worker,
        initargs=(pipeline, root, options.max_size, options.include_binary, os.getpid()),
    )
    inflight: deque[_Chunk] = deque()
    limit = n_jobs * INFLIGHT_PER_JOB
    try:
        for chunk in chunk_iter:
            if cancelled():
                return
            if chunk.misses:
                if pool is not None:
                    try:
                        chunk.future = pool.submit(_work, chunk.misses)
                    except (BrokenProcessPool, RuntimeError):
                        pool = None
                if pool is None:
                    chunk.results = local(chunk.misses)
            inflight.append(chunk)
            while len(inflight) > limit or (inflight and _ready(inflight[0])):
                yield from emit(_finish(inflight.popleft(), local))
        while inflight:
            if cancelled():
                return
            yield from emit(_finish(inflight.popleft(), local))
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _ready(chunk: _Chunk) -> bool:
    return chunk.future is None or chunk.future.done()


def _finish(chunk: _Chunk, local: Callable[[list[FileEntry]], list[FileResult]]) -> _Chunk:
    if chunk.future is not None:
        _pool, BrokenProcessPool = _pool_classes()  # noqa: N806 - the class

        try:
            chunk.results = chunk.future.result()
        except BrokenProcessPool:
            chunk.results = local(chunk.misses)
        chunk.future = None
    return chunk
