"""Run the engine tests through every engine: the numpy code, and the compiled kernels of
each instruction set this CPU runs (``compiled-avx512``, ``compiled-avx2``,
``compiled-portable``: the portable C is what other CPUs run, so it is checked here too).

A test of such a module marked ``kernel_free`` never reaches an engine (the tokenizer, the
reference ports, hex parsing...): it runs once, under ``numpy``, instead of once per engine
with the same examples. The mark is checked: such a test fails if it asks for a kernel.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ditto_tui.core.fingerprint import engine

#: numpy, then the compiled kernels of every instruction set this CPU runs.
KERNELS = ("numpy", *(f"compiled-{isa}" for isa in engine.isas()))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep one run (``numpy``) of each ``kernel_free`` test of the engine-parametrized
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

    def refuse() -> None:
        raise AssertionError("a kernel_free test asked for a compiled kernel")

    monkeypatch.setattr(engine, "ditto", refuse)
    monkeypatch.setattr(engine, "html", refuse)


@pytest.fixture(scope="module", params=KERNELS)
def engine_kernel(request: pytest.FixtureRequest) -> Iterator[str]:
    """Force one engine (and instruction set) for the module's tests."""
    name = request.param
    best = engine.isas()[0] if engine.isas() else None
    try:
        if name == "numpy":
            engine.select("numpy")
        else:
            engine.select("compiled")
            engine.use_isa(name.removeprefix("compiled-"))
            assert f"compiled-{engine.isa()}" == name
        assert engine.active() == name.split("-")[0]
        yield name
    finally:
        engine.select(None)
        if best is not None:
            engine.use_isa(best)
