"""Run the engine tests through every kernel: the numpy code, the compiled one through
numba, and the compiled one's machine code run without numba (native).

A test of such a module marked ``kernel_free`` never reaches a kernel (the tokenizer, the
reference ports, hex parsing...): it runs once, under ``numpy``, instead of once per kernel
with the same examples. The mark is checked: such a test fails if it asks for a kernel.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ditto_tui.core import kernel


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep one run (``numpy``) of each ``kernel_free`` test of the kernel-parametrized
    modules."""
    items[:] = [
        item
        for item in items
        if item.get_closest_marker("kernel_free") is None
        or getattr(item, "callspec", None) is None
        or item.callspec.params.get("engine_kernel", "numpy") == "numpy"
    ]


@pytest.fixture(autouse=True)
def _kernel_free_check(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``kernel_free`` test that asks for a kernel fails (its single run would then
    leave the compiled kernels untested)."""
    if request.node.get_closest_marker("kernel_free") is None:
        return

    def refuse(kind: str, *args: object, **kwargs: object) -> None:
        raise AssertionError(f"a kernel_free test asked for the {kind} kernel")

    monkeypatch.setattr(kernel, "_get", refuse)


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
