"""The ditto-compatible fingerprint stream of the CLI: ids as ditto spells them, walk order.

Ties the walker, the reader and the fingerprint cache together for scripts; the explorer
uses :class:`~ditto_tui.corpus.session.CorpusSession` instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.corpus.documents import DEFAULT_OPTIONS, ScanOptions, Skipped
from ditto_tui.corpus.scan import resolve_entries
from ditto_tui.corpus.walk import SAME_FILE, Walker

if TYPE_CHECKING:
    from ditto_tui.core.fingerprint.pipeline import Pipeline
    from ditto_tui.corpus.cache import FingerprintCache

__all__ = ["go_clean", "go_join", "id_maker", "iter_fingerprints"]


def go_clean(path: str) -> str:
    """Go's ``filepath.Clean`` for ``/``-separated paths."""
    if path == "":
        return "."
    rooted = path.startswith("/")
    parts: list[str] = []
    for comp in path.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(comp)
    out = "/".join(parts)
    if rooted:
        return "/" + out
    return out or "."


def go_join(*elems: str) -> str:
    """Go's ``filepath.Join``: non-empty elements joined by ``/`` then cleaned."""
    kept = [e for e in elems if e]
    return go_clean("/".join(kept)) if kept else ""


def id_maker(arg: str, walker: Walker) -> Callable[[str], str]:
    """The function from a walker's root-relative ids to ditto's ids for the argument
    ``arg``: ``go_join(arg, rel)`` for a folder, the argument as given for a file (an mbox
    message keeps its ``#N``)."""
    is_dir = os.path.isdir(arg)
    # go_join(arg, rel) without cleaning each id: walked names are never "", "." or
    # "..", so joining them to the cleaned argument is already clean.
    clean = go_clean(arg)
    prefix = "" if clean == "." else clean if clean.endswith("/") else clean + "/"
    base = os.path.basename(walker.root)

    def ident(rel: str) -> str:
        if is_dir:
            return prefix + rel if rel else go_join(arg, rel)
        return arg + rel[len(base):] if rel.startswith(base) else arg

    return ident


def iter_fingerprints(
    paths: Sequence[str],
    pipeline: Pipeline,
    *,
    options: ScanOptions = DEFAULT_OPTIONS,
    jobs: int | None = None,
    cache: str | os.PathLike[str] | None = None,
    use_cache: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
    notices: list[str] | None = None,
) -> Iterator[tuple[str, Fingerprint] | Skipped]:
    """Fingerprints of every document under ``paths``, in ditto's order, with ditto's ids.

    A folder argument is walked depth-first in byte order of names and a document's id is
    ``go_join(argument, relative path)`` (``"."`` gives bare relative paths); a file argument
    is one document whose id is the argument as given (an mbox gives ``arg#N`` messages).
    Results are yielded in walk order as ``(id, Fingerprint)``; refused paths come as
    :class:`Skipped` at their place in that order (their ``id`` uses the same joining). A
    missing argument is a Skipped with reason "no such file or folder".

    Files are read in worker processes when there are many (``jobs`` defaults to the CPU
    count); memory stays bounded by a few chunks in flight. With ``use_cache`` each folder
    argument uses its own fingerprint cache database: by default in the user cache folder
    (``cache_dir`` overrides that folder); ``cache`` names the database file when there is
    one folder argument, and with several each folder gets ``<stem>-<root digest><suffix>``
    beside it. Cache problems are appended to ``notices`` and never stop the stream; a
    ``cache`` inside a folder argument raises ValueError before anything is yielded.
    """
    folders = [p for p in paths if os.path.isdir(p)]
    if use_cache and folders:  # only folders have a cache (sqlite3 costs start-up time)
        from ditto_tui.corpus.cache import cache_file_for, open_cache_for_root
        from ditto_tui.corpus.rootdir import is_inside
    if cache is not None and use_cache:
        for folder in folders:
            if is_inside(os.path.dirname(os.path.abspath(cache)), folder):
                raise ValueError(f"the cache {cache} must not be inside {folder}")
    for arg in paths:
        if not os.path.lexists(arg):
            yield Skipped(arg, os.path.abspath(arg), "no such file or folder")
            continue
        walker = Walker(
            arg, options, accepts=pipeline.accepts, pipeline_name=getattr(pipeline, "name", "")
        )
        is_dir = os.path.isdir(arg)
        ident = id_maker(arg, walker)

        store: FingerprintCache | None = None
        if use_cache and is_dir:
            db: str | os.PathLike[str] | None = None
            if cache is not None:
                db = cache if len(folders) == 1 else cache_file_for(cache, walker.root)
            store = open_cache_for_root(
                walker.root,
                cache=None if db is None else os.fspath(db),
                cache_dir=None if cache_dir is None else os.fspath(cache_dir),
                notices=notices,
            )
        try:
            rows = store.load(pipeline.identity) if store is not None else None
            seen: set[str] = set()
            for item in resolve_entries(
                walker.walk(), pipeline, walker.rootdir, options=options, jobs=jobs,
                cache=store, rows=rows,
            ):
                if not isinstance(item, Skipped):
                    seen.add(item.entry.id)
                    if item.skip is not None:
                        item = item.skip

                if isinstance(item, Skipped):
                    if item.same_as is not None:
                        same = ident(item.same_as)
                        item = Skipped(item.id, item.path, SAME_FILE + same, same)
                    yield Skipped(ident(item.id), item.path, item.reason, item.same_as)
                else:
                    for doc, fp in item.docs:
                        yield ident(doc.id), fp
            if store is not None and rows is not None:
                store.forget(pipeline.identity, [p for p in rows if p not in seen])
        finally:
            walker.close()
            if store is not None:
                store.close()
