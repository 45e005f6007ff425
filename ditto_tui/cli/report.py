"""``report``: the families of a folder with their diffs, in one HTML file."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ditto_tui.cli.argtypes import integer
from ditto_tui.cli.collect import SkipReporter, finish
from ditto_tui.cli.errors import CommandError
from ditto_tui.cli.options import (
    DEFAULT_MAX_K,
    add_corpus_options,
    add_k,
    add_pipeline_options,
    pipeline_of,
    scan_options,
)
from ditto_tui.cli.output import Output, warn

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands

__all__ = ["add_parsers", "cmd_report"]


def add_parsers(sub: Subcommands) -> None:
    """Add ``report``."""
    p = sub.add_parser("report", help="write families with their diffs to one HTML file",
                       description="Write a self-contained HTML report of the near-duplicate "
                       "families of PATH: corpus summary, a chart of families at each k, the "
                       "family list, and per family its members with bit grids and folded "
                       "side-by-side diffs against the representative.")
    p.add_argument("path", metavar="PATH", help="the corpus folder (or one file)")
    add_k(p)
    p.add_argument("--max-k", type=integer, default=DEFAULT_MAX_K, metavar="K",
                   help=f"the chart covers k = 0..max(K, this) (default {DEFAULT_MAX_K})")
    p.add_argument("--mode", choices=("chain", "star"), default="chain",
                   help="chain = ditto's single linkage (default), star = every member within k of a centre")
    p.add_argument("--min", type=integer, default=2, metavar="M",
                   help="smallest family to include (default 2)")
    p.add_argument("--filter", default="", metavar="PATTERN",
                   help="only families with a member matching PATTERN (a glob when it holds "
                   "*?[, else a case-insensitive substring), as the explorer's filter box")
    p.add_argument("-o", "--output", metavar="FILE", required=True,
                   help="the HTML file to write ('-' for standard output)")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("--absolute-paths", action="store_true",
                   help="show absolute paths (default: relative to PATH)")
    p.add_argument("--decisions", action="store_true",
                   help="add each member's review decision (PATH must be a folder)")
    add_pipeline_options(p)
    add_corpus_options(p)


def _review_decisions(args: argparse.Namespace, session) -> dict[str, str]:
    """Review decisions of the session's documents by id; a stale one is ``stale:<value>``."""
    from ditto_tui.core.review.decisions import identity_of
    from ditto_tui.corpus.review import ReviewStore

    notices: list[str] = []
    try:
        store = ReviewStore.for_root(args.path, cache_dir=args.cache, notices=notices)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    with store:
        fps = session.fingerprints
        got = store.decisions({i: identity_of(d, int(fps[i])) for i, d in session.documents.items()},
                              follow=False)
    for notice in notices:
        warn(notice)
    return {**got.current, **{i: f"stale:{v}" for i, v in got.stale.items()}}


def cmd_report(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core.index.near_index import NearIndex
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.report import gather_report, render_report, write_html_report

    top = max(args.k, args.max_k)
    dest = args.output
    if dest != "-" and os.path.isdir(dest):
        raise CommandError(f"{dest}: is a folder (expected a file name)")
    if dest != "-" and os.path.lexists(dest) and not args.force:
        raise CommandError(f"{dest}: already exists (not overwritten; --force replaces it)")
    if dest != "-" and not os.path.isdir(os.path.dirname(dest) or "."):
        raise CommandError(f"{dest}: no such folder")
    if not os.path.lexists(args.path):
        raise CommandError(f"{args.path}: no such file or directory")
    if args.decisions and not os.path.isdir(args.path):
        raise CommandError("--decisions needs a folder PATH")
    cache = None
    if args.cache is not None:
        from ditto_tui.corpus.cache import default_cache_path

        cache = Path(args.cache) / default_cache_path(args.path).name
    try:
        session = CorpusSession(args.path, pipeline_of(args), options=scan_options(args),
                                cache=cache, use_cache=not args.no_cache, jobs=args.jobs,
                                reconcile_every=None)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    report = SkipReporter()
    with session:
        session.scan()
        for notice in session.notices:
            warn(notice)
        for skipped in session.skipped:
            report(skipped)
        fingerprints = session.fingerprints
        index = NearIndex(max_k=top)
        index.add_many(list(fingerprints), np.fromiter(
            (int(f) for f in fingerprints.values()), np.uint64, len(fingerprints)))
        options = dict(k=args.k, mode=args.mode, min_size=args.min, pattern=args.filter,
                       chart_k=top, absolute_paths=args.absolute_paths,
                       decisions=_review_decisions(args, session) if args.decisions else None)
        if dest == "-":
            out.line(render_report(gather_report(session, index, **options)).rstrip("\n"))
            return finish(args, report)
        try:
            data, written = write_html_report(session, index, dest, overwrite=args.force,
                                              **options)
        except FileExistsError:
            raise CommandError(f"{dest}: already exists (not overwritten; --force replaces it)"
                               ) from None
    families = len(data.families)
    out.line(f"wrote {dest}: {families} famil{'y' if families == 1 else 'ies'} of "
             f"{data.documents} document(s), {written / 1e6:.1f} MB")
    return finish(args, report)

