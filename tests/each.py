"""One test over the many cases of a vector file: every case is checked, and every failure is
reported with its case's id.

A test per vector cost about 3.5 ms of pytest and xdist bookkeeping each, more than most
vectors take to check: the 3,700 of them were a tenth of the quick suite's CPU.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from typing import TypeVar

import pytest

Case = TypeVar("Case")

SHOWN = 20  # failures printed in full; the rest are counted and named


def check_each(cases: Iterable[tuple[str, Case]], check: Callable[[Case], object]) -> int:
    """Run ``check`` on every ``(id, case)``; fail once at the end, naming each failed case
    with its assertion's explanation (or the error it raised). Returns the number of cases
    checked, so that a caller can assert none was skipped."""
    failures: list[tuple[str, str]] = []
    count = 0
    for case_id, case in cases:
        count += 1
        try:
            check(case)
        except AssertionError as error:
            failures.append((case_id, str(error) or "assertion failed"))
        except Exception as error:  # one case's crash must not hide the other cases
            failures.append((case_id, "".join(traceback.format_exception(error)).rstrip()))
    if failures:
        shown = "\n\n".join(f"[{case_id}] {message}" for case_id, message in failures[:SHOWN])
        rest = [case_id for case_id, _ in failures[SHOWN:]]
        more = f"\n\n... and {len(rest)} more: {', '.join(rest)}" if rest else ""
        pytest.fail(f"{len(failures)} of {count} cases failed:\n\n{shown}{more}", pytrace=False)
    return count
