"""The ``ditto-tui`` program's entry point: process settings made before numpy loads,
then the command line (:func:`ditto_tui.cli.main.main`)."""

from __future__ import annotations

import os
import sys
import threading

__all__ = ["QUICK_EXIT", "configure", "main", "quick_exit"]


def configure() -> None:
    """Settings of the whole process, made before numpy is imported.

    OpenBLAS starts a thread per core when numpy loads (about 0.1 s of CPU, paid again by
    every process); nothing ditto-tui computes goes through BLAS in a way threads would
    help (its matrix products are integer, or one small vector), and its own worker
    processes are the parallelism. One BLAS thread, unless the user set the variable.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


#: Commands after which the program ends at once (``os._exit``) when its output is written.
QUICK_EXIT = ("fingerprint", "fp")


def main() -> int:
    """Run the command line (``ditto-tui ...``)."""
    configure()
    if sys.argv[1:2] and sys.argv[1] in QUICK_EXIT:  # read large files while numpy loads
        from ditto_tui.corpus import readahead

        readahead.start(arg for arg in sys.argv[2:] if not arg.startswith("-"))
    from ditto_tui.cli.main import main as cli_main

    code = cli_main()
    if sys.argv[1:2] and sys.argv[1] in QUICK_EXIT:
        quick_exit(code)
    return code


def quick_exit(code: int) -> None:
    """End the process now, its output flushed, without the interpreter's teardown.

    Tearing down numpy, LLVM and the modules takes about 0.03 s, a tenth of a fingerprint
    run over a large mbox. The fingerprint command has closed everything it opened (files,
    the cache database, worker processes) when it returns; atexit handlers (none of ours)
    are skipped. Returns, for the usual exit, when another thread is still running or the
    output cannot be flushed.
    """
    if threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # AttributeError: no sys.stdout at all
        return
    os._exit(code)
