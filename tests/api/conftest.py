"""The library tests never write to the real user cache."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def private_cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
