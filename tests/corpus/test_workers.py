"""Worker processes die with their parent: SIGKILL the CLI (or a session) mid-scan, no orphan.

The scan is made slow on purpose (a pipeline that sleeps per file) so the kill lands while
the workers are busy; the test then waits for every worker that was alive to disappear.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from .conftest import wait_for, write

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses /proc")

SLOW_PIPELINE = '''
import time
from ditto_tui.core.fingerprint.pipeline import make_pipeline

class SlowPipeline:
    """The ditto pipeline, 50 ms per document (picklable: workers import this module)."""

    def __init__(self):
        self.inner = make_pipeline("ditto")
        self.name = self.inner.name
        self.identity = self.inner.identity + "/slow"

    def accepts(self, name):
        return True

    def fingerprint(self, data):
        time.sleep(0.05)
        return self.inner.fingerprint(data)
'''

CLI = '''
import sys, time
import ditto_tui.corpus.bulk as bulk
import ditto_tui.corpus.scan as scan
real = scan.fingerprint_file
def slow(*a, **kw):
    time.sleep(0.05)
    return real(*a, **kw)
scan.fingerprint_file = slow
real_outcomes = bulk._outcomes  # the command's bulk path (no cache): 50 ms a file too
def slow_outcomes(featurizer, root, entries, *rest):
    time.sleep(0.05 * len(entries))
    return real_outcomes(featurizer, root, entries, *rest)
bulk._outcomes = slow_outcomes
from ditto_tui.cli.main import main
sys.exit(main(["fingerprint", "--no-cache", "-j", "2", sys.argv[1]]))
'''

SESSION = '''
import sys, threading
from slowpipe import SlowPipeline
from ditto_tui.corpus.session import CorpusSession
if __name__ == "__main__":  # the forkserver imports this module again
    threading.Thread(target=threading.Event().wait, daemon=True).start()  # as in the explorer
    with CorpusSession(sys.argv[1], SlowPipeline(), use_cache=False, jobs=2) as s:
        s.scan()
'''


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (through /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state != b"Z"


@pytest.mark.parametrize("runner", ["cli", "session"])
def test_sigkill_mid_scan_leaves_no_worker(tmp_path: Path, root: Path, runner: str) -> None:
    for i in range(400):  # enough files and bytes for the worker pool
        write(root, f"d{i % 7}/f{i:04}.txt", (f"document {i} " * 800))
    (tmp_path / "slowpipe.py").write_text(SLOW_PIPELINE)
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(CLI if runner == "cli" else SESSION))
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    proc = subprocess.Popen([sys.executable, str(script), str(root)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        workers: set[int] = set()

        def busy() -> bool:
            workers.update(_descendants(proc.pid))
            return len(workers) >= 2 and proc.poll() is None

        assert wait_for(busy, timeout=60), proc.stderr.read() if proc.poll() is not None else ""
        time.sleep(0.3)
        workers.update(_descendants(proc.pid))
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert wait_for(lambda: not any(_alive(p) for p in workers), timeout=15), [
            p for p in workers if _alive(p)
        ]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for p in _descendants(os.getpid()):
            if p in workers:
                os.kill(p, signal.SIGKILL)
