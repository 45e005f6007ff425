"""Plans saved to act on later exactly as reviewed (``dedupe --dry-run --plan FILE``,
``--apply FILE``): :func:`save_plan` writes one JSON document, :func:`load_plan` reads it
back (:class:`PlanError` when it cannot be used), :func:`replan` checks it again against
the disk before acting."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from ditto_tui.corpus.actions.outcomes import Outcome
from ditto_tui.corpus.actions.plan import ACTIONS, Plan, Step, Target
from ditto_tui.corpus.actions.planning import plan_action
from ditto_tui.corpus.atomic import write_all
from ditto_tui.corpus.reading import os_reason

__all__ = ["PLAN_VERSION", "PlanError", "load_plan", "replan", "save_plan"]

#: The version of the saved plan format; :func:`load_plan` reads only this one.
PLAN_VERSION = 1


class PlanError(ValueError):
    """A saved plan that cannot be used (unreadable, another version, another root)."""


def save_plan(plan: Plan, path: str | os.PathLike[str]) -> Path:
    """Write ``plan`` to ``path`` as one JSON document (``{"ditto_tui_plan": 1, "root",
    "action", "k", "mode", "pipeline", "quarantine", "trash_dir", "tag", "created",
    "steps": [...], "refused": [...]}``, each step with the member, its reference, sizes,
    mtimes, inodes, sha256s, fingerprints and distance), created exclusively with mode
    0600 (FileExistsError when it exists). Names that are not UTF-8 are ``\\udcXX``."""
    out = Path(path)
    doc = {
        "ditto_tui_plan": PLAN_VERSION,
        "created": time.time(),
        "root": plan.root,
        "action": plan.action,
        "k": plan.k,
        "mode": plan.mode,
        "pipeline": plan.pipeline,
        "quarantine": plan.quarantine,
        "trash_dir": plan.trash_dir,
        "tag": plan.tag,
        "steps": [asdict(s) for s in plan.steps],
        "refused": [asdict(o) for o in plan.refused],
    }
    data = (json.dumps(doc, ensure_ascii=True, indent=1) + "\n").encode("ascii")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        out.unlink(missing_ok=True)
        raise
    os.close(fd)
    return out


_STEP_TYPES: dict[str, tuple[type, ...]] = {
    "n": (int,), "id": (str,), "reference": (str,), "dest": (str,), "info": (str,),
    "sha256": (str,), "size": (int,), "mtime_ns": (int,), "inode": (int,), "mode": (int,),
    "atime_ns": (int,), "ref_inode": (int,), "ref_sha256": (str,),
    "fp": (int, type(None)), "ref_fp": (int, type(None)), "distance": (int, type(None)),
}


def _typed_step(raw: Any) -> Step | None:
    """A :class:`Step` from stored JSON, or None when a field is missing or ill-typed."""
    if not isinstance(raw, dict):
        return None
    values = {}
    for f in fields(Step):
        if f.name not in raw:
            if f.name in ("ref_inode", "ref_sha256", "fp", "ref_fp", "distance"):
                continue
            return None
        value = raw[f.name]
        if isinstance(value, bool) or not isinstance(value, _STEP_TYPES[f.name]):
            return None
        values[f.name] = value
    return Step(**values)


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read a plan written by :func:`save_plan`; :class:`PlanError` (one line) when it is
    not one, is of another version, or any field is missing or ill-typed."""
    try:
        with open(path, "rb") as fh:
            doc = json.loads(fh.read())
    except OSError as exc:
        raise PlanError(f"{path}: {os_reason(exc)}") from None
    except ValueError:
        raise PlanError(f"{path}: not a ditto-tui plan (not JSON)") from None
    if not isinstance(doc, dict) or "ditto_tui_plan" not in doc:
        raise PlanError(f"{path}: not a ditto-tui plan")
    if doc["ditto_tui_plan"] != PLAN_VERSION:
        raise PlanError(f"{path}: plan version {doc['ditto_tui_plan']!r}, this ditto-tui "
                        f"reads version {PLAN_VERSION}")
    strings = ("root", "action", "tag")
    optional = {"quarantine": str, "trash_dir": str, "mode": str, "pipeline": str, "k": int}
    if not all(isinstance(doc.get(key), str) for key in strings) or doc["action"] not in ACTIONS:
        raise PlanError(f"{path}: damaged plan (root, action or tag)")
    for key, kind in optional.items():
        value = doc.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            raise PlanError(f"{path}: damaged plan ({key})")
    raw_steps, raw_refused = doc.get("steps"), doc.get("refused", [])
    if not isinstance(raw_steps, list) or not isinstance(raw_refused, list):
        raise PlanError(f"{path}: damaged plan (steps)")
    steps = []
    for i, raw in enumerate(raw_steps):
        step = _typed_step(raw)
        if step is None:
            raise PlanError(f"{path}: damaged plan (step {i + 1})")
        steps.append(step)
    refused = []
    for raw in raw_refused:
        if not (isinstance(raw, dict) and isinstance(raw.get("id"), str)
                and isinstance(raw.get("reason", ""), str)):
            raise PlanError(f"{path}: damaged plan (refusals)")
        refused.append(Outcome(raw["id"], "refused", raw.get("reason", "")))
    return Plan(doc["root"], doc["action"], doc["tag"], steps, refused, doc.get("quarantine"),
                doc.get("trash_dir"), doc.get("k"), doc.get("mode"), doc.get("pipeline"))


