"""The documents a command is given: the fingerprints of PATHs in ditto's walk order (or of
standard input, one document called ``stdin``), each skip reported on stderr and counted
for ``--strict``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ditto_tui.cli.errors import CommandError
from ditto_tui.cli.options import pipeline_of, scan_options
from ditto_tui.cli.output import warn

if TYPE_CHECKING:
    from ditto_tui.corpus.documents import Skipped

__all__ = ["Collected", "SkipReporter", "collect", "documents", "finish"]


@dataclass
class Collected:
    """Documents in walk order: their ids and fingerprints (uint64)."""

    ids: list[str]
    fps: np.ndarray


class SkipReporter:
    """Writes each skipped document to stderr and counts them for --strict."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, skipped: Skipped) -> None:
        self.count += 1
        warn(f"skipped {skipped.id}: {skipped.reason}")


def documents(args: argparse.Namespace, paths: Sequence[str], report: SkipReporter
              ) -> Iterator[tuple[str, int]]:
    """Yield (id, fingerprint) for PATHs in ditto's walk order; skips go to ``report``."""
    from ditto_tui.corpus.documents import Skipped
    from ditto_tui.corpus.reading import over_limit
    from ditto_tui.corpus.stream import iter_fingerprints

    pipeline = pipeline_of(args)
    if not paths:
        data = _read_stdin(args.max_size)
        if data is None:
            report(Skipped("stdin", "-", over_limit(args.max_size)))
            return
        yield "stdin", pipeline.fingerprint(data)
        return
    for path in paths:
        if not os.path.lexists(path):
            raise CommandError(f"{path}: no such file or directory")
    notices: list[str] = []
    cache_dir = getattr(args, "cache", None)
    use_cache = not getattr(args, "no_cache", True)
    if cache_dir is not None and use_cache:
        from ditto_tui.corpus.rootdir import is_inside

        for path in paths:
            if os.path.isdir(path) and is_inside(cache_dir, path):
                raise CommandError(
                    f"--cache {cache_dir}: the cache folder must not be inside the corpus "
                    f"folder {path}"
                )
    for item in iter_fingerprints(
        list(paths),
        pipeline,
        options=scan_options(args),
        jobs=args.jobs,
        cache_dir=cache_dir,
        use_cache=use_cache,
        notices=notices,
    ):
        if isinstance(item, Skipped):
            report(item)
        else:
            yield item
        while notices:
            warn(notices.pop(0))


def _read_stdin(limit: int) -> bytes | None:
    """Standard input up to ``limit`` bytes; None (reading stopped) when there is more."""
    chunks: list[bytes] = []
    got = 0
    stream = sys.stdin.buffer
    while got <= limit:
        chunk = stream.read(min(limit + 1 - got, 1 << 20))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        got += len(chunk)
    return None


def collect(args: argparse.Namespace, paths: Sequence[str], report: SkipReporter) -> Collected:
    """Every document of PATHs (as :func:`documents`), gathered."""
    ids: list[str] = []
    fps: list[int] = []
    for doc_id, fp in documents(args, paths, report):
        ids.append(doc_id)
        fps.append(int(fp))
    return Collected(ids, np.array(fps, dtype=np.uint64))


def finish(args: argparse.Namespace, report: SkipReporter) -> int:
    """The exit code of a command that ran to its end: 1 with ``--strict`` and a skip, else 0."""
    if getattr(args, "strict", False) and report.count:
        warn(f"{report.count} document(s) skipped (--strict)")
        return 1
    return 0
