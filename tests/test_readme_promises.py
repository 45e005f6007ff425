"""The README's reliability promises name tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_every_test_named_in_reliability_and_safety_exists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Reliability and safety", 1)[1].split("\n## ", 1)[0]
    files = set(re.findall(r"`([\w/]+\.py)(?:::\w+)?`", section))
    tests = set(re.findall(r"`(?:[\w/]+\.py::)?(test_\w+)`", section))
    assert files and tests
    for name in files:
        assert any((base / name).is_file() for base in (ROOT / "tests", ROOT / "ditto_tui", ROOT)), name
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py"))
    for name in tests:
        assert re.search(rf"def {name}\(", source), name
