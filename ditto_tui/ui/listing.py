"""What the lists show: the text of their cells.

Pure functions over families and document metadata, so the rules can be tested without a
screen. Every string that comes from the corpus passes through :func:`shown` before it is
wrapped in a ``rich.text.Text``: ids with undecodable bytes get ``\\xNN`` escapes, control
characters are made visible, and no markup is ever interpreted.
"""

from __future__ import annotations

import time
from collections.abc import Container
from typing import Protocol

from ditto_tui.core.families.clusters import FamilyLike
from ditto_tui.core.text.display import visible
from ditto_tui.ui.fit import split_path

__all__ = ["ShownFamily", "format_mtime", "format_size", "path_cell", "shown"]




class ShownFamily(FamilyLike, Protocol):
    """A family as the lists show it (:class:`~ditto_tui.core.families.clusters.Family` meets it):
    its members, representative and diameter, and whether that diameter is exact (an
    upper bound, shown ``≤``, for a very large family)."""

    @property
    def diameter_exact(self) -> bool: ...


def path_cell(doc_id: str, key: str, shown_keys: Container[str]) -> str:
    """The ``"name"`` or ``"folder"`` cell of a document list: the file name and its
    folder, or the whole path under "name" when the folder column is not shown."""
    if key == "name" and "folder" not in shown_keys:
        return shown(doc_id)
    return shown(split_path(doc_id)[0 if key == "name" else 1])


def shown(id_or_text: str) -> str:
    """A corpus string as it may be displayed: undecodable bytes and controls (tab too)
    escaped, so a name always reads as one literal line."""
    if "\t" in id_or_text:
        id_or_text = id_or_text.replace("\t", "\\t")
    try:
        id_or_text.encode("utf-8")
    except UnicodeEncodeError:
        id_or_text = id_or_text.encode("utf-8", "surrogateescape").decode(
            "utf-8", "backslashreplace"
        )
    return visible(id_or_text)


def format_size(n: int) -> str:
    """Human byte count: ``512 B``, ``1.5 KB``, ``3.2 MB``."""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def format_mtime(mtime_ns: int) -> str:
    """Modification time in UTC, ``YYYY-MM-DD HH:MM`` (stable across machines)."""
    if mtime_ns <= 0:
        return ""
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(mtime_ns / 1e9))
