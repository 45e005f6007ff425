"""The one-test-over-many-cases helper reports every failed case by its id."""

from __future__ import annotations

import pytest

from tests.each import SHOWN, check_each


def _even(n: int) -> None:
    assert n % 2 == 0, f"{n} is odd"


def test_every_case_is_checked_and_counted() -> None:
    seen: list[int] = []
    assert check_each(((str(n), n) for n in range(0, 10, 2)), seen.append) == 5
    assert seen == [0, 2, 4, 6, 8]


def test_each_failure_is_named_and_a_crash_does_not_stop_the_others() -> None:
    def check(n: int) -> None:
        if n == 4:
            raise KeyError("no such key")
        _even(n)

    with pytest.raises(pytest.fail.Exception) as failed:
        check_each(((f"case-{n}", n) for n in range(6)), check)
    message = str(failed.value)
    assert message.startswith("4 of 6 cases failed")
    assert "[case-1] 1 is odd" in message and "[case-5] 5 is odd" in message
    assert "[case-4] Traceback" in message and "KeyError: 'no such key'" in message
    assert "case-0" not in message and "case-2" not in message


def test_beyond_the_shown_failures_the_rest_are_named() -> None:
    cases = ((f"c{n}", 2 * n + 1) for n in range(SHOWN + 3))
    with pytest.raises(pytest.fail.Exception) as failed:
        check_each(cases, _even)
    message = str(failed.value)
    assert f"... and 3 more: c{SHOWN}, c{SHOWN + 1}, c{SHOWN + 2}" in message
    assert message.count(" is odd") == SHOWN
