"""The text files of ``ditto_tui/core/fingerprint/data`` (code point tables, html-distance's atoms).

Read straight from the package's folder: ``importlib.resources`` costs a command about 8 ms
of start-up (it imports ``tempfile`` and more). It is used only when the package is not a
folder on disk (imported from a zip, say).
"""

from __future__ import annotations

import os

__all__ = ["html_atoms", "read_text"]

_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def read_text(name: str, encoding: str = "utf-8") -> str:
    """The text of the data file ``name``."""
    try:
        with open(os.path.join(_FOLDER, name), encoding=encoding) as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError):
        from importlib import resources

        return resources.files("ditto_tui.core.fingerprint.data").joinpath(name).read_text(encoding=encoding)


def html_atoms() -> list[bytes]:
    """The names of html-distance's atoms (Go's ``x/net/html/atom`` table), in file order."""
    names = read_text("html-distance-atoms.txt").splitlines()
    return [n.strip().encode("ascii") for n in names if n.strip() and n[0] != "#"]
