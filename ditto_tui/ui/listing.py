"""What the family list shows: filtering, sorting and the text of its cells.

Pure functions over families and document metadata, so the rules can be tested without a
screen. Every string that comes from the corpus passes through :func:`shown` before it is
wrapped in a ``rich.text.Text``: ids with undecodable bytes get ``\\xNN`` escapes, control
characters are made visible, and no markup is ever interpreted.
"""

from __future__ import annotations

import fnmatch
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ditto_tui.core.display import visible

SortKey = Literal["size", "diameter", "name", "newest"]
SORT_KEYS: tuple[SortKey, ...] = ("size", "diameter", "name", "newest")
GLOB_CHARS = frozenset("*?[")


class FamilyLike(Protocol):
    members: tuple[str, ...]
    centre: str
    diameter: int

    @property
    def size(self) -> int: ...


class DocumentLike(Protocol):
    size: int
    mtime_ns: int


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


def id_matcher(pattern: str):
    """A predicate on ids for the filter box: a glob when ``pattern`` holds ``*?[``
    (matched against the whole id and against its last component), else a case-insensitive
    substring. An empty pattern matches everything."""
    pattern = pattern.strip()
    if not pattern:
        return lambda _id: True
    if GLOB_CHARS & set(pattern):
        compiled = re.compile(fnmatch.translate(pattern))

        def glob_match(id_: str) -> bool:
            return bool(compiled.match(id_) or compiled.match(id_.rsplit("/", 1)[-1]))

        return glob_match
    needle = pattern.casefold()
    return lambda id_: needle in id_.casefold()


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


def newest_change(family: FamilyLike, documents: Mapping[str, DocumentLike]) -> int:
    """Most recent ``mtime_ns`` among the members (0 when none is known)."""
    best = 0
    for member in family.members:
        doc = documents.get(member)
        if doc is not None and doc.mtime_ns > best:
            best = doc.mtime_ns
    return best


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
