"""``explore`` (the default command): the explorer on a folder."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ditto_tui.cli.argtypes import integer
from ditto_tui.cli.errors import CommandError
from ditto_tui.cli.options import (
    DEFAULT_K,
    DEFAULT_MAX_K,
    add_corpus_options,
    add_pipeline_options,
    pipeline_of,
    scan_options,
)
from ditto_tui.cli.output import Output, warn

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands

__all__ = ["add_explore_options", "add_parsers", "cmd_explore"]


def add_parsers(sub: Subcommands) -> None:
    """Add ``explore``."""
    p = sub.add_parser("explore", help="open the explorer on a folder (the default command)",
                       description="Open the interactive explorer on PATH.")
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="folder to explore (default: the current directory)")
    add_explore_options(p)


def add_explore_options(p: argparse.ArgumentParser) -> None:
    """The explorer's options (all but PATH): ``explore``'s, and ``serve`` hands them on."""
    p.add_argument("-k", type=integer, default=None, metavar="K",
                   help=f"initial Hamming distance (default: the k saved for this folder, "
                   f"else {DEFAULT_K})")
    p.add_argument("--max-k", type=integer, default=DEFAULT_MAX_K, metavar="K",
                   help=f"largest k the slider offers; the index is built for it (default {DEFAULT_MAX_K})")
    p.add_argument("--mode", choices=("chain", "star"), default=None,
                   help="grouping: chain = ditto's clusters, star = centre and members within k "
                   "(default: the grouping saved for this folder, else chain)")
    p.add_argument("--poll", action="store_true", help="poll for changes (network filesystems)")
    p.add_argument("--no-watch", action="store_true", help="do not watch the folder for changes")
    p.add_argument("--fresh", action="store_true",
                   help="start a clean review: decisions, ignore list and saved view set aside "
                   "(kept beside the cache; action journals stay, so undo still works)")
    p.add_argument("--read-only", action="store_true",
                   help="look only: every decision, action, undo and export is refused")
    p.add_argument("--screenshots", default=None, metavar="DIR",
                   help="folder the Screenshot command (ctrl+p) saves into (default: "
                   "Downloads, else the current folder, else the cache folder)")
    add_pipeline_options(p)
    add_corpus_options(p)


def cmd_explore(args: argparse.Namespace, out: Output) -> int:
    if not os.path.isdir(args.path):
        raise CommandError(f"{args.path}: not a folder")
    if args.read_only and args.fresh:
        raise CommandError("--fresh sets the review aside: not in a --read-only session")
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.explore.policy import SessionPolicy
    from ditto_tui.ui.app import DittoApp

    pipeline = pipeline_of(args)
    cache = None
    try:
        if args.cache is not None:
            from ditto_tui.corpus.cache import default_cache_path

            cache = Path(args.cache) / default_cache_path(args.path).name
        session = CorpusSession(args.path, pipeline, options=scan_options(args), cache=cache,
                                use_cache=not args.no_cache, jobs=args.jobs)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    # `p` in the explorer toggles ditto <-> html with the featurizer settings given here
    from ditto_tui.core import make_pipeline

    pipelines = {
        "ditto": make_pipeline("ditto", char_n=args.char, word_n=args.word),
        "html": make_pipeline("html", shingle=args.shingle),
    }
    pipelines[pipeline.name] = pipeline
    with session:  # the sessions the app opens when switching pipeline are closed by the app
        app = DittoApp(session, root=session.root, pipeline=pipeline, max_k=args.max_k, k=args.k,
                       mode=args.mode, poll=args.poll, watch=not args.no_watch,
                       pipelines=pipelines, review=True, review_dir=args.cache,
                       fresh=args.fresh, policy=SessionPolicy(read_only=args.read_only),
                       screenshots=args.screenshots)
        app.run()
    for notice in [*session.notices, *app.notices]:
        warn(notice)
    return int(app.return_code or 0)

