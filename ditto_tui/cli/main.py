"""The ``ditto-tui`` command line: the parser, ditto's flag spellings, the checks every
command shares, and :func:`main`, which runs one command and turns its failures into an
exit code. Each command lives in a module of its own (``fingerprints``, ``export``,
``report``, ``explain``, ``dedupe``, ``explore``, ``serve``, ``spark``, ``engine``), which adds its
parser here and imports only the shared modules (``errors``, ``output``, ``options``,
``argtypes``, ``collect``), never this one.

Thin by design: every subcommand parses its flags, asks ``corpus/`` for documents and
``core/`` for answers, and formats them. Text output is compatible with the Go ditto CLI
(``<16 hex>\\t<id>`` lines, the cluster report); ``--json`` gives JSON lines.

Exit codes: 0 success, 2 usage error, 1 any other error (one line on stderr, prefixed
``ditto-tui:``). Skipped documents are reported on stderr and change the exit code only
with ``--strict``. Writing to a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable, Sequence

from ditto_tui._version import __version__
from ditto_tui.cli import (
    dedupe,
    engine,
    explain,
    explore,
    export,
    fingerprints,
    report,
    serve,
    spark,
)
from ditto_tui.cli.errors import CommandError, UsageError
from ditto_tui.cli.options import Parser
from ditto_tui.cli.output import PROG, Output, warn

__all__ = ["COMMANDS", "MAX_DISTANCE", "SUBCOMMANDS", "build_parser", "main"]

#: ditto's single-dash long flags, accepted so existing scripts keep working.
GO_STYLE_FLAGS = ("char", "word", "min", "json", "strict", "pipeline", "shingle")
SUBCOMMANDS = (
    "explore", "serve", "fingerprint", "fp", "cluster", "near", "compare", "export", "version", "spark", "open",
    "dedupe", "undo",
    "explain",
    "report",
    "engine",
    "kernel",
)


# --------------------------------------------------------------------------- argv


def _translate_go_flags(argv: Sequence[str]) -> list[str]:
    """Rewrite ditto's ``-char 4`` / ``-k=3`` spellings into argparse's ``--char 4`` / ``-k 3``."""
    out: list[str] = []
    passthrough = False
    for arg in argv:
        if passthrough or arg == "--":
            passthrough = True
            out.append(arg)
            continue
        if arg.startswith("-") and not arg.startswith("--"):
            name, eq, value = arg[1:].partition("=")
            if name in GO_STYLE_FLAGS:
                out.append(f"--{name}{eq}{value}")
                continue
            if name == "k" and eq:
                out.extend(["-k", value])
                continue
        out.append(arg)
    return out


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (exposed for tests and documentation)."""
    parser = Parser(
        prog=PROG,
        description="Find near-duplicate documents with SimHash (bit-identical to Go ditto), "
        "in a terminal explorer or from scripts.",
        epilog="Run 'ditto-tui PATH' to open the explorer on a folder. "
        "ditto's single-dash flags (-char 4, -k 3, -min 2) are accepted too.",
    )
    parser.add_argument("--version", action="version",
                        version=f"{PROG} {__version__} pipeline=ditto/2")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    explore.add_parsers(sub)
    serve.add_parsers(sub)  # the explorer in browser tabs
    fingerprints.add_parsers(sub)  # fingerprint, cluster, near, compare
    export.add_parsers(sub)
    report.add_parsers(sub)
    engine.add_parsers(sub)  # version, engine
    spark.add_parsers(sub)  # spark, open
    dedupe.add_parsers(sub)  # dedupe, undo
    explain.add_parsers(sub)
    return parser


#: What runs each command: ``(args, out) -> exit code``.
COMMANDS: dict[str, Callable[[argparse.Namespace, Output], int]] = {
    "explore": explore.cmd_explore,
    "serve": serve.cmd_serve,
    "fingerprint": fingerprints.cmd_fingerprint,
    "fp": fingerprints.cmd_fingerprint,
    "cluster": fingerprints.cmd_cluster,
    "near": fingerprints.cmd_near,
    "compare": fingerprints.cmd_compare,
    "export": export.cmd_export,
    "version": engine.cmd_version,
    "engine": engine.cmd_engine,
    "kernel": engine.cmd_engine,
    "spark": spark.cmd_spark,
    "open": spark.cmd_open,
    "dedupe": dedupe.cmd_dedupe,
    "undo": dedupe.cmd_undo,
    "explain": explain.cmd_explain,
    "report": report.cmd_report,
}


def _normalise_argv(argv: Sequence[str]) -> list[str]:
    """Insert the default ``explore`` command when the first argument is a path."""
    argv = _translate_go_flags(argv)
    if not argv:
        return ["explore"]
    first = argv[0]
    if first in SUBCOMMANDS or first in ("-h", "--help", "--version"):
        return argv
    return ["explore", *argv]


#: The largest meaningful Hamming distance: a fingerprint has 64 bits.
MAX_DISTANCE = 64


def _check_ranges(args: argparse.Namespace) -> None:
    command = getattr(args, "command", None)
    if command not in ("spark", "open"):  # those take 0..32 (argtypes.k_value)
        # one rule for every command with a distance: 0..64
        for flag, value in (("-k", getattr(args, "k", None)),
                            ("--max-k", getattr(args, "max_k", None))):
            if value is not None and not 0 <= value <= MAX_DISTANCE:
                raise UsageError(
                    f"{flag} {value} is out of range: a distance is 0..{MAX_DISTANCE} "
                    "(a fingerprint has 64 bits)"
                )
    if command in ("explore", "serve") and args.k is not None and args.k > args.max_k:
        raise UsageError(f"-k {args.k} is larger than --max-k {args.max_k}")
    if getattr(args, "pipeline", "ditto") == "html" and "char" in args and (args.char, args.word) != (4, 0):
        raise UsageError("--char/--word apply to the ditto pipeline, not --pipeline html")
    if "char" in args:  # the library's rule (ditto_tui.ditto, html_distance), in flags
        from ditto_tui.core.fingerprint.pipeline import (
            check_ditto_parameters,
            check_html_parameters,
        )

        try:
            check_ditto_parameters(args.char, args.word, cli=True)
            check_html_parameters(args.shingle, cli=True)
        except ValueError as exc:
            raise UsageError(str(exc)) from None


def main(argv: Iterable[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    raw = list(sys.argv[1:] if argv is None else argv)
    out = Output()
    try:
        args = parser.parse_args(_normalise_argv(raw))
        _check_ranges(args)
        engine.note_missing_engine(args.command)
        code = COMMANDS[args.command](args, out)
        out.flush()
        return code
    except UsageError as exc:
        warn(f"error: {exc}")
        return 2
    except CommandError as exc:
        warn(str(exc))
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        warn("interrupted")
        return 130
    except OSError as exc:
        warn(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
        return 1


def _silence_stdout() -> None:
    """After EPIPE, point stdout at /dev/null so the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


if __name__ == "__main__":
    raise SystemExit(main())
