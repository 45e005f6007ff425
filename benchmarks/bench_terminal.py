"""The explorer in a real pseudo-terminal: keypress to updated screen, as a user sees it.

Prints ``name value unit`` lines. Starts ``ditto-tui FOLDER`` (the installed command, or
``python -m ditto_tui``) on a pseudo-terminal of 120x40 (``TERM=xterm-256color``), writes
keys to it as a terminal would, and reads what the app writes back. Textual writes each
frame between the synchronized-output marks (``ESC[?2026h`` ... ``ESC[?2026l``; it asks
the terminal first, and this script answers yes as xterm, kitty, foot or tmux do); a key
counts as answered when a finished frame contains the new k in the status line (``k=4``,
escape sequences stripped). So each figure is the whole path: the kernel's pty, Textual's
input parsing, the app, the frame's bytes, through to the terminal, which is as far as
a program can see (a terminal emulator's own drawing is not included).

Figures:

- ``terminal_cold_scan_s``: start (empty fingerprint cache) until the status line says
  ``watching`` with the whole folder counted;
- ``terminal_warm_start_s``: the same with the cache written by the cold run;
- ``terminal_k_step_p50_ms`` / ``_p90_ms`` / ``_p99_ms`` / ``_max_ms``: ``]`` and ``[``
  alternately, one key every 150 ms, until the frame showing the new k;
- ``terminal_held_8_ms``: from k=0, eight ``]`` 33 ms apart (a held key's repeat), from
  the first key until the frame showing k=8;
- ``terminal_burst_2000_s``: 2,000 new files written at once, from the last write until
  the status line counts them;
- ``terminal_idle_cpu_pct``: the app's CPU time over 30 s of idle, in % of one core;
- ``terminal_cold_scan_peak_rss_mb`` / ``terminal_session_peak_rss_mb``: the app
  process's peak resident memory by the end of the cold scan, and of the warm session
  (keys, idle, burst).

Run: python benchmarks/bench_terminal.py [--files N] [--steps N] [--keep-cache]
(the folder is made once under ``benchmarks/_work``, as for ``bench_ui.py --folder``).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ui import WORK, percentile, text_folder  # noqa: E402

COLUMNS, LINES = 120, 40
SYNC_END = b"\x1b[?2026l"
SYNC_QUERY = b"\x1b[?2026$p"  # "do you support synchronized output?"
SYNC_REPLY = b"\x1b[?2026;2$y"  # "yes (off now)", as xterm, kitty, foot or tmux answer
ESCAPES = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def emit(name: str, value: float, unit: str) -> None:
    digits = {"ms": 1, "%": 1, "MB": 0}.get(unit, 2)
    print(f"{name} {value:.{digits}f} {unit}", flush=True)


def command() -> list[str]:
    """The installed ``ditto-tui`` beside this Python, else ``python -m ditto_tui``."""
    beside = Path(sys.executable).with_name("ditto-tui")
    if beside.exists():
        return [str(beside)]
    return [sys.executable, "-m", "ditto_tui"]


class Terminal:
    """The app on a pseudo-terminal: keys in, frames out (plain text of each frame).
    ``argv`` replaces the command (default: ``ditto-tui FOLDER``)."""

    def __init__(self, folder: Path, cache: Path, argv: list[str] | None = None) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(LINES),
                   XDG_CACHE_HOME=str(cache))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            argv or [*command(), str(folder)], stdin=slave, stdout=slave, stderr=slave, env=env,
            start_new_session=True, close_fds=True,
            # the pty is its controlling terminal, as in a terminal window: if this script
            # dies, the app gets SIGHUP (and does not go on reading a closed terminal)
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),
        )
        os.close(slave)
        self._pending = b""

    def frames(self, timeout: float) -> list[tuple[float, str]]:
        """The frames finished within ``timeout`` s (at least one read): (time, text)."""
        out: list[tuple[float, str]] = []
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            ready, _, _ = select.select([self.master], [], [], max(0.0, left))
            if ready:
                try:
                    data = os.read(self.master, 1 << 20)
                except OSError:
                    break
                now = time.perf_counter()
                if SYNC_QUERY in data:  # answer as a terminal does: then frames are marked
                    os.write(self.master, SYNC_REPLY)
                self._pending += data
                while SYNC_END in self._pending:
                    frame, _, self._pending = self._pending.partition(SYNC_END)
                    out.append((now, ESCAPES.sub(b"", frame).decode("utf-8", "replace")))
            if out or left <= 0:
                return out

    def until(self, test: re.Pattern[str], timeout: float = 600.0, *,
              since: float | None = None) -> float:
        """Seconds from ``since`` (default: now) until a frame matching ``test`` is
        finished."""
        start = time.perf_counter() if since is None else since
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for stamp, text in self.frames(deadline - time.perf_counter()):
                if test.search(text):
                    return stamp - start
        raise TimeoutError(f"no frame matching {test.pattern!r}")

    def drain(self, quiet: float = 0.3) -> None:
        """Read until nothing came for ``quiet`` seconds."""
        while self.frames(quiet):
            pass

    def key(self, data: bytes) -> float:
        os.write(self.master, data)
        return time.perf_counter()

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_rss_mb(self) -> float:
        """The app process's peak resident memory so far (``VmHWM``; its scan workers,
        separate processes, are not counted)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("no VmHWM in /proc")

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.master)


