"""Run the engine tests through every kernel: the numpy code, the compiled one through
numba, and the compiled one's machine code run without numba (native)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ditto_tui.core import kernel


@pytest.fixture(scope="module", params=kernel.KERNELS)
def engine_kernel(request: pytest.FixtureRequest) -> Iterator[str]:
    """Force one kernel for the module's tests (the compiled one must really load)."""
    name = request.param
    if name != "numpy":
        pytest.importorskip("numba")
    kernel.select(name)
    try:
        if name != "numpy":
            assert kernel.warm(), kernel.status()
        assert kernel.active() == name, kernel.status()
        yield name
    finally:
        kernel.select(None)