def replan(saved: Plan, root: str | os.PathLike[str], *, pipeline: Any = None) -> Plan:
    """Check a saved plan again before acting on exactly it: the same root (PlanError
    otherwise), and every step planned afresh from what it recorded (same action,
    destination folder, reference); a file or reference whose size, mtime, inode,
    sha256 or fingerprint differs from the saved step is refused, and so is any file the
    saved plan did not list. ``pipeline`` must have the saved plan's identity."""
    real = os.path.realpath(root)
    if real != saved.root:
        raise PlanError(f"this plan was made for {saved.root}, not {real}")
    if pipeline is not None and saved.pipeline is not None and \
            str(getattr(pipeline, "identity", "")) != saved.pipeline:
        raise PlanError(f"this plan was made with the pipeline {saved.pipeline}; "
                        f"give the same pipeline options (now {pipeline.identity})")
    targets = [Target(s.id, s.size, s.mtime_ns, s.inode, "text", s.reference, s.distance,
                      fp=s.fp, ref_fp=s.ref_fp)
               for s in saved.steps]
    fresh = plan_action(real, saved.action, targets, quarantine=saved.quarantine,
                        trash_dir=saved.trash_dir if saved.action == "trash" else None,
                        pipeline=pipeline if saved.pipeline is not None else None,
                        k=saved.k, mode=saved.mode)
    by_id = {s.id: s for s in saved.steps}
    steps: list[Step] = []
    refused = list(fresh.refused)
    for new in fresh.steps:
        old = by_id[new.id]
        why = None
        if new.sha256 != old.sha256:
            why = "content changed since the plan was saved"
        elif old.ref_sha256 and new.ref_sha256 != old.ref_sha256:
            why = f"its reference {old.reference} changed since the plan was saved"
        elif old.ref_inode and new.ref_inode != old.ref_inode:
            why = f"its reference {old.reference} was replaced since the plan was saved"
        elif saved.action == "trash" and os.path.dirname(os.path.dirname(new.dest)) != \
                os.path.dirname(os.path.dirname(old.dest)):
            why = "its trash folder is not the one in the plan"
        if why is not None:
            refused.append(Outcome(new.id, "refused", why))
        else:
            new.n = len(steps)
            steps.append(new)
    fresh.steps = steps
    fresh.refused = refused
    return fresh
