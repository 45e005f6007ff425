"""Review decisions that follow their documents: matching stored records to the corpus now.

A decision is stored with the document's path *and* its content identity: (size, mtime_ns,
inode, fingerprint). When the corpus is opened again, :func:`resolve` matches each record:

- same path, same identity: the decision applies (``current``);
- the identity is found under another path: the file was renamed or moved, the decision
  follows it (``moved``: old path -> new id; the store then records the new path);
- same path, different identity: the file was edited (even if its fingerprint did not
  change, its mtime did): the decision is ``stale``, shown but never applied;
- neither: the document is gone (``orphaned``).

A family's identity (:func:`family_key`) is a digest of its members' identities, so "this
family was reviewed" survives renames and any k at which the same members group, and lapses
as soon as a member is edited, added or removed. Pure functions, no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, Protocol

__all__ = [
    "DECISIONS",
    "Decision",
    "Identity",
    "Record",
    "Resolution",
    "family_key",
    "identity_of",
    "resolve",
    "review_progress",
]

#: Per-document decisions: keep it, act on it (a duplicate), or not a duplicate at all.
Decision = Literal["keep", "duplicate", "not-duplicate"]
DECISIONS: tuple[Decision, ...] = ("keep", "duplicate", "not-duplicate")


class Identity(NamedTuple):
    """What a document's content is known by: size, mtime (ns), inode, fingerprint."""

    size: int
    mtime_ns: int
    inode: int
    fp: int


class Stat(Protocol):
    """What an identity is made of (``corpus.documents.Document`` meets it)."""

    @property
    def size(self) -> int: ...

    @property
    def mtime_ns(self) -> int: ...

    @property
    def inode(self) -> int: ...


def identity_of(doc: Stat, fp: int) -> Identity:
    """The content identity of a document with fingerprint ``fp``."""
    return Identity(int(doc.size), int(doc.mtime_ns), int(doc.inode), int(fp))


class Record(NamedTuple):
    """A stored fact about the document that was at ``path`` with ``identity``."""

    path: str
    identity: Identity
    value: str


@dataclass
class Resolution:
    """Stored records matched to the current corpus (see the module docstring).

    ``current`` and ``stale`` map current document ids to the stored value; ``moved`` maps
    an old path to the id its record now belongs to (also present in ``current``);
    ``orphaned`` lists records whose document is gone.
    """

    current: dict[str, str] = field(default_factory=dict)
    stale: dict[str, str] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)
    orphaned: list[Record] = field(default_factory=list)

    def state(self, doc_id: str) -> tuple[str | None, bool]:
        """(decision, is_stale) of one document: (None, False) when it has none."""
        if doc_id in self.current:
            return self.current[doc_id], False
        if doc_id in self.stale:
            return self.stale[doc_id], True
        return None, False


def resolve(records: Iterable[Record], documents: Mapping[str, Identity]) -> Resolution:
    """Match stored ``records`` to ``documents`` (id -> identity now).

    A document is claimed by at most one record: exact matches first, then renames (when
    several documents share an identity, e.g. hard links, the first id in code-point order
    not already claimed), then stale ones.
    """
    out = Resolution()
    records = list(records)
    claimed: set[str] = set()
    pending: list[Record] = []
    for r in records:
        if documents.get(r.path) == r.identity:
            out.current[r.path] = r.value
            claimed.add(r.path)
        else:
            pending.append(r)
    if not pending:
        return out
    by_identity: dict[Identity, list[str]] = {}
    for doc_id, ident in documents.items():
        by_identity.setdefault(ident, []).append(doc_id)
    leftover: list[Record] = []
    for r in pending:
        candidates = sorted(d for d in by_identity.get(r.identity, ()) if d not in claimed)
        if candidates:
            new = candidates[0]
            out.current[new] = r.value
            out.moved[r.path] = new
            claimed.add(new)
        else:
            leftover.append(r)
    for r in leftover:
        if r.path in documents and r.path not in claimed:
            out.stale[r.path] = r.value
            claimed.add(r.path)
        else:
            out.orphaned.append(r)
    return out


def family_key(identities: Iterable[Identity]) -> str:
    """A digest (32 hex digits) of a family's member identities, order-free."""
    h = hashlib.blake2b(digest_size=16)
    for ident in sorted(identities):
        h.update(b"%d,%d,%d,%d;" % ident)
    return h.hexdigest()


def review_progress(keys: Iterable[str], reviewed: Collection[str]) -> tuple[int, int]:
    """(reviewed, total) over the families whose :func:`family_key` are ``keys``, for a
    status line such as "312 of 601 families reviewed"."""
    total = done = 0
    for key in keys:
        total += 1
        done += key in reviewed
    return done, total
