"""Idle cost of watching: a session following 100,000 small files while nothing changes.

Prints one ``name value unit`` line per figure. The folder (100 files per folder) is
generated once under ``benchmarks/_work/`` (git-ignored) and reused, with its cache, so only
the first run pays the cold scan. Target (issue 33, item 3): idle CPU <= 1 % of a core.

- ``idle_cpu_pct``: CPU time of this whole process (every thread: inotify, the watcher,
  its reconciles; not the ticker below) over ``--seconds`` of idle watching, as % of one core.
- ``longest_reconcile_ms``: the longest single call the watcher made into the session
  while idle (wall time of one ``deliver``), what a change waits behind at worst.
- ``longest_run_ms``: the longest run of reconcile work between two of its rests, in CPU
  time of its thread (wall time would count the other processes of a shared machine);
  only where the reconcile is paced (:mod:`ditto_tui.corpus.reconcile`).
- ``longest_stall_ms``: the longest a bystander Python thread (ticking every millisecond,
  as the UI thread would) waited beyond its tick: how long the idle work held the GIL.

    python benchmarks/bench_watch.py [--files 100000] [--seconds 60] [--reconcile 30] [--poll]
"""

from __future__ import annotations

import argparse
import os
import threading
import time

from bench_corpus import WORK, emit, make_folder

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.session import CorpusSession


class Stalls(threading.Thread):
    """A thread sleeping 1 ms at a time and noting its worst lateness (a stand-in UI)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.worst = 0.0
        self.cpu = 0.0  # its own CPU time, taken out of the idle figure
        self.stop = threading.Event()

    def run(self) -> None:
        cpu = time.thread_time()
        while not self.stop.is_set():
            t = time.perf_counter()
            time.sleep(0.001)
            self.worst = max(self.worst, time.perf_counter() - t - 0.001)
        self.cpu = time.thread_time() - cpu


class Runs:
    """Times the paced reconcile's runs of work between its rests (wraps its clock), in
    CPU time of the thread doing them."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._start = 0.0
        try:
            from ditto_tui.corpus import reconcile
        except ImportError:  # a reconcile without rests: its one step is the whole call
            self.module = None
            return
        self.module = reconcile
        runs = self
        real_find = reconcile.Reconciler.find_changes

        class Clock:
            perf_counter = staticmethod(time.perf_counter)
            time_ns = staticmethod(time.time_ns)

            @staticmethod
            def sleep(seconds: float) -> None:
                runs.lap()
                time.sleep(seconds)
                runs._start = time.thread_time()

        def find_changes(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            runs._start = time.thread_time()
            try:
                return real_find(self, *args, **kwargs)
            finally:
                runs.lap()

        reconcile.time = Clock  # type: ignore[assignment]
        reconcile.Reconciler.find_changes = find_changes  # type: ignore[method-assign]

    def lap(self) -> None:
        self.worst = max(self.worst, time.thread_time() - self._start)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--reconcile", type=float, default=30.0, help="reconcile period (s)")
    ap.add_argument("--poll", action="store_true", help="poll instead of inotify (NFS)")
    args = ap.parse_args(argv)
    WORK.mkdir(exist_ok=True)
    emit("load_average_1min", os.getloadavg()[0], "(2 shared cores: CPU figures are per process)")
    folder = make_folder(WORK / f"watch-{args.files}", args.files, (20, 120), 5)
    cache = WORK / f"cache-watch-{args.files}.sqlite"
    pipeline = make_pipeline("ditto")
    with CorpusSession(
        folder, pipeline, cache=cache, reconcile_every=args.reconcile
    ) as session:
        t = time.perf_counter()
        session.scan()
        emit("scan_s", time.perf_counter() - t, "s")
        emit("documents", len(session.fingerprints), "docs")
        calls: list[tuple[str, float]] = []
        deliver = session._deliver

        def timed(paths: set[str], mode: str) -> None:
            t0 = time.perf_counter()
            try:
                deliver(paths, mode)
            finally:
                calls.append((mode, time.perf_counter() - t0))

        session._deliver = timed  # type: ignore[method-assign]
        runs = Runs()
        session.start_watching(lambda batch: None, poll=args.poll)
        time.sleep(2.0)  # inotify watches set up; not idle time yet
        calls.clear()
        stalls = Stalls()
        stalls.start()
        wall, cpu = time.perf_counter(), time.process_time()
        time.sleep(args.seconds)
        stalls.stop.set()
        stalls.join()
        cpu = time.process_time() - cpu - stalls.cpu
        wall = time.perf_counter() - wall
        emit("idle_cpu_pct", 100 * cpu / wall, "% of one core")
        emit("idle_cpu_s", cpu, f"s over {wall:.0f} s")
        emit("reconciles", sum(1 for m, _ in calls if m == "reconcile"), "calls")
        emit("longest_reconcile_ms", 1000 * max((d for _, d in calls), default=0.0), "ms")
        if runs.module is not None:
            emit("longest_run_ms", 1000 * runs.worst, "ms (CPU of reconcile work between two rests)")
        emit("longest_stall_ms", 1000 * stalls.worst, "ms (a 1 ms ticker's worst lateness)")
    emit("load_average_1min_after", os.getloadavg()[0], "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
