"""The ``ditto-tui`` program's entry point: process settings made before numpy loads,
then the command line (:func:`ditto_tui.cli.main`)."""

from __future__ import annotations

import os

__all__ = ["configure", "main"]


def configure() -> None:
    """Settings of the whole process, made before numpy is imported.

    OpenBLAS starts a thread per core when numpy loads (about 0.1 s of CPU, paid again by
    every process); nothing ditto-tui computes goes through BLAS in a way threads would
    help (its matrix products are integer, or one small vector), and its own worker
    processes are the parallelism. One BLAS thread, unless the user set the variable.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main() -> int:
    """Run the command line (``ditto-tui ...``)."""
    configure()
    from ditto_tui.cli import main as cli_main

    return cli_main()
