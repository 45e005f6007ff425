"""Fuzz: random hostile trees never make the walker, the reader or the watcher open a byte
outside the root, and nothing hangs.

Hypothesis builds a tree of files, folders, FIFOs and symlinks (inside the root, out of it,
to ``/``, to devices, dangling, in loops), scans it, then renames and swaps parts of it (a
folder becomes a link out, a file becomes a FIFO or a link) and reads every document again,
applies the changes as the watcher would, and polls it. Every ``os.open`` is checked through
the descriptor's real path (``/proc/self/fd``), and an audit hook checks every path-based open
and listing; an alarm fails any example that blocks.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ditto_tui.corpus.rootdir as rootdir_mod
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.documents import ScanOptions
from ditto_tui.corpus.poll import TreePoller
from ditto_tui.corpus.rootdir import RootDir, fd_path
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.corpus.stream import iter_fingerprints
from ditto_tui.corpus.watch import FolderWatcher
from tests.properties import examples

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or fd_path(0) is None and not os.path.exists("/proc"),
    reason="checks opens through /proc/self/fd",
)

SECRET = b"OUTSIDE-SECRET"
NAMES = st.sampled_from(["a", "b", "c", "d.txt", "e.html", "f", ".dittoignore", "cur"])
LINK_TARGETS = st.sampled_from([
    "@outside", "@outside/secret.txt", "/", "/dev/zero", "/etc", "..", "../..", ".", "a",
    "a/d.txt", "../a", "nowhere", "@root", "@root/a", "b/../../outside",
])
OP = st.one_of(
    st.tuples(st.just("dir"), st.lists(NAMES, min_size=1, max_size=3)),
    st.tuples(st.just("file"), st.lists(NAMES, min_size=1, max_size=3)),
    st.tuples(st.just("fifo"), st.lists(NAMES, min_size=1, max_size=3)),
    st.tuples(st.just("link"), st.lists(NAMES, min_size=1, max_size=3), LINK_TARGETS),
    st.tuples(st.just("hardlink"), st.lists(NAMES, min_size=1, max_size=3)),
)
MUTATION = st.one_of(
    st.tuples(st.just("swap-dir"), st.lists(NAMES, min_size=1, max_size=2), LINK_TARGETS),
    st.tuples(st.just("to-fifo"), st.lists(NAMES, min_size=1, max_size=3)),
    st.tuples(st.just("rename"), st.lists(NAMES, min_size=1, max_size=2),
              st.lists(NAMES, min_size=1, max_size=2)),
    st.tuples(st.just("file"), st.lists(NAMES, min_size=1, max_size=3)),
)


class Guard:
    """Fails on any open or listing outside the allowed folders (while ``active``)."""

    def __init__(self) -> None:
        self.allowed: tuple[str, ...] = ()
        self.active = False
        self.violations: list[str] = []
        self._lock = threading.Lock()

    def ok(self, path: str) -> bool:
        return any(path == a or path.startswith(a + "/") for a in self.allowed)

    def note(self, what: str, path: str) -> None:
        if self.active and not self.ok(path):
            with self._lock:
                self.violations.append(f"{what} {path}")


GUARD = Guard()


def _audit(event: str, args: tuple) -> None:
    if not GUARD.active or event not in ("open", "os.scandir", "os.listdir"):
        return
    path = args[0] if args else None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if isinstance(path, str) and path.startswith("/"):
        GUARD.note(event, os.path.realpath(path))


sys.addaudithook(_audit)


@contextmanager
def guarded(root: Path, monkeypatch) -> Iterator[None]:
    real_open = os.open

    def checked_open(path, flags, *args, dir_fd=None, **kw):
        fd = real_open(path, flags, *args, dir_fd=dir_fd, **kw)
        where = fd_path(fd)
        if where is not None:
            GUARD.note("os.open", where)
        return fd

    monkeypatch.setattr(rootdir_mod.os, "open", checked_open)
    # the program's own code may be read: Python's paths
    code = {os.path.realpath(p) for p in (*sys.path, sys.prefix, sys.base_prefix) if p}
    GUARD.allowed = (os.path.realpath(root), "/proc/self/fd", "/dev/null", *sorted(code))
    GUARD.violations = []
    GUARD.active = True
    fired = {"n": 0}

    def alarm(signum, frame):  # a blocked open/read would stay blocked: fail instead
        fired["n"] += 1
        raise TimeoutError("hung")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, 20)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        GUARD.active = False
        monkeypatch.undo()
    assert fired["n"] == 0
    assert GUARD.violations == [], "\n".join(GUARD.violations)


def _target(spec: str, base: Path) -> str:
    root, outside = base / "root", base / "outside"
    return spec.replace("@outside", str(outside)).replace("@root", str(root))


def _apply(op: tuple, base: Path) -> None:
    """One change made by the attacker (not checked by the guard)."""
    active, GUARD.active = GUARD.active, False
    try:
        _change(op, base)
    finally:
        GUARD.active = active


def _change(op: tuple, base: Path) -> None:
    root = base / "root"
    kind, parts = op[0], op[1]
    path = root.joinpath(*parts)
    try:
        if kind in ("dir", "file", "fifo", "link", "hardlink"):
            path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "dir":
            path.mkdir(exist_ok=True)
        elif kind == "file":
            if path.is_symlink() or (path.exists() and not path.is_dir()):
                path.unlink()  # never write through a link or into a FIFO
            path.write_bytes(b"document " + "/".join(parts).encode() * 30)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "link":
            os.symlink(_target(op[2], base), path)
        elif kind == "hardlink":
            first = next((p for p in root.rglob("*") if p.is_file() and not p.is_symlink()),
                         None)
            if first is not None:
                os.link(first, path)
        elif kind == "swap-dir":
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.exists() or path.is_symlink():
                path.unlink()
            os.symlink(_target(op[2], base), path)
        elif kind == "to-fifo":
            if path.is_symlink() or path.is_file():
                path.unlink()
                os.mkfifo(path)
        elif kind == "rename":
            os.rename(path, root.joinpath(*op[2]))
    except OSError:
        pass  # a clash with what the tree already holds: just another tree


@settings(max_examples=examples(80), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=st.lists(OP, min_size=1, max_size=14), mutations=st.lists(MUTATION, max_size=5),
       follow=st.booleans())
def test_random_hostile_trees_stay_inside(ops, mutations, follow, monkeypatch) -> None:
    base = Path(tempfile.mkdtemp(prefix="ditto-fuzz-"))
    try:
        (base / "root").mkdir()
        (base / "outside").mkdir()
        (base / "outside" / "secret.txt").write_bytes(SECRET * 10)
        for op in ops:
            _apply(op, base)
        root = base / "root"
        pipeline = make_pipeline("ditto")
        options = ScanOptions(follow_symlinks=follow)
        with guarded(root, monkeypatch):
            # the CLI stream (walker + reader)
            for item in iter_fingerprints([str(root)], pipeline, options=options, jobs=1,
                                          use_cache=False):
                assert not isinstance(item, tuple) or "outside" not in item[0]
            with CorpusSession(root, pipeline, options=options, use_cache=False, jobs=1,
                               reconcile_every=None) as session:
                session.scan()
                before = dict(session.documents)
                poller = TreePoller(RootDir(root), lambda rels: None)
                assert poller.snapshot() is not None
                watcher = FolderWatcher(str(root), lambda paths, mode: None, poll=True,
                                        poll_interval=0.05, reconcile_every=None)
                watcher.start()
                for mutation in mutations:
                    _apply(mutation, base)
                # the reader at open time, after the tree changed under it
                for doc_id in before:
                    try:
                        data = session.read_bytes(doc_id)
                    except (OSError, KeyError):
                        continue
                    assert SECRET not in data
                # the watcher's path: partial updates, then a whole rescan, then polling
                touched = {"/".join(m[1]) for m in mutations}
                if touched:
                    session._deliver(touched, "events")
                session._deliver(set(), "reconcile")
                for doc_id in session.documents:
                    with suppress(OSError):
                        assert SECRET not in session.read_bytes(doc_id)
                assert poller.snapshot() is not None
                watcher.stop()
    finally:
        GUARD.active = False
        shutil.rmtree(base, ignore_errors=True)
