"""Stage progress on stderr while a Spark job runs, from the SparkContext's status tracker.

:class:`StageProgress` is a context manager running a daemon thread that polls
``statusTracker()`` every ``interval`` seconds. On a terminal it redraws one line
(``ditto-tui: pairs: stage 7 [12/40 tasks, 2 running]``); otherwise (logs, CI) it writes a
line when the set of active stages changes (at most once a second) and otherwise every
``quiet`` seconds. It never
raises into the job: a failing poll just ends the display.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["StageProgress", "describe_stages"]

MAX_SHOWN = 3


def describe_stages(spark: SparkSession) -> str:
    """One line for the stages running now, the first ``MAX_SHOWN`` in detail (empty when
    none)."""
    tracker = spark.sparkContext.statusTracker()
    parts = []
    active = sorted(tracker.getActiveStageIds())
    for stage_id in active[:MAX_SHOWN]:
        info = tracker.getStageInfo(stage_id)
        if info is None:
            continue
        parts.append(
            f"stage {stage_id} [{info.numCompletedTasks}/{info.numTasks} tasks, "
            f"{info.numActiveTasks} running]"
        )
    if len(active) > MAX_SHOWN:
        parts.append(f"+{len(active) - MAX_SHOWN} more")
    return ", ".join(parts)


class StageProgress:
    """Show Spark stage progress for the duration of a ``with`` block."""

    def __init__(
        self,
        spark: SparkSession,
        label: str,
        *,
        stream: TextIO | None = None,
        interval: float = 0.5,
        quiet: float = 5.0,
        enabled: bool = True,
    ) -> None:
        self.spark = spark
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.quiet = quiet
        self.enabled = enabled
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._width = 0

    def __enter__(self) -> StageProgress:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="spark-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._tty and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()

    def _run(self) -> None:
        last_line = ""
        last_time = 0.0
        while not self._stop.wait(self.interval):
            try:
                line = describe_stages(self.spark)
            except Exception:  # noqa: BLE001 - the context is going away; stop showing
                return
            if not line:
                continue
            text = f"ditto-tui: {self.label}: {line}"
            if self._tty:
                pad = max(0, self._width - len(text))
                self.stream.write("\r" + text + " " * pad)
                self._width = len(text)
                self.stream.flush()
            else:
                now = time.monotonic()
                stages = line.split(" [", 1)[0]
                changed = stages != last_line.split(" [", 1)[0]
                if (changed and now - last_time >= 1.0) or now - last_time >= self.quiet:
                    self.stream.write(text + "\n")
                    self.stream.flush()
                    last_line, last_time = line, now
