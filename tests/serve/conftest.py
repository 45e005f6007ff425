"""``ditto-tui serve`` as a user starts it: a process of its own on a free loopback port,
on a copy of ``sample_corpus`` with a cache folder of the test's; its whole process group
(the server and every tab's explorer) killed at the end."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import pytest

from ditto_tui.corpus.review import ReviewStore, review_path_for

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_corpus"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    """A running ``ditto-tui serve``: its URL, folder, cache folder and process."""

    url: str
    root: Path
    cache: Path
    process: subprocess.Popen[bytes]

    def decisions(self) -> dict[str, str]:
        """The review store's decisions now (document id -> decision)."""
        with ReviewStore(review_path_for(self.root, self.cache)) as store:
            return {r.path: r.value for r in store.decision_records()}


def wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"ditto-tui serve ended ({process.returncode})")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """``serve(*options)``: start ``ditto-tui serve`` on a copy of sample_corpus."""
    started: list[subprocess.Popen[bytes]] = []
    logs: list[BinaryIO] = []

    def start(*options: str) -> Served:
        root = tmp_path / "sample_corpus"
        if not root.exists():
            shutil.copytree(SAMPLE, root, symlinks=True)
        cache = tmp_path / "cache"
        port = free_port()
        log = open(tmp_path / f"serve-{port}.log", "wb")  # noqa: SIM115 (closed at the end)
        logs.append(log)
        env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg"),
               "DITTO_TUI_TRASH_DIR": str(tmp_path / "trash")}
        process = subprocess.Popen(
            [sys.executable, "-m", "ditto_tui", "serve", str(root), "--port", str(port),
             "--cache", str(cache), "--no-watch", *options],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            env=env, start_new_session=True, cwd=tmp_path,
        )
        started.append(process)
        wait_listening(port, process)
        return Served(f"http://127.0.0.1:{port}/", root, cache, process)

    yield start
    for process in started:
        with_group(process, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
        with_group(process, signal.SIGKILL)  # the tabs' explorers too
        process.wait(timeout=5)
    for log in logs:
        log.close()


def with_group(process: subprocess.Popen[bytes], sig: int) -> None:
    """Send ``sig`` to the process group the server leads (its own session)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)
