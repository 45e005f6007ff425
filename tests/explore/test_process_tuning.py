"""The C heap's tuning: found on glibc (where a long session's freed memory must go back
to the system), and harmless to call any number of times."""

from __future__ import annotations

import platform
import sys

import pytest

from ditto_tui.explore import process_tuning


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
                    reason="glibc only")
def test_the_heap_is_tuned_on_glibc() -> None:
    assert process_tuning._glibc() is not None
    process_tuning.limit_arenas()
    blocks = [bytearray(1 << 16) for _ in range(2000)]  # ~130 MB, then freed
    del blocks
    process_tuning.trim_heap()
    process_tuning.trim_heap()


def test_elsewhere_the_calls_do_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    process_tuning._glibc.cache_clear()
    monkeypatch.setattr(process_tuning.sys, "platform", "darwin")
    try:
        assert process_tuning._glibc() is None
        process_tuning.limit_arenas()
        process_tuning.trim_heap()
    finally:
        monkeypatch.undo()
        process_tuning._glibc.cache_clear()
