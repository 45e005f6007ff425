"""The program's entry point (``ditto_tui.launch``): one BLAS thread unless the user says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROBE = (
    "import os\n"
    "from ditto_tui import launch\n"
    "launch.configure()\n"
    "import numpy\n"
    "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))\n"
)


def _probe(**env: str) -> list[str]:
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          env=environment, cwd=ROOT, check=True)
    return done.stdout.split()


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="threads counted in /proc")
def test_the_program_starts_no_blas_threads() -> None:
    assert _probe() == ["1", "1"]  # the main thread only


def test_a_blas_setting_of_the_user_is_kept() -> None:
    assert _probe(OPENBLAS_NUM_THREADS="2")[0] == "2"


def test_python_dash_m_and_the_installed_program_run_the_command_line() -> None:
    for command in ([sys.executable, "-m", "ditto_tui", "--version"],
                    [str(Path(sys.executable).with_name("ditto-tui")), "--version"]):
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True)
        assert done.stdout.startswith("ditto-tui ")


def test_the_fingerprint_command_ends_without_the_interpreters_teardown(tmp_path: Path) -> None:
    """Its output and exit code are those of the command line; atexit handlers (a stand-in
    for the teardown) run after other commands only."""
    (tmp_path / "a.txt").write_text("one document " * 50)
    (tmp_path / "box.mbox").write_bytes(b"From a Mon Jan  5 10:00:00 2026\nSubject: x\n\nbody\n" * 3)
    (tmp_path / "b.bin").write_bytes(b"\0binary")
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        code = ("import atexit, sys\nfrom ditto_tui.launch import main\n"
                "atexit.register(lambda: print('teardown', file=sys.stderr))\n"
                f"sys.argv = ['ditto-tui', *{list(args)!r}]\nraise SystemExit(main())\n")
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=ROOT)

    for args in (["fingerprint", "--no-cache", str(tmp_path)],
                 ["fp", "--strict", "--no-cache", str(tmp_path)]):
        done = run(*args)
        assert "teardown" not in done.stderr
        expected = subprocess.run(
            [sys.executable, "-c", f"from ditto_tui.cli.main import main\nraise SystemExit(main({args!r}))"],
            capture_output=True, text=True, cwd=ROOT)
        assert (done.returncode, done.stdout, done.stderr) == (
            expected.returncode, expected.stdout, expected.stderr)
        assert done.stdout.count("\n") == 4 and "skipped" in done.stderr
    assert run("version").stderr == "teardown\n"