def watching(documents: int) -> re.Pattern[str]:
    return re.compile(rf"{documents:,} docs.*watching")


def at_k(k: int) -> re.Pattern[str]:
    return re.compile(rf"k={k}\b")


def k_steps(term: Terminal, k: int, steps: int) -> list[float]:
    """Milliseconds per key for ``]``/``[`` alternately from ``k``."""
    times = []
    for i in range(steps):
        up = i % 2 == 0
        start = term.key(b"]" if up else b"[")
        times.append(term.until(at_k(k + 1 if up else k), since=start) * 1000)
        time.sleep(0.15)
        term.drain(0.05)
    return times


def held_keys(term: Terminal, key: bytes, count: int, done: re.Pattern[str]) -> float:
    """Seconds from the first of ``count`` ``key`` presses 33 ms apart (a held key's
    repeat) until a frame matching ``done``. The frames are read meanwhile, as a terminal
    does: unread, they would fill the pseudo-terminal's buffer and block the app's
    writes."""
    start = term.key(key)
    seen: float | None = None
    for i in range(1, count):
        due = start + 0.033 * i
        while (left := due - time.perf_counter()) > 0:
            for stamp, text in term.frames(left):
                if seen is None and done.search(text):
                    seen = stamp
        term.key(key)
    return seen - start if seen is not None else term.until(done, since=start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--keep-cache", action="store_true", help="leave the cache folder")
    args = parser.parse_args()
    print(f"machine_load_1min {os.getloadavg()[0]:.2f} load", flush=True)
    folder = text_folder(args.files)
    WORK.mkdir(exist_ok=True)
    cache = Path(tempfile.mkdtemp(prefix="terminal-cache-", dir=WORK))
    burst = folder / "burst"
    shutil.rmtree(burst, ignore_errors=True)
    try:
        term = Terminal(folder, cache)
        try:
            emit("terminal_cold_scan_s", term.until(watching(args.files)), "s")
            emit("terminal_cold_scan_peak_rss_mb", term.peak_rss_mb(), "MB")
        finally:
            term.close()
        term = Terminal(folder, cache)
        try:
            emit("terminal_warm_start_s", term.until(watching(args.files)), "s")
            term.drain(1.0)
            steps = k_steps(term, 3, args.steps)
            emit("terminal_k_step_p50_ms", statistics.median(steps), "ms")
            emit("terminal_k_step_p90_ms", percentile(steps, 0.9), "ms")
            emit("terminal_k_step_p99_ms", percentile(steps, 0.99), "ms")
            emit("terminal_k_step_max_ms", max(steps), "ms")
            for _ in range(3):
                term.key(b"[")
            term.until(at_k(0))
            term.drain(0.5)
            emit("terminal_held_8_ms", held_keys(term, b"]", 8, at_k(8)) * 1000, "ms")
            for _ in range(5):
                term.key(b"[")
            term.until(at_k(3))
            term.drain(1.0)
            before = term.cpu_seconds()
            quiet_from = time.perf_counter()
            term.drain(30.0)  # idle: nothing written by anyone
            while time.perf_counter() - quiet_from < 30.0:
                term.frames(30.0 - (time.perf_counter() - quiet_from))
            idle = (term.cpu_seconds() - before) / (time.perf_counter() - quiet_from) * 100
            emit("terminal_idle_cpu_pct", idle, "%")
            burst.mkdir()
            for i in range(2000):
                (burst / f"b{i:05d}.txt").write_text(f"burst file {i} " * 40)
            written = time.perf_counter()
            term.until(watching(args.files + 2000), timeout=120)
            emit("terminal_burst_2000_s", time.perf_counter() - written, "s")
            emit("terminal_session_peak_rss_mb", term.peak_rss_mb(), "MB")
        finally:
            term.close()
    finally:
        shutil.rmtree(burst, ignore_errors=True)
        if not args.keep_cache:
            shutil.rmtree(cache, ignore_errors=True)
    print(f"machine_load_1min_after {os.getloadavg()[0]:.2f} load", flush=True)


if __name__ == "__main__":
    main()
