"""The options most commands share (the fingerprint pipeline, which documents to read,
``--json``) and what they turn into: a :class:`~ditto_tui.core.fingerprint.pipeline.Pipeline` and
:class:`~ditto_tui.corpus.documents.ScanOptions`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, NoReturn, TypeAlias

from ditto_tui.cli.argtypes import integer, non_negative, size, size_or_zero
from ditto_tui.cli.errors import UsageError

if TYPE_CHECKING:
    from ditto_tui.core.fingerprint.pipeline import Pipeline
    from ditto_tui.corpus.documents import ScanOptions

__all__ = [
    "DEFAULT_K",
    "DEFAULT_MAX_K",
    "Parser",
    "Subcommands",
    "add_corpus_options",
    "add_json",
    "add_k",
    "add_pipeline_options",
    "pipeline_of",
    "scan_options",
]

DEFAULT_K = 3
DEFAULT_MAX_K = 8


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit 2 (a :class:`UsageError`)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


#: The subparsers object each command module adds its commands' parsers to.
Subcommands: TypeAlias = "argparse._SubParsersAction[Parser]"


def add_k(p: argparse.ArgumentParser) -> None:
    """``-k K``: the maximum Hamming distance of the families or matches a command prints."""
    p.add_argument("-k", type=integer, default=DEFAULT_K, metavar="K",
                   help=f"maximum Hamming distance (default {DEFAULT_K})")


def add_pipeline_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("fingerprint pipeline")
    g.add_argument(
        "--pipeline",
        choices=("ditto", "html"),
        default="ditto",
        help="ditto: text SimHash, bit-identical to Go ditto (default); "
        "html: HTML structure, bit-identical to html-distance",
    )
    g.add_argument("--char", type=integer, default=4, metavar="N",
                   help="character shingle length, 0 disables (ditto pipeline; default 4)")
    g.add_argument("--word", type=integer, default=0, metavar="N",
                   help="word shingle length, 0 disables (ditto pipeline; default 0)")
    g.add_argument("--shingle", type=integer, default=3, metavar="S",
                   help="token shingle size (html pipeline; default 3)")


def add_corpus_options(p: argparse.ArgumentParser, *, cache: bool = True) -> None:
    g = p.add_argument_group("documents")
    g.add_argument("--max-size", type=size, default=64 << 20, metavar="SIZE",
                   help="skip files larger than SIZE (default 64M)")
    g.add_argument("--include-binary", action="store_true",
                   help="fingerprint binary files too (as ditto does)")
    g.add_argument("--ignore", action="append", default=[], metavar="GLOB",
                   help="ignore paths matching GLOB (gitignore syntax; repeatable); "
                   ".dittoignore files are read too")
    g.add_argument("--follow-symlinks", action="store_true",
                   help="descend symlinked folders whose target is inside the folder "
                   "(never outside it; a file met twice is counted once)")
    g.add_argument("--min-size", type=size_or_zero, default=0, metavar="SIZE",
                   help="skip files smaller than SIZE (reported as skipped)")
    g.add_argument("--skip-empty", action="store_true",
                   help="skip empty files (reported as skipped)")
    g.add_argument("--html-any", action="store_true",
                   help="html pipeline: take every file as a page (default: names ending "
                   ".html/.htm/.xhtml/.shtml, and other files whose first bytes are HTML)")
    g.add_argument("--jobs", "-j", type=non_negative, default=None, metavar="N",
                   help="worker processes (default: one per core; 1 = in-process)")
    g.add_argument("--strict", action="store_true",
                   help="exit 1 when any document was skipped")
    if cache:
        g.add_argument("--cache", metavar="DIR", default=None,
                       help="folder for the fingerprint cache databases, one per corpus "
                       "folder (default: the user cache dir; never inside the corpus)")
        g.add_argument("--no-cache", action="store_true",
                       help="do not read or write the fingerprint cache")


def add_json(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--json", action="store_true", help=f"JSON lines, {what}")


def pipeline_of(args: argparse.Namespace) -> Pipeline:
    """The pipeline the options choose (``--pipeline``, ``--char``, ``--word``, ``--shingle``)."""
    from ditto_tui.core import make_pipeline

    return make_pipeline(args.pipeline, char_n=args.char, word_n=args.word, shingle=args.shingle)


def scan_options(args: argparse.Namespace) -> ScanOptions:
    """The documents the options take (sizes, binary, ignore rules, symlinks, HTML)."""
    from ditto_tui.corpus.documents import ScanOptions

    return ScanOptions(
        max_size=args.max_size,
        include_binary=args.include_binary,
        ignore=tuple(args.ignore),
        follow_symlinks=args.follow_symlinks,
        min_size=args.min_size,
        skip_empty=args.skip_empty,
        html_any=args.html_any,
    )
