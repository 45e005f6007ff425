"""``dedupe`` and ``undo``: review and act on near-duplicates from scripts.

In the style of fclones: group a folder's documents into families at distance k (ignored
pairs and families from the review store respected), keep a copy by keep rules and mark the
members within k of it (a wide family splits into tight groups, each with its own kept copy:
nothing is ever marked a duplicate of a document more than k away; never files in a
reference folder, never documents the user decided to keep), show the plan with each
member's distance to its kept copy, ask, act, and keep a journal for ``ditto-tui undo``.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ditto_tui.cli.argtypes import integer
from ditto_tui.cli.errors import CommandError, UsageError
from ditto_tui.cli.options import (
    add_corpus_options,
    add_pipeline_options,
    pipeline_of,
    scan_options,
)
from ditto_tui.cli.output import Output, escape_id, warn
from ditto_tui.core.fingerprint.simhash import similarity_percent
from ditto_tui.core.review.keep import RULES
from ditto_tui.corpus.actions.messages import LINK_WARNING
from ditto_tui.corpus.documents import human_size

if TYPE_CHECKING:
    from ditto_tui.cli.options import Subcommands

__all__ = ["ACTION_CHOICES", "add_parsers", "cmd_dedupe", "cmd_undo", "export_decisions",
           "write_selection"]

ACTION_CHOICES = ("trash", "move", "link", "list")


def add_parsers(sub: Subcommands) -> None:
    """Add ``dedupe`` and ``undo``."""
    p = sub.add_parser(
        "dedupe", help="mark near-duplicates by keep rules and act on them (with undo)",
        description="Group the documents under PATH into near-duplicate families at distance "
        "K, keep one reference per family chosen by --keep rules (in order; ties go to the "
        "path), and act on the others: move them to the trash, into a quarantine folder, "
        "replace byte-identical ones with hard links, or only write a removal list. "
        "A dry-run listing always comes first; acting needs --yes or a 'y' at the prompt. "
        "Every action is journaled: 'ditto-tui undo PATH' puts the files back.",
    )
    p.add_argument("path", metavar="PATH", help="the corpus folder")
    p.add_argument("-k", type=integer, default=3, metavar="K",
                   help="maximum Hamming distance within a family, 0..64 (default 3)")
    p.add_argument("--mode", choices=("chain", "star"), default="chain",
                   help="grouping: chain = ditto's clusters (default), star = a centre and "
                   "the members within K of it, as the explorer's g")
    p.add_argument("--keep", action="append", choices=RULES, default=[], metavar="RULE",
                   help=f"keep rule, repeatable, first wins ({', '.join(RULES)}); default newest")
    p.add_argument("--prefer-folder", action="append", default=[], metavar="DIR",
                   help="reference folder (repeatable): its files are kept first and never acted on")
    p.add_argument("--only-glob", action="append", default=[], metavar="GLOB",
                   help="act only on marked files matching GLOB (a name, or a path with '/')")
    p.add_argument("--only-folder", action="append", default=[], metavar="DIR",
                   help="act only on marked files inside DIR")
    p.add_argument("--action", nargs="+", default=["list"], metavar=("ACTION", "ARG"),
                   help="trash | move DIR | link | list [PREFIX] (default: list, which "
                   "writes PREFIX.csv/.jsonl/.sh and touches nothing)")
    p.add_argument("--dry-run", "-n", action="store_true", help="show the plan and stop")
    p.add_argument("--plan", metavar="FILE", default=None,
                   help="with --dry-run: save the plan shown to FILE (JSON), to act on "
                   "exactly it later with --apply FILE")
    p.add_argument("--apply", metavar="FILE", default=None,
                   help="act on the plan saved in FILE (by --dry-run --plan) instead of a "
                   "fresh one: every file is checked again and anything changed since is "
                   "refused; no scan, no keep rules")
    p.add_argument("--yes", "-y", action="store_true", help="act without asking")
    p.add_argument("--trash-dir", metavar="DIR", default=None,
                   help="use this folder as the trash (default: $DITTO_TUI_TRASH_DIR, else "
                   "the freedesktop trash; on macOS and Windows, whose system trash ditto-tui "
                   "cannot undo, trash needs this or $DITTO_TUI_TRASH_DIR)")
    add_pipeline_options(p)
    add_corpus_options(p)

    p = sub.add_parser(
        "undo", help="undo the last dedupe action on a folder",
        description="Put back the files of the last trash/move/link action on PATH, byte "
        "for byte (repeat to undo earlier ones). An action interrupted by a crash is rolled "
        "back first.",
    )
    p.add_argument("path", nargs="?", default=".", metavar="PATH",
                   help="the corpus folder (default: the current directory)")
    p.add_argument("--list", action="store_true", help="list the recorded actions and stop")
    p.add_argument("--cache", metavar="DIR", default=None,
                   help="the folder given to dedupe --cache, if any")


def _parse_action(values: list[str]) -> tuple[str, str | None]:
    name, *rest = values
    if name not in ACTION_CHOICES:
        raise UsageError(f"--action: unknown action {name!r} (choose from {', '.join(ACTION_CHOICES)})")
    if name == "move":
        if len(rest) != 1:
            raise UsageError("--action move needs exactly one quarantine folder: --action move DIR")
        return name, rest[0]
    if name == "list":
        if len(rest) > 1:
            raise UsageError("--action list takes at most one PREFIX")
        return name, rest[0] if rest else None
    if rest:
        raise UsageError(f"--action {name} takes no argument (got {' '.join(rest)})")
    return name, None


def _rel_folder(root: Path, folder: str) -> str:
    """A folder given on the command line, as a root-relative id prefix."""
    absolute = os.path.realpath(folder if os.path.isabs(folder) or os.path.exists(folder)
                                else root / folder)
    real = os.path.realpath(root)
    if absolute != real and not absolute.startswith(real.rstrip(os.sep) + os.sep):
        raise UsageError(f"{folder}: not inside {root}")
    rel = os.path.relpath(absolute, real)
    return "" if rel == "." else rel.replace(os.sep, "/")


def _store(path: str, cache_dir: str | None, notices: list[str]):
    from ditto_tui.corpus.review import ReviewStore

    try:
        return ReviewStore.for_root(path, cache_dir=cache_dir, notices=notices)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def _report_recovery(journal_dir: Path) -> None:
    from ditto_tui.corpus.actions.undo import recover

    for report in recover(journal_dir):
        warn(f"an interrupted {report.action} was rolled back: {report.count('undone')} "
             f"file(s) put back, {len(report.failures)} problem(s)")
        for o in report.failures:
            warn(f"  {o.id}: {o.reason}")
        if report.damage:
            warn(f"  {report.damage}")


def _report_damage(journal_dir: Path) -> int:
    """Warn about every damaged journal (by name, with what it can still tell); how many."""
    from ditto_tui.corpus.actions.undo import damaged

    found = damaged(journal_dir)
    for journal in found:
        warn(journal.damage_note())
    return len(found)


def _confirm(question: str, yes: bool) -> None:
    if yes:
        return
    if not sys.stdin.isatty():
        raise CommandError("not acting without confirmation: standard input is not a "
                           "terminal (pass --yes, or --dry-run to only look)")
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise CommandError("nothing done")


def cmd_dedupe(args: argparse.Namespace, out: Output) -> int:
    """The ``dedupe`` command (see :func:`add_parsers`)."""
    from ditto_tui.corpus.actions.planning import plan_action
    from ditto_tui.corpus.actions.saved_plans import save_plan
    from ditto_tui.corpus.dedupe import select
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.corpus.trash import trash_refusal

    if args.apply is not None:
        return _run_apply(args, out)
    if args.plan is not None and not args.dry_run:
        raise UsageError("--plan FILE saves the plan of a --dry-run; act on it with --apply FILE")
    action, arg = _parse_action(args.action)
    if action == "trash":  # before anything is scanned, planned or shown
        refusal = trash_refusal(args.trash_dir)
        if refusal is not None:
            raise CommandError(refusal)
    if not os.path.isdir(args.path):
        raise CommandError(f"{args.path}: not a folder")
    root = Path(os.path.abspath(args.path))
    rules = args.keep or ["newest"]
    prefer = [_rel_folder(root, f) for f in args.prefer_folder]
    only_folders = [_rel_folder(root, f) for f in args.only_folder]
    notices: list[str] = []
    store = _store(args.path, args.cache, notices)
    for notice in notices:
        warn(notice)
    with store:
        _report_recovery(store.journal_dir)
        _report_damage(store.journal_dir)
        cache = None
        if args.cache is not None:
            from ditto_tui.corpus.cache import default_cache_path

            cache = Path(args.cache) / default_cache_path(root).name
        try:
            session = CorpusSession(root, pipeline_of(args), options=scan_options(args),
                                    cache=cache, use_cache=not args.no_cache, jobs=args.jobs,
                                    reconcile_every=None)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        with session:
            session.scan()
            for notice in session.notices:
                warn(notice)
            for s in session.skipped:
                warn(f"skipped {s.id}: {s.reason}")
            docs = session.documents
            selection = select(
                docs, session.fingerprints, args.k, rules, store=store,
                reference_folders=prefer, only_globs=args.only_glob, only_folders=only_folders,
                mode=args.mode,
            )
            if selection.lapsed_pairs:
                warn(f"{selection.lapsed_pairs} ignored pair(s) no longer apply "
                     "(a document changed or left)")
            fps = session.fingerprints
            targets = [replace(t, fp=int(fps[t.id]), ref_fp=None if t.reference is None
                               else int(fps[t.reference])) for t in selection.targets(docs)]
            try:
                plan = plan_action(root, action, targets,
                                   quarantine=arg if action == "move" else None,
                                   trash_dir=args.trash_dir, pipeline=session.pipeline,
                                   k=args.k, mode=args.mode)
            except ValueError as exc:  # the trash unavailable here, a quarantine at the root
                raise CommandError(str(exc)) from None
            if plan.stale:  # rewritten in place, same size and mtime: read again next time
                session.forget_cached(plan.stale)

            write_selection(out, selection, plan, action, args.k)
            refused = {o.id: o.reason for o in plan.refused}
            if action == "link" and plan.steps:
                out.line(f"note: {LINK_WARNING}")
            if args.plan is not None:
                try:
                    save_plan(plan, args.plan)
                except FileExistsError:
                    raise CommandError(f"{args.plan}: already exists (not overwritten)") from None
                except OSError as exc:
                    raise CommandError(f"{args.plan}: {exc.strerror}") from None
                out.line(f"plan saved to {args.plan}; act on exactly it with: "
                         f"ditto-tui dedupe {args.path} --apply {args.plan}")
            out.flush()
            return _carry_out(plan, args, out, store.journal_dir, set(refused), arg)


def _carry_out(plan: Any, args: argparse.Namespace, out: Output, journal_dir: Path,
               shown_refused: set[str], prefix: str | None = None) -> int:
    """After the plan is shown: stop there (a dry run, or nothing to do), write the
    removal list (``list``, to ``prefix`` or a name of its own), or confirm and act."""
    from ditto_tui.corpus.actions.removal_list import write_removal_list

    if args.dry_run or not plan.steps:
        return 0
    if plan.action == "list":
        prefix = prefix or f"ditto-removal-{plan.tag.removeprefix('ditto-')}"
        try:
            written = write_removal_list(plan, prefix)
        except FileExistsError as exc:
            raise CommandError(f"{exc}: already exists (not overwritten)") from None
        for p in written:
            out.line(f"wrote {p}")
        return 0
    return _act(plan, args, out, journal_dir, shown_refused)


def _question(plan: Any) -> str:
    n = len(plan.steps)
    return {
        "trash": f"Move {n} file(s) to the trash?",
        "move": f"Move {n} file(s) into {plan.quarantine}?",
        "link": f"{LINK_WARNING}\nReplace {n} file(s) with hard links to their reference?",
    }[plan.action]


def _act(plan: Any, args: argparse.Namespace, out: Output, journal_dir: Path,
         shown_refused: set[str]) -> int:
    """Confirm, execute and report a checked trash/move/link plan."""
    from ditto_tui.corpus.actions.execution import execute

    _confirm(_question(plan), args.yes)
    report = execute(plan, journal_dir)
    problems = [o for o in report.outcomes if o.status in ("refused", "failed")
                and o.id not in shown_refused]
    for o in problems:
        warn(f"{o.id}: {o.reason}")
    out.line(f"{report.count('done')} file(s) done, {len(problems)} not done; "
             f"undo with: ditto-tui undo {args.path}")
    return 1 if problems else 0


def _run_apply(args: argparse.Namespace, out: Output) -> int:
    """``dedupe PATH --apply FILE``: act on exactly a saved plan, each file checked again."""
    from ditto_tui.corpus.actions.saved_plans import PlanError, load_plan, replan

    if args.plan is not None:
        raise UsageError("--apply FILE acts on a saved plan; --plan saves one")
    if not os.path.isdir(args.path):
        raise CommandError(f"{args.path}: not a folder")
    try:
        saved = load_plan(args.apply)
    except PlanError as exc:
        raise CommandError(str(exc)) from None
    notices: list[str] = []
    with _store(args.path, args.cache, notices) as store:
        for notice in notices:
            warn(notice)
        _report_recovery(store.journal_dir)
        _report_damage(store.journal_dir)
        try:
            plan = replan(saved, args.path,
                          pipeline=pipeline_of(args) if saved.pipeline is not None else None)
        except (PlanError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        step_ids = {s.id for s in plan.steps}
        for s in sorted(saved.steps, key=lambda s: (-(s.distance or 0), s.id)):
            if s.id in step_ids:
                near = b"" if s.distance is None else (
                    f", {s.distance} bits, {similarity_percent(s.distance)}".encode())
                out.line(f"{plan.action:<8}".encode() + escape_id(s.id) + b"  (keeps "
                         + escape_id(s.reference) + near + b")")
        for o in plan.refused:
            out.line(b"refuse  " + escape_id(o.id) + b"  (" + escape_id(o.reason) + b")")
        out.line(f"plan {args.apply}: {len(plan.steps)} file(s) to {plan.action} "
                 f"({human_size(plan.bytes)}), {len(plan.refused)} refused")
        if plan.action == "link" and plan.steps:
            out.line(f"note: {LINK_WARNING}")
        out.flush()
        return _carry_out(plan, args, out, store.journal_dir, {o.id for o in saved.refused})


def write_selection(out: Output, selection: Any, plan: Any, verb: str, k: int) -> None:
    """The dry run: each tight group (a keeper and the members within k of it, farthest
    first, with bits and similarity), a line above each family that split or is flagged
    too wide, then the totals and the families left alone, by reason."""
    ids = selection.ids
    step_ids = {s.id for s in plan.steps}
    refused = {o.id: o.reason for o in plan.refused}
    shown_family = -1
    for family, keeper, members in selection.by_keeper():
        if family != shown_family:
            shown_family = family
            if family in selection.too_wide or family in selection.split:
                size = int((selection.labels == family).sum())
                groups = int(((selection.labels == family)
                              & (selection.keeper == np.arange(len(ids)))).sum())
                note = f"# family of {size} document(s) split into {groups} tight group(s)"
                if family in selection.too_wide:
                    note += (f"; flagged: diameter {selection.too_wide[family]} > 2k={2 * k}, "
                             "a drift rather than copies of one document")
                out.line(note)
        out.line(b"keep    " + escape_id(ids[keeper]))
        for x in members:
            doc_id = ids[x]
            bits = int(selection.distance[x])
            near = f"  ({bits} bit{'' if bits == 1 else 's'}, {similarity_percent(bits)})"
            if doc_id in step_ids:
                out.line(f"{verb:<8}".encode() + escape_id(doc_id) + near.encode())
            else:
                out.line(b"refuse  " + escape_id(doc_id) + near[:-1].encode() + b"; "
                         + escape_id(refused.get(doc_id, "")) + b")")
        out.line(b"")
    out.line(f"{len(ids)} document(s), {selection.family_count} family(ies) at k={k}; "
             f"{len(plan.steps)} file(s) to {verb} ({human_size(plan.bytes)}), "
             f"{len(plan.refused)} refused; every one within k={k} of the copy it keeps")
    if selection.split:
        line = (f"{len(selection.split)} family(ies) split into tight groups (a copy kept "
                "in each)")
        if selection.too_wide:
            line += (f", {len(selection.too_wide)} of them flagged: diameter > 2k={2 * k} "
                     "(try --mode star, or a smaller k)")
        out.line(line)
    for reason, count in selection.left_alone.items():
        out.line(f"{count} family(ies) left alone: {reason}")


def cmd_undo(args: argparse.Namespace, out: Output) -> int:
    """The ``undo`` command."""
    import time

    from ditto_tui.corpus.actions.undo import Busy, undo_last
    from ditto_tui.corpus.journal import journals

    if not os.path.isdir(args.path):
        raise CommandError(f"{args.path}: not a folder")
    notices: list[str] = []
    with _store(args.path, args.cache, notices) as store:
        _report_recovery(store.journal_dir)
        if args.list:
            for j in journals(store.journal_dir):
                done = sum(1 for o in j.outcomes.values() if o.get("status") == "done")
                undone = sum(1 for o in j.outcomes.values() if o.get("status") == "undone")
                when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(j.created))
                state = j.state or ("interrupted" if j.usable else "unreadable")
                if j.damage:
                    state = f"damaged, {state}"
                out.line(f"{j.id}\t{when}\t{escape_id(j.action).decode('utf-8', 'replace')}\t"
                         f"{len(j.ops)} file(s)\t{state}\t{done} still done, {undone} undone")
            return 1 if _report_damage(store.journal_dir) else 0
        try:
            report = undo_last(store.journal_dir)
        except Busy as exc:
            raise CommandError(f"{exc}; try again when it has finished") from None
        if report is None:
            bad = _report_damage(store.journal_dir)
            warn("nothing to undo" + (" that can be read (see the damaged journal above)"
                                      if bad else ""))
            return 1 if bad else 0
        for o in report.failures:
            warn(f"{o.id}: {o.reason}")
        lost = 0
        if report.damage:
            warn(report.damage)
            lost = 1
        out.line(f"undid {report.action}: {report.count('undone')} file(s) put back, "
                 f"{len(report.failures)} not" + ("; the journal is damaged: some files are "
                                                  "unaccounted for" if lost else ""))
        return 1 if report.failures or lost else 0


def export_decisions(path: str, args: argparse.Namespace) -> dict[str, str]:
    """Decisions of the documents under folder ``path`` keyed by export id
    (``go_join(path, rel)``); a stale one is written ``stale:<decision>``."""
    from ditto_tui.core.review.decisions import identity_of
    from ditto_tui.corpus.session import CorpusSession
    from ditto_tui.corpus.stream import go_join

    if not os.path.isdir(path):
        raise CommandError("--decisions needs one folder PATH")
    notices: list[str] = []
    cache = None
    if args.cache is not None:
        from ditto_tui.corpus.cache import default_cache_path

        cache = Path(args.cache) / default_cache_path(path).name
    with _store(path, args.cache, notices) as store, CorpusSession(
        path, pipeline_of(args), options=scan_options(args), cache=cache,
        use_cache=not args.no_cache, jobs=args.jobs, reconcile_every=None,
    ) as session:
        session.scan()
        idents = {i: identity_of(d, int(session.fingerprints[i]))
                  for i, d in session.documents.items()}
        got = store.decisions(idents, follow=False)
    out = {go_join(path, i): v for i, v in got.current.items()}
    out.update({go_join(path, i): f"stale:{v}" for i, v in got.stale.items()})
    return out
