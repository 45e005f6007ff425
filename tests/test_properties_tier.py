"""The two runs of the property tests: a quarter of the examples in the README's command,
all of them in CI's own step (``DITTO_TUI_PROPERTIES=full pytest -m property``)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import properties


def test_the_quick_run_draws_a_quarter_and_the_full_run_all(
        monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        monkeypatch.delenv(properties.ENV, raising=False)
        quick = importlib.reload(properties)
        assert [quick.examples(n) for n in (300, 80, 20)] == [75, 20, 10]
        monkeypatch.setenv(properties.ENV, "full")
        full = importlib.reload(properties)
        assert [full.examples(n) for n in (300, 80, 20)] == [300, 80, 20]
    finally:
        monkeypatch.undo()
        importlib.reload(properties)


def test_a_test_without_a_count_draws_the_default_share() -> None:
    assert settings.get_profile("ditto-tui").max_examples == properties.examples(
        properties.DEFAULT)


counted: list[int] = []


@settings(max_examples=properties.examples(40))
@given(st.integers())
def test_a_property_test_draws_its_share(value: int) -> None:
    counted.append(value)


def test_the_share_was_drawn() -> None:
    """Runs after the property test above (same module, in order): it drew its count, as a
    property test that silently drew nothing would test nothing."""
    if not counted:  # run alone, e.g. with -k
        test_a_property_test_draws_its_share()
    assert len(counted) == properties.examples(40)


def test_every_property_test_is_marked_for_the_full_run(request: pytest.FixtureRequest) -> None:
    """CI's full run selects ``-m property``: every hypothesis test must carry the mark."""
    items = request.session.items
    hypothesis_tests = [i for i in items if getattr(getattr(i, "obj", None),
                                                    "is_hypothesis_test", False)]
    assert any(i.name == "test_a_property_test_draws_its_share" for i in hypothesis_tests)
    assert all(i.get_closest_marker("property") for i in hypothesis_tests)
    assert not request.node.get_closest_marker("property")


def test_the_ui_tests_are_handed_out_first(request: pytest.FixtureRequest) -> None:
    """xdist hands tests out in collection order: the apps of 1-4 s (and the served
    explorer's tests) go first, so that the run does not end on them
    (``tests/conftest.py``). Within a module the order stays."""
    ids = [item.nodeid for item in request.session.items]
    ui = [i for i, nodeid in enumerate(ids) if nodeid.startswith(("tests/ui/", "tests/serve/"))]
    if not ui:  # run without the UI tests
        return
    assert ui == list(range(len(ui)))
    modules = [nodeid.split("::")[0] for nodeid in ids]
    runs = [m for k, m in enumerate(modules) if k == 0 or modules[k - 1] != m]
    assert len(runs) == len(set(runs))  # each module's tests together


def test_the_controller_compiles_the_package_and_rewrites_the_test_modules_once(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Before the workers start, the package's bytecode and each test module's
    assert-rewritten bytecode are written (``tests/conftest.py``), so that the workers of a
    fresh clone do not each rewrite every test module."""
    from _pytest.assertion import rewrite

    from tests.conftest import compile_bytecode_once

    package, tests = tmp_path / "pkg", tmp_path / "tests"
    package.mkdir()
    tests.mkdir()
    (package / "mod.py").write_text("VALUE = 1\n")
    (tests / "test_x.py").write_text("def test_x():\n    assert [1] == [2]\n")
    (tests / "helper.py").write_text("X = 1\n")
    compile_bytecode_once(request.config, package, tests)
    assert list((package / "__pycache__").glob("mod.*.pyc"))
    pyc = tests / "__pycache__" / ("test_x" + rewrite.PYC_TAIL)
    code = rewrite._read_pyc(tests / "test_x.py", pyc)
    assert code is not None
    namespace: dict = {}
    exec(code, namespace)
    with pytest.raises(AssertionError) as failed:
        namespace["test_x"]()
    assert "[1] == [2]" in str(failed.value)  # the rewritten assert explains itself
    assert not (tests / "__pycache__" / ("helper" + rewrite.PYC_TAIL)).exists()
