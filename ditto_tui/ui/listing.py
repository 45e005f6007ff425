"""What the family list shows: filtering, sorting and the text of its cells.

Pure functions over families and document metadata, so the rules can be tested without a
screen. Every string that comes from the corpus passes through :func:`shown` before it is
wrapped in a ``rich.text.Text``: ids with undecodable bytes get ``\\xNN`` escapes, control
characters are made visible, and no markup is ever interpreted.
"""

from __future__ import annotations

import time
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ditto_tui.core.clusters import FamilyLike
from ditto_tui.core.display import visible
from ditto_tui.core.id_filter import GLOB_CHARS, id_matcher
from ditto_tui.explore.view import SORT_KEYS, DocumentLike, SortKey, newest_change
from ditto_tui.ui.fit import split_path

__all__ = [
    "GLOB_CHARS",
    "MAIL_KINDS",
    "SORT_KEYS",
    "Counts",
    "DocumentLike",
    "FamilyLike",
    "ShownFamily",
    "SortKey",
    "family_delta",
    "filter_families",
    "format_mtime",
    "format_size",
    "id_matcher",
    "newest_change",
    "path_cell",
    "shown",
    "sort_families",
]


#: the kinds of document that are mail messages (their lists show subject and sender)
MAIL_KINDS = ("maildir", "mbox")


class ShownFamily(FamilyLike, Protocol):
    """A family as the lists show it (:class:`~ditto_tui.core.clusters.Family` meets it):
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


def filter_families(
    families: Iterable[FamilyLike], pattern: str, *, singletons: bool
) -> list[FamilyLike]:
    """Families with at least one member matching ``pattern``; singletons only if asked."""
    match = id_matcher(pattern)
    out = []
    for family in families:
        if not singletons and family.size < 2:
            continue
        if pattern.strip() and not any(match(m) for m in family.members):
            continue
        out.append(family)
    return out


def sort_families(
    families: Sequence[FamilyLike], key: SortKey, documents: Mapping[str, DocumentLike]
) -> list[FamilyLike]:
    """Order for display: ``size`` and ``diameter`` descending, ``name`` (the
    representative) ascending, ``newest`` change first. Ties keep the index's order."""
    if key == "size":
        return sorted(families, key=lambda f: -f.size)
    if key == "diameter":
        return sorted(families, key=lambda f: (-f.diameter, -f.size))
    if key == "name":
        return sorted(families, key=lambda f: f.centre)
    return sorted(families, key=lambda f: -newest_change(f, documents))


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


@dataclass(frozen=True, slots=True)
class Counts:
    """What changed between two family listings, for the live-update notification."""

    changed: int
    added: int
    removed: int
    new_families: int
    gone_families: int

    def describe(self) -> str:
        parts = []
        if self.changed:
            parts.append(f"{self.changed} changed")
        if self.added:
            parts.append(f"{self.added} new")
        if self.removed:
            parts.append(f"{self.removed} removed")
        if self.new_families > 0:
            parts.append(f"{self.new_families} new famil{'y' if self.new_families == 1 else 'ies'}")
        if self.gone_families > 0:
            parts.append(
                f"{self.gone_families} famil{'y' if self.gone_families == 1 else 'ies'} gone"
            )
        return ", ".join(parts) or "no visible change"


def family_delta(before: Iterable[FamilyLike], after: Iterable[FamilyLike]) -> tuple[int, int]:
    """(new, gone) families between two listings, a family being its member set."""
    old = {frozenset(f.members) for f in before if f.size > 1}
    new = {frozenset(f.members) for f in after if f.size > 1}
    return len(new - old), len(old - new)
