"""``spark`` and ``open``: the Spark layer's commands (:mod:`ditto_tui.scale.cli`), run from
the main command line."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ditto_tui.cli.output import Output

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands

__all__ = ["add_parsers", "cmd_open", "cmd_spark"]


def add_parsers(sub: Subcommands) -> None:
    """Add ``spark`` (with its jobs) and ``open``."""
    from ditto_tui.scale.cli import add_open_parser, add_spark_parser

    add_spark_parser(sub)
    add_open_parser(sub)


def cmd_spark(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.scale.cli import run_spark

    return run_spark(args)


def cmd_open(args: argparse.Namespace, out: Output) -> int:
    from ditto_tui.scale.cli import run_open

    return run_open(args)

