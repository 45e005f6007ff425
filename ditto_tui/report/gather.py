"""Gather a :class:`~ditto_tui.report.model.Report` from a corpus and its index.

The corpus is anything shaped like :class:`~ditto_tui.corpus.session.CorpusSession`
(root, pipeline, documents, fingerprints, skipped, ``read_text``); the index anything with
``families(k, mode=, min_size=)`` like :class:`~ditto_tui.core.index.near_index.NearIndex`. Families
come from the index; documents are read through the corpus (bounded by
:class:`~ditto_tui.report.model.ReportLimits`), shown as text like the explorer shows them
(HTML reduced to its text, control characters made visible) and diffed with the explorer's
engine. A document that cannot be read any more is noted, never fatal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Protocol

from ditto_tui._version import __version__
from ditto_tui.core.families.clusters import Family, Mode
from ditto_tui.core.text.display import excerpt, html_text, mail_excerpt, visible, visible_lines
from ditto_tui.core.text.id_filter import id_matcher
from ditto_tui.report.diffview import diff_view
from ditto_tui.report.model import (
    DEFAULT_LIMITS,
    ChartPoint,
    DiffView,
    FamilyView,
    MailLine,
    MemberView,
    Report,
    ReportLimits,
    SkipView,
)

__all__ = ["ReportCorpus", "ReportIndex", "ReportMailCorpus", "chart_points", "display_name",
           "gather_report", "id_matcher", "mail_line"]

EXCERPT_BYTES = 4096
_ROW_COST = 60  # markup bytes per diff row, for the diff budget
_DIFF_COST = 400  # markup bytes per diff (details, summary, table head)


class _Doc(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def size(self) -> int: ...


class _Skip(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def reason(self) -> str: ...


class _Mail(Protocol):
    @property
    def subject(self) -> str: ...
    @property
    def sender(self) -> str: ...
    @property
    def date(self) -> str: ...


class _Pipeline(Protocol):
    @property
    def identity(self) -> str: ...


class ReportCorpus(Protocol):
    """What the report reads from a corpus (a ``CorpusSession`` fits)."""

    @property
    def root(self) -> Path: ...
    @property
    def pipeline(self) -> _Pipeline: ...
    @property
    def documents(self) -> Mapping[str, _Doc]: ...
    @property
    def fingerprints(self) -> Mapping[str, int]: ...
    @property
    def skipped(self) -> Sequence[_Skip]: ...
    def read_text(self, id: str, *, limit: int | None = None) -> str: ...


class ReportMailCorpus(ReportCorpus, Protocol):
    """A corpus that also reads mail headers (a ``CorpusSession`` fits): the report then
    shows mail messages by subject, sender and date, as the explorer does."""

    def mail_info(self, id: str) -> _Mail | None: ...


MAIL_KINDS = ("maildir", "mbox")


def mail_line(corpus: ReportCorpus, doc_id: str) -> MailLine | None:
    """Subject, sender and date of a mail document, made visible; None for any other
    document, a corpus that cannot read mail headers, or a message without them."""
    doc = corpus.documents.get(doc_id)
    reader = getattr(corpus, "mail_info", None)
    if doc is None or doc.kind not in MAIL_KINDS or reader is None:
        return None
    try:
        info = reader(doc_id)
    except (OSError, KeyError):
        return None
    if info is None or not (info.subject or info.sender):
        return None
    return MailLine(*(visible(" ".join(value.split())) for value in
                      (info.subject or "(no subject)", info.sender, info.date)))


class ReportIndex(Protocol):
    """What the report asks of an index (a ``NearIndex`` fits)."""

    max_k: int

    def families(self, k: int, *, mode: Mode = "chain", min_size: int = 1) -> list[Family]: ...




def display_name(id_or_path: str) -> str:
    """A name as the report shows it: undecodable bytes as ``\\xNN``, tabs as ``\\t``, other
    control and bidi characters made visible; always one literal line."""
    text = id_or_path.replace("\t", "\\t")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:
            raw = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a lone surrogate that is not an escaped byte
            raw = text.encode("utf-8", "backslashreplace")
        text = raw.decode("utf-8", "backslashreplace")
    return visible(text)


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    raise AssertionError


def chart_points(index: ReportIndex, mode: Mode, top_k: int) -> tuple[ChartPoint, ...]:
    """Families of at least two documents, the documents in them, the largest family and
    the largest diameter at each k in ``0..top_k`` (clamped to the index's ``max_k``)."""
    points = []
    for k in range(0, min(top_k, index.max_k) + 1):
        fams = index.families(k, mode=mode, min_size=2)
        top = max((f.diameter for f in fams), default=0)
        exact = not fams or any(f.diameter == top and f.diameter_exact for f in fams)
        points.append(ChartPoint(k, len(fams), sum(f.size for f in fams),
                                 max((f.size for f in fams), default=0), top, exact))
    return tuple(points)


class _Texts:
    """Reads documents as display lines, at most ``limit`` bytes each."""

    def __init__(self, corpus: ReportCorpus, limit: int) -> None:
        self.corpus = corpus
        self.limit = limit

    def lines(self, doc_id: str) -> tuple[list[str] | None, str]:
        """(display lines or None when unreadable, a note for the reader)."""
        doc = self.corpus.documents.get(doc_id)
        try:
            text = self.corpus.read_text(doc_id, limit=self.limit)
        except (OSError, KeyError) as exc:
            return None, f"cannot read: {display_name(str(exc))}"
        note = ""
        if doc is not None and doc.size > self.limit:
            note = f"text cut: the first {_size(self.limit)} of {_size(doc.size)} are compared"
        if doc is not None and doc.kind == "html":
            text = html_text(text)
        return visible_lines(text), note


def _view_cost(view: DiffView, names: int) -> int:
    """About the bytes the diff takes in the page (escaped text plus markup)."""
    cost = _DIFF_COST + 2 * names
    for row in view.rows:
        cost += _ROW_COST
        for cell in (row.left, row.right):
            if cell is not None:
                cost += len(escape(cell.text)) + 11 * len(cell.spans)
    return cost


def gather_report(
    corpus: ReportCorpus,
    index: ReportIndex,
    *,
    k: int,
    mode: Mode = "chain",
    min_size: int = 2,
    pattern: str = "",
    chart_k: int | None = None,
    absolute_paths: bool = False,
    limits: ReportLimits = DEFAULT_LIMITS,
    created: str | None = None,
    families: Sequence[Family] | None = None,
    decisions: Mapping[str, str] | None = None,
) -> Report:
    """Collect everything a report shows.

    Families are ``index.families(k, mode=mode, min_size=min_size)`` (or the given
    ``families``) that have a member matching ``pattern`` (the explorer's filter rule). The
    chart covers k = 0..``chart_k`` (default: the index's ``max_k``). Names are relative to
    the corpus root unless ``absolute_paths``; the root itself is shown by its last
    component only unless ``absolute_paths``. ``created`` defaults to the current UTC time.
    ``decisions`` (id -> review decision) adds a decision column.
    """
    root = Path(corpus.root)
    match = id_matcher(pattern)
    if families is None:
        families = index.families(k, mode=mode, min_size=min_size)
    chosen = [f for f in families if f.size >= min_size and any(match(m) for m in f.members)]
    fps = corpus.fingerprints
    texts = _Texts(corpus, limits.doc_bytes)

    def name(doc_id: str) -> str:
        return display_name(os.path.join(root, doc_id) if absolute_paths else doc_id)

    budget = limits.diff_budget
    out: list[FamilyView] = []
    notes: list[str] = []
    budget_note = ""
    for number, family in enumerate(chosen, start=1):
        centre_fp = int(fps[family.centre])
        rep_name = name(family.centre)
        rep_mail = mail_line(corpus, family.centre)
        if number > limits.families:
            try:
                head = corpus.read_text(family.centre, limit=EXCERPT_BYTES)
                doc = corpus.documents.get(family.centre)
                if doc is not None and doc.kind == "html":
                    head = html_text(head)
                snippet = excerpt(head, limits.excerpt_chars)
            except (OSError, KeyError):
                snippet = ""
            if rep_mail is not None:
                snippet = mail_excerpt(rep_mail.subject, rep_mail.sender, limits.excerpt_chars)
            out.append(FamilyView(number, family.size, family.diameter, family.diameter_exact,
                                  family.centre, rep_name, centre_fp, snippet, (),
                                  omitted=family.size, detailed=False))
            continue
        rep_lines, rep_note = texts.lines(family.centre)
        snippet = excerpt("\n".join(rep_lines), limits.excerpt_chars) if rep_lines else ""
        if rep_mail is not None:  # what the message is about, not its Received: lines
            snippet = mail_excerpt(rep_mail.subject, rep_mail.sender, limits.excerpt_chars)
        others = sorted(
            ((int(fps[m]) ^ centre_fp).bit_count(), m) for m in family.members if m != family.centre
        )
        decided = decisions or {}
        members = [MemberView(family.centre, rep_name, centre_fp, 0, representative=True,
                              text_note=rep_note, decision=decided.get(family.centre, ""),
                              mail=rep_mail)]
        for position, (distance, member) in enumerate(others[: max(limits.members - 1, 0)]):
            fp = int(fps[member])
            view: DiffView | None = None
            diff_note = text_note = ""
            if position >= limits.diffs:
                diff_note = f"no diff: a family shows at most {limits.diffs:,} diffs"
            elif budget <= 0:
                diff_note = "no diff: the report's diff budget is used up"
                budget_note = ("The diff budget was used up: later members are listed "
                               "without their diff.")
            elif rep_lines is None:
                diff_note = "no diff: the representative cannot be read"
            else:
                lines, text_note = texts.lines(member)
                if lines is None:
                    diff_note = "no diff"
                else:
                    view = diff_view(rep_lines, lines, context=limits.context,
                                     max_rows=limits.diff_rows, line_chars=limits.line_chars)
                    budget -= _view_cost(view, len(rep_name) + len(name(member)))
            members.append(MemberView(member, name(member), fp, distance, diff=view,
                                      diff_note=diff_note, text_note=text_note,
                                      decision=decided.get(member, ""),
                                      mail=mail_line(corpus, member)))
        out.append(FamilyView(
            number, family.size, family.diameter, family.diameter_exact, family.centre,
            rep_name, centre_fp, snippet, tuple(members),
            omitted=family.size - len(members),
        ))
    if len(chosen) > limits.families:
        notes.append(f"{len(chosen) - limits.families:,} families past the first "
                     f"{limits.families:,} are in the family list only, without details.")
    if budget_note:
        notes.append(budget_note)
    top = index.max_k if chart_k is None else chart_k
    skipped = tuple(
        SkipView(name(s.id), s.reason) for s in corpus.skipped
    )
    return Report(
        title=display_name(str(root) if absolute_paths else (root.name or str(root))),
        root=display_name(str(root) if absolute_paths else (root.name or str(root))),
        documents=len(fps),
        pipeline=corpus.pipeline.identity,
        k=k,
        mode=mode,
        min_size=min_size,
        pattern=pattern,
        created=created or datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        version=f"ditto-tui {__version__}",
        families=tuple(out),
        skipped=skipped,
        chart=chart_points(index, mode, top),
        limits=limits,
        notes=tuple(notes),
        documents_in_families=sum(f.size for f in chosen),
        decisions=decisions is not None,
    )
