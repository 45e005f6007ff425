"""Run the engine tests through both kernels: the numpy code and the compiled (numba) one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ditto_tui.core import kernel


@pytest.fixture(scope="module", params=kernel.KERNELS)
def engine_kernel(request: pytest.FixtureRequest) -> Iterator[str]:
    """Force one kernel for the module's tests (the compiled one must really load)."""
    name = request.param
    if name == "numba":
        pytest.importorskip("numba")
    kernel.select(name)
    try:
        if name == "numba":
            assert kernel.warm(), kernel.status()
        assert kernel.active() == name
        yield name
    finally:
        kernel.select(None)
