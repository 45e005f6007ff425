"""Fault injection for tests/scale/test_recovery.py (on PYTHONPATH only in that test).

When ``DITTO_TUI_TEST_KILL`` names a marker file that does not exist yet, the first call of
the pairs kernel in any Spark Python worker creates it and kills the worker's executor JVM
(the worker's grandparent; the worker itself when that is not a separate executor), so the
job loses an executor mid-stage exactly once.
"""

from __future__ import annotations

import os

_MARKER = os.environ.get("DITTO_TUI_TEST_KILL")


def _executor_jvm() -> int | None:
    """The pid of the executor JVM above this worker (worker -> daemon -> JVM), if any."""
    try:
        with open(f"/proc/{os.getppid()}/stat") as f:
            grandparent = int(f.read().rsplit(")", 1)[1].split()[1])
        with open(f"/proc/{grandparent}/cmdline", "rb") as f:
            cmdline = f.read()
    except (OSError, ValueError, IndexError):
        return None
    return grandparent if b"CoarseGrainedExecutorBackend" in cmdline else None


if _MARKER:
    import ditto_tui.scale.bucket_join as _bucket_join

    _original = _bucket_join.iter_bucket_pairs

    def iter_bucket_pairs(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            fd = os.open(_MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return _original(*args, **kwargs)
        jvm = _executor_jvm()
        os.write(fd, f"killed {'executor ' + str(jvm) if jvm else 'worker'}\n".encode())
        os.close(fd)
        os.kill(jvm or os.getpid(), 9)
        return _original(*args, **kwargs)

    _bucket_join.iter_bucket_pairs = iter_bucket_pairs
