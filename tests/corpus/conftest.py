"""Shared helpers for the corpus tests: real files in tmp_path, polling waits."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ditto_tui.core.fingerprint.pipeline import Pipeline, make_pipeline

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture(autouse=True)
def private_cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:
    """Default cache locations land in a temporary folder, never in the real user cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


@pytest.fixture
def pipeline() -> Pipeline:
    return make_pipeline("ditto")


@pytest.fixture
def cache_path(tmp_path: Path) -> Path:
    """A cache database outside the corpus folder (the corpus lives in tmp_path/corpus)."""
    return tmp_path / "cache" / "corpus.sqlite"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    return folder


def write(root: Path, rel: str, data: bytes | str) -> Path:
    """Create root/rel (and its folders) holding ``data``."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    return path


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0, step: float = 0.02) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` passes; returns its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()


TEXT_A = "The quick brown fox jumps over the lazy dog. " * 20
TEXT_B = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 20


def busy_when_opened(monkeypatch: pytest.MonkeyPatch, database: type, times: int = 2) -> list[int]:
    """Make ``database._connect`` (a store or cache class) fail ``times`` times with
    "database is locked", as SQLite does at once when two connections switch a new file
    to WAL together, then connect; returns ``[times left]``."""
    real = database._connect
    left = [times]

    def connect(self: object) -> sqlite3.Connection:
        if left[0]:
            left[0] -= 1
            raise sqlite3.OperationalError("database is locked")
        return real(self)

    monkeypatch.setattr(database, "_connect", connect)
    return left
