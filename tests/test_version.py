"""One version: the package's (``ditto_tui.__version__``, from ``ditto_tui/_version.py``) is
the one ``pyproject.toml`` builds the wheel with."""

from __future__ import annotations

import tomllib
from pathlib import Path

import ditto_tui
from ditto_tui._version import __version__

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_package_version_is_the_one_the_wheel_is_built_with() -> None:
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    assert __version__ == declared
    assert ditto_tui.__version__ == declared
