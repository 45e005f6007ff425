"""What the member list of the detail pane shows, as pure functions: the rows of a family
(:func:`member_rows`), the members matching the family filter, whether the family is
mail, and the list's border title and subtitle.

O(family size · log) at most; the pane runs :func:`member_rows` in a worker for large
families (``INLINE_MEMBERS``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping

from ditto_tui.core.families.tree import TreeNode
from ditto_tui.core.text.id_filter import id_matcher
from ditto_tui.corpus.documents import MAIL_KINDS, Document
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.ui.fit import Part, fit_parts
from ditto_tui.ui.listing import ShownFamily
from ditto_tui.ui.widgets.member_table import Member, filter_members, sort_members

__all__ = [
    "INLINE_MEMBERS",
    "MailInfo",
    "has_member",
    "is_mail",
    "matches_subtitle",
    "matching_rows",
    "member_rows",
    "members_placeholder",
    "members_title",
    "next_match",
    "same_family",
    "sort_key_after",
]

INLINE_MEMBERS = 300  # larger families get their rows built in a worker
#: a mail's (subject, sender, date); ("", "", "") when it could not be read
MailInfo = tuple[str, str, str]


def member_rows(
    family: ShownFamily,
    snapshot: Snapshot,
    mail_infos: Mapping[str, MailInfo],
    *,
    sort: str = "distance",
    pattern: str = "",
    only: TreeNode | None = None,
) -> list[Member]:
    """The member rows of ``family``: distance to the representative, size, time, mail
    headers when known; those matching ``pattern`` (all when blank) and, with ``only``
    (a node of the family's tree), those of that node; sorted by ``sort`` (default
    (distance, id)). O(family size · log)."""
    fps = snapshot.fingerprints
    documents = snapshot.documents
    centre = fps.get(family.centre, 0)
    members = []
    inside = frozenset(only.members) if only is not None else None
    for doc_id in family.members:
        if inside is not None and doc_id not in inside:
            continue
        fp = fps.get(doc_id)
        if fp is None:
            continue
        doc = documents.get(doc_id)
        subject, sender, _ = mail_infos.get(doc_id, ("", "", ""))
        members.append(
            Member(
                doc_id,
                (fp ^ centre).bit_count(),
                doc.size if doc else 0,
                doc.mtime_ns if doc else 0,
                subject,
                sender,
            )
        )
    return sort_members(filter_members(members, pattern), sort)


def has_member(family: ShownFamily, doc_id: str | None) -> bool:
    """Whether ``doc_id`` is a member of ``family`` (whose members are in code-point
    order, as every :class:`~ditto_tui.core.families.clusters.Family`'s): O(log size),
    where ``in family.members`` scanned a large family on every k step."""
    members = family.members
    i = bisect_left(members, doc_id) if doc_id is not None else len(members)
    return i < len(members) and members[i] == doc_id


def members_placeholder(member_pattern: str) -> str:
    """What the member list says when it shows no row (``member_pattern``: its filter)."""
    pattern = member_pattern.strip()
    if pattern:
        return f"No member matches {pattern!r} (esc in the box clears it)"
    return "No family selected"


def same_family(a: ShownFamily | None, b: ShownFamily | None) -> bool:
    """Whether ``a`` and ``b`` show the same: members, representative and diameter."""
    if a is b:
        return True
    if a is None or b is None:
        return False
    return (
        a.centre == b.centre
        and a.diameter == b.diameter
        and a.diameter_exact == b.diameter_exact
        and tuple(a.members) == tuple(b.members)
    )


def matching_rows(rows: list[Member], pattern: str) -> list[int]:
    """Indices of the rows whose path matches the family filter ``pattern`` (the rule of
    the filter box: substring or glob); none when there is no pattern. O(rows)."""
    if not pattern.strip():
        return []
    match = id_matcher(pattern)
    return [index for index, member in enumerate(rows) if match(member.id)]


def is_mail(family: ShownFamily, documents: Mapping[str, Document]) -> bool:
    """Whether ``family`` is mail (one of its first 64 members is a message)."""
    for m in family.members[:64]:
        doc = documents.get(m)
        if doc is not None and doc.kind in MAIL_KINDS:
            return True
    return False


def members_title(
    family: ShownFamily,
    *,
    node: TreeNode | None,
    shown: int,
    note: str | None,
    pattern: str,
    sort: str,
    width: int,
) -> str:
    """``Members · 3,274 · diameter 9 · identical fingerprints · 12 match "x" · by name``
    fitted to ``width`` cells (unfitted when the width is not known yet): the family's
    size and diameter (of the tree ``node`` whose members are ``shown``, if one is
    chosen), its ``note``, the member filter's matches and the member sort."""
    if node is not None:  # only the members of a node of the tree
        count = f"{shown:,}"
        parts = [
            Part("Members", 0),
            Part(f"{count} of {family.size:,} in tree node k={node.k}", 0,
                 short=f"{count}/{family.size:,} · node k={node.k}", sep=" · "),
            Part("esc: all", 2, sep=" · "),
            Part(f"diameter {node.diameter}", 3, short=f"diam. {node.diameter}", sep=" · ",
                 quiet=True),
        ]
    else:
        parts = [Part("Members", 0), Part(f"{family.size:,}", 0, sep=" · ")]
    if node is None and not (note or "").startswith("diameter"):  # (the star hint says it)
        parts.append(
            Part(f"diameter {family.diameter}", 3, short=f"diam. {family.diameter}", sep=" · ")
        )
    if note and node is None:
        parts.append(Part(note, 1, crop="right", min_cells=12, sep=" · "))
    if pattern.strip():
        parts.append(
            Part(f"{shown:,} match {pattern.strip()!r}", 2, short=f"{shown:,} match", sep=" · ")
        )
    if sort != "distance":
        parts.append(Part(f"by {sort}", 4, sep=" · "))
    if width > 0:
        return fit_parts(parts, width).plain
    return "".join((p.sep if i else "") + p.text for i, p in enumerate(parts))


def matches_subtitle(matching: list[int], row: int) -> str:
    """The member list's subtitle under a family filter: how many members match it, which
    of them the cursor (``row``) is on, and the key to the next."""
    count = len(matching)
    where = ""
    if count and row in matching:
        where = f"{matching.index(row) + 1} of "
    noun = "member matches" if count == 1 else "members match"
    return f"» {where}{count:,} {noun} the filter · . next , previous"


def next_match(matching: list[int], row: int, direction: int) -> tuple[int, bool]:
    """The row of the next (``direction`` > 0) or previous member matching the filter
    after ``row``, going round at the ends, and whether it went round. ``matching`` (in
    row order) is not empty."""
    if direction > 0:
        after = [r for r in matching if r > row]
        return (after[0], False) if after else (matching[0], True)
    before = [r for r in matching if r < row]
    return (before[-1], False) if before else (matching[-1], True)


def sort_key_after(order: tuple[str, ...], current: str, key: str | None) -> str:
    """The member sort to use when the user asks for ``key`` (a column; "similarity"
    sorts as "distance"), or, with ``key`` None, for the column after ``current`` in the
    table's cycle ``order``."""
    if key == "similarity":
        key = "distance"
    if key is None:
        index = order.index(current) if current in order else -1
        key = order[(index + 1) % len(order)]
    return key
