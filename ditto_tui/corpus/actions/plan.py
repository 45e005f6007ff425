"""What an action is planned on and made of: the action names, a marked
:class:`Target`, one planned :class:`Step` per file, and the checked :class:`Plan`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ditto_tui.corpus.actions.outcomes import Outcome

__all__ = ["ACTIONS", "ActionName", "Plan", "Step", "Target"]

#: What can be done to the duplicates: to the trash, into a quarantine folder, replaced
#: by hard links to their keepers, or only listed (a removal list; nothing is touched).
ActionName = Literal["trash", "move", "link", "list"]
ACTIONS: tuple[ActionName, ...] = ("trash", "move", "link", "list")


@dataclass(frozen=True)
class Target:
    """A document marked for action: its root-relative id, the (size, mtime_ns, inode) it
    had when fingerprinted, its kind, its keeper (``reference``: the copy that stays, within
    k of it) and its distance in bits from that keeper (None when not known).
    ``fp``/``ref_fp`` are the fingerprints the user reviewed (of it and of the keeper),
    checked against the bytes read when planning with a pipeline."""

    id: str
    size: int
    mtime_ns: int
    inode: int
    kind: str = "text"
    reference: str | None = None
    distance: int | None = None
    fp: int | None = None
    ref_fp: int | None = None

    @classmethod
    def from_document(cls, doc: Any, reference: str | None, distance: int | None = None, *,
                      fp: int | None = None, ref_fp: int | None = None) -> Target:
        """From a :class:`~ditto_tui.corpus.documents.Document`."""
        return cls(doc.id, doc.size, doc.mtime_ns, doc.inode, doc.kind, reference, distance,
                   fp, ref_fp)


@dataclass
class Step:
    """One planned file operation (what the journal and a saved plan store).

    ``sha256`` is of the bytes read when planning (and fingerprinted then, ``fp``);
    ``ref_sha256``/``ref_inode``/``ref_fp`` are the reference's; ``distance`` is the
    Hamming distance between the two fingerprints when both are known."""

    n: int
    id: str
    reference: str
    dest: str
    info: str
    sha256: str
    size: int
    mtime_ns: int
    inode: int
    mode: int
    atime_ns: int
    ref_inode: int = 0
    ref_sha256: str = ""
    fp: int | None = None
    ref_fp: int | None = None
    distance: int | None = None


@dataclass
class Plan:
    """A checked action, not yet executed: ``steps`` will be acted on, ``refused`` not.

    ``stale`` lists the ids refused because their bytes no longer give the fingerprint
    they were reviewed with (a cached fingerprint gone stale: scan them again); ``k``,
    ``mode`` and ``pipeline`` (its identity) say what the review was made with."""

    root: str
    action: str
    tag: str
    steps: list[Step]
    refused: list[Outcome]
    quarantine: str | None = None
    trash_dir: str | None = None
    k: int | None = None
    mode: str | None = None
    pipeline: str | None = None
    stale: list[str] = field(default_factory=list)

    def listing(self) -> list[str]:
        """One line per file for the dry run (ids rendered by the caller if needed)."""
        verb = {"trash": "trash", "move": "move", "link": "link", "list": "list"}[self.action]
        lines = []
        for s in self.steps:
            where = f" -> {s.dest}" if self.action == "move" else ""
            near = "" if s.distance is None else f", {s.distance} bits"
            lines.append(f"{verb}\t{s.id}{where}\t(keeps {s.reference}{near})")
        lines += [f"refuse\t{o.id}\t({o.reason})" for o in self.refused]
        return lines

    @property
    def bytes(self) -> int:
        """The bytes of the files the plan acts on."""
        return sum(s.size for s in self.steps)
