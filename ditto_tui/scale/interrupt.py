"""Ctrl-C on the Spark driver: the running jobs are cancelled and the command ends with one line.

PySpark's own SIGINT handler calls the JVM from inside the signal handler, on the main
thread's Py4J connection while that thread waits on it: Py4J then logs a screenful of
"reentrant call" tracebacks. :class:`CancelOnInterrupt` replaces it for the duration of a
command: the first SIGINT only sets :attr:`~CancelOnInterrupt.requested` and starts a
thread that silences the JVM's log (cancelled writers log their stack traces), cancels
every job (its own Py4J connection) and keeps cancelling any job started after it, so the driver's blocked call returns with a Spark error that
:meth:`~CancelOnInterrupt.check` turns into :class:`KeyboardInterrupt`. A second SIGINT
raises at once.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["CancelOnInterrupt"]

#: Seconds between two cancellations while the interrupted command winds down.
RECANCEL = 0.2


class CancelOnInterrupt:
    """Within ``with``: SIGINT cancels the session's jobs instead of raising in Py4J.

    Only installs itself on the main thread (signal handlers live there); elsewhere it
    does nothing. Restores the previous handler on exit."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self.requested = False
        self._done = threading.Event()
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> CancelOnInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_signal)
            self._installed = True
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)

    def check(self) -> None:
        """Raise :class:`KeyboardInterrupt` if a SIGINT came (call it where an error may
        be the cancellation, or between steps)."""
        if self.requested:
            raise KeyboardInterrupt

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        threading.Thread(target=self._cancel, name="spark-cancel", daemon=True).start()

    def _cancel(self) -> None:
        context = self.spark.sparkContext
        with contextlib.suppress(Exception):  # the cancelled writers log stack traces
            context.setLogLevel("OFF")
        while not self._done.is_set():
            with contextlib.suppress(Exception):  # the JVM may be going away
                context.cancelAllJobs()
            self._done.wait(RECANCEL)
