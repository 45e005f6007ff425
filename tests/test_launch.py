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
