"""``version`` and ``engine`` (alias ``kernel``): what runs; and the one line every other
command writes when fingerprints come from numpy although nobody chose it."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from ditto_tui._version import __version__
from ditto_tui.cli.output import PROG, Output, warn

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands

__all__ = ["add_parsers", "cmd_engine", "cmd_version", "note_missing_engine"]


def add_parsers(sub: Subcommands) -> None:
    """Add ``version`` and ``engine`` (and ``kernel``)."""
    sub.add_parser("version", help="print the version, pipeline identity and engine",
                   description="Print the package version, the pipeline identity and the "
                               "engine that computes fingerprints: compiled (with the "
                               "instruction set its kernels use) or numpy.")
    sub.add_parser("engine", aliases=["kernel"], help="say what computes fingerprints, and why",
                   description="Print the engine that computes fingerprints (compiled, with "
                               "the instruction set its kernels use, or numpy), the instruction "
                               "sets this CPU runs, and why numpy when it was not chosen. "
                               "DITTO_TUI_KERNEL chooses: compiled, numpy or auto (the "
                               "default: compiled when installed); DITTO_TUI_ISA forces an "
                               "instruction set.")


def cmd_version(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core.fingerprint import engine

    out.line(f"{PROG} {__version__} pipeline=ditto/2 engine={engine.describe()}")
    return 0


def cmd_engine(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.core.fingerprint import engine

    line = f"engine={engine.describe()}"
    if engine.isas():
        line += f"; this CPU runs the compiled kernels with {', '.join(engine.isas())}"
    chosen = os.environ.get(engine.ENV, "").strip() or "auto"
    line += f"; {engine.ENV}={chosen}"
    why = engine.missing()
    if why:
        line += f"; {why}"
    out.line(line)
    return 0


def note_missing_engine(command: str) -> None:
    """One line on standard error when fingerprints will come from numpy although nobody
    asked for it (the compiled engine was not built at install time)."""
    if command in ("version", "engine", "kernel", "undo"):
        return  # they say it themselves, or compute no fingerprint
    from ditto_tui.core.fingerprint import engine

    why = engine.missing()
    if why:
        warn(f"note: {why}")

