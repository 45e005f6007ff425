"""The package's data files read straight from disk, or through importlib.resources."""

from __future__ import annotations

from importlib import resources

import pytest

from ditto_tui.core.fingerprint import datafiles

pytestmark = pytest.mark.kernel_free


@pytest.mark.parametrize("name", ["ditto2-lowercase.tsv", "ditto2-whitespace.txt",
                                  "html-distance-atoms.txt"])
def test_each_file_reads_as_importlib_resources_reads_it(name: str, monkeypatch) -> None:
    expected = resources.files("ditto_tui.core.fingerprint.data").joinpath(name).read_text(encoding="utf-8")
    assert datafiles.read_text(name) == expected
    monkeypatch.setattr(datafiles, "_FOLDER", "/nonexistent/ditto-tui/data")  # as from a zip
    assert datafiles.read_text(name) == expected
