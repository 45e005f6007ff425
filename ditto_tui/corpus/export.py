"""Writing families to CSV or JSON lines (used by the UI's export dialog and the CLI).

CSV has one row per member: ``family,size,diameter,representative,member,distance,
fingerprint,k,mode`` (``family`` counts from 1 in the given order; ``distance`` is to the
representative). JSON lines have one object per family: ``{"family", "k", "mode", "size",
"diameter", "representative", "members": [{"id", "fingerprint", "distance"}]}``.
Fingerprints are 16 lowercase hex digits. With ``decisions`` (id -> review decision), CSV
rows end with ``decision,reference`` and JSON members carry ``decision``, families
``reference``: the family's member decided ``keep`` (the first one by id), else empty. Ids that are not valid UTF-8 (surrogateescape
strings) are written back as their original bytes.

CSV follows RFC 4180 quoting (a field holding a comma, a quote, CR or LF is quoted, so a
name with a line break stays in its row) and OWASP's guidance against formula injection:
a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or CR is written with a leading
``'`` and quoted, so a spreadsheet shows it as text and never evaluates it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import IO

from ditto_tui.core.families.clusters import FamilyLike
from ditto_tui.corpus.atomic import output_file

__all__ = ["FORMATS", "csv_cell", "export_families", "write_families"]

FORMATS = ("csv", "jsonl")
CSV_HEADER = (
    "family",
    "size",
    "diameter",
    "representative",
    "member",
    "distance",
    "fingerprint",
    "k",
    "mode",
)


def _lookup(fingerprints: Mapping[str, int] | Callable[[str], int]) -> Callable[[str], int]:
    if callable(fingerprints) and not isinstance(fingerprints, Mapping):
        return fingerprints
    return fingerprints.__getitem__


#: First characters that make a spreadsheet read a cell as a formula (OWASP CSV injection).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """One CSV field: neutralised against formula injection, quoted when it needs it."""
    text = str(value)
    if text.startswith(FORMULA_STARTS):
        text = "'" + text
    if text.startswith("'") or any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


class _CsvWriter:
    def __init__(self, handle: IO[str]) -> None:
        self._handle = handle

    def writerow(self, row: Iterable[object]) -> None:
        self._handle.write(",".join(csv_cell(v) for v in row) + "\n")


def _write(handle: IO[str], families: Iterable[FamilyLike], fmt: str, k: int, mode: str,
           fp_of: Callable[[str], int],
           decisions: Mapping[str, str] | None = None) -> int:
    count = 0
    writer = _CsvWriter(handle) if fmt == "csv" else None
    if writer is not None:
        writer.writerow(CSV_HEADER + (("decision", "reference") if decisions is not None else ()))
    for number, family in enumerate(families, start=1):
        centre = int(fp_of(family.centre))
        members = []
        for member in family.members:
            fp = int(fp_of(member))
            members.append((member, fp, (fp ^ centre).bit_count()))
        members.sort(key=lambda m: (m[2], m[0]))
        extra: tuple[str, ...] = ()
        if decisions is not None:
            kept = sorted(m for m in family.members if decisions.get(m) == "keep")
            reference = kept[0] if kept else ""
        if writer is not None:
            for member, fp, distance in members:
                if decisions is not None:
                    extra = (decisions.get(member, ""), reference)
                writer.writerow(
                    (number, len(members), family.diameter, family.centre, member, distance,
                     f"{fp:016x}", k, mode, *extra)
                )
        else:
            record = {
                "family": number,
                "k": k,
                "mode": mode,
                "size": len(members),
                "diameter": family.diameter,
                "representative": family.centre,
                "members": [
                    {"id": member, "fingerprint": f"{fp:016x}", "distance": distance}
                    for member, fp, distance in members
                ],
            }
            if decisions is not None:
                record["reference"] = reference
                record["members"] = [
                    {"id": member, "fingerprint": f"{fp:016x}", "distance": distance,
                     "decision": decisions.get(member, "")}
                    for member, fp, distance in members
                ]
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count


def write_families(
    families: Iterable[FamilyLike],
    handle: IO[str],
    *,
    fmt: str = "csv",
    k: int,
    mode: str,
    fingerprints: Mapping[str, int] | Callable[[str], int],
    decisions: Mapping[str, str] | None = None,
) -> int:
    """Write ``families`` to an open text stream (e.g. stdout); return how many were written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r} (expected csv or jsonl)")
    return _write(handle, families, fmt, k, mode, _lookup(fingerprints), decisions)


def export_families(
    families: Iterable[FamilyLike],
    dest: str | os.PathLike[str],
    *,
    fmt: str = "csv",
    k: int,
    mode: str,
    fingerprints: Mapping[str, int] | Callable[[str], int],
    overwrite: bool = False,
    decisions: Mapping[str, str] | None = None,
) -> int:
    """Write ``families`` to ``dest`` and return how many families were written.

    ``fingerprints`` maps every member id to its fingerprint (a mapping or a function).
    An existing ``dest`` raises ``FileExistsError`` unless ``overwrite`` is True, in which case
    it is replaced atomically (a crash leaves the old file intact). ``fmt`` other than
    ``"csv"``/``"jsonl"`` raises ``ValueError``; a member without a fingerprint raises
    ``KeyError`` before anything is left at ``dest``.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r} (expected csv or jsonl)")
    path = Path(dest)
    fp_of = _lookup(fingerprints)
    families = list(families)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists")
    with output_file(
        path, overwrite=overwrite, prefix=".ditto-export-",
        encoding="utf-8", errors="surrogateescape", newline="",
    ) as handle:
        return _write(handle, families, fmt, k, mode, fp_of, decisions)
