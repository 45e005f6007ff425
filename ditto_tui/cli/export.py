"""``export``: every document with its family, as CSV or JSON lines."""

from __future__ import annotations

import argparse
import sys
from typing import IO, TYPE_CHECKING, cast

from ditto_tui.cli.argtypes import integer
from ditto_tui.cli.collect import SkipReporter, collect, finish
from ditto_tui.cli.errors import CommandError
from ditto_tui.cli.options import add_corpus_options, add_k, add_pipeline_options
from ditto_tui.cli.output import Output

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands

__all__ = ["add_parsers", "cmd_export"]


def add_parsers(sub: Subcommands) -> None:
    """Add ``export``."""
    p = sub.add_parser("export", help="write families to CSV or JSON lines",
                       description="Write every document with its family at distance K "
                       "to CSV or JSON lines.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    add_k(p)
    p.add_argument("--min", type=integer, default=1, metavar="M",
                   help="smallest family to write (default 1: every document)")
    p.add_argument("--mode", choices=("chain", "star"), default="chain")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    p.add_argument("-o", "--output", metavar="FILE", default="-",
                   help="destination file (default: standard output)")
    p.add_argument("--decisions", action="store_true",
                   help="add each document's review decision and its family's reference "
                   "(one folder PATH)")
    add_pipeline_options(p)
    add_corpus_options(p)


class _TerminalSafe:
    """A text stream for a terminal: each line written with its controls escaped."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from ditto_tui.core.text.display import escape_controls

        lines = text.split("\n")
        self._stream.write("\n".join(escape_controls(line) for line in lines))
        return len(text)


def cmd_export(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core.families.clusters import Family
    from ditto_tui.core.index.near_index import NearIndex
    from ditto_tui.corpus.export import export_families, write_families

    report = SkipReporter()
    got = collect(args, args.paths, report)
    if len(set(got.ids)) != len(got.ids):
        raise CommandError("export needs unique document ids (a path was given twice)")
    index = NearIndex(max_k=max(args.k, 0))
    index.add_many(got.ids, got.fps)
    families: list[Family] = index.families(args.k, mode=args.mode, min_size=args.min)
    fingerprints = dict(zip(got.ids, (int(f) for f in got.fps), strict=True))
    decisions = None
    if args.decisions:
        from ditto_tui.cli.dedupe import export_decisions

        if len(args.paths) != 1:
            raise CommandError("--decisions needs one folder PATH")
        decisions = export_decisions(args.paths[0], args)
    if args.output == "-":
        sys.stdout.flush()
        handle = cast(IO[str], _TerminalSafe(sys.stdout)) if sys.stdout.isatty() else sys.stdout
        write_families(families, handle, fmt=args.format, k=args.k, mode=args.mode,
                       fingerprints=fingerprints, decisions=decisions)
        sys.stdout.flush()
    else:
        try:
            export_families(families, args.output, fmt=args.format, k=args.k, mode=args.mode,
                            fingerprints=fingerprints, decisions=decisions)
        except FileExistsError:
            raise CommandError(f"{args.output}: already exists (not overwritten)") from None
    return finish(args, report)

