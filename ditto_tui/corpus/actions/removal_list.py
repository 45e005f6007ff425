"""Removal lists: the ``list`` action writes what would be removed as CSV, JSON lines and a
checking shell script (:func:`write_removal_list`), and touches nothing in the corpus."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from ditto_tui.core.fingerprint.simhash import similarity_percent
from ditto_tui.corpus.actions.plan import Plan

__all__ = ["write_removal_list"]


def _escape(text: str) -> str:
    """``text`` as is when it is printable ASCII, else every byte outside that as ``\\xNN``
    (so no terminal control reaches whoever reads the script's output)."""
    raw = os.fsencode(text)
    return "".join(
        f"\\x{b:02x}" if b < 0x20 or b == 0x7F else chr(b) if b < 0x80 else f"\\x{b:02x}"
        for b in raw
    ) if any(b < 0x20 or b == 0x7F or b >= 0x80 for b in raw) else text


def _printf_format(path: str) -> str:
    """``path``'s bytes as a printf format that is plain printable ASCII: ``%`` and ``\\``
    doubled, every other byte outside 0x20-0x7E as a three-digit octal escape."""
    out = []
    for b in os.fsencode(path):
        if b == 0x25:
            out.append("%%")
        elif b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    return "".join(out)


_SCRIPT_HEAD = """\
set -u
if command -v sha256sum >/dev/null 2>&1; then
    digest() { sha256sum < "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
    digest() { shasum -a 256 < "$1" | cut -d ' ' -f 1; }
else
    echo 'this script needs sha256sum or shasum to check each file before removing it' >&2
    exit 1
fi
# $1: the path as a printf format (plain ASCII), $2: size, $3: sha256, $4: the path as shown
remove() {
    p=$(printf "$1"x)
    p=${p%x}
    if [ -f "$p" ] && [ ! -L "$p" ] && [ "$(wc -c < "$p")" -eq "$2" ] \\
            && [ "$(digest "$p")" = "$3" ]; then
        rm -- "$p" && printf 'removed %s\\n' "$4"
    else
        printf 'skipped %s (gone, changed or not a regular file)\\n' "$4" >&2
    fi
}
"""


def write_removal_list(plan: Plan, prefix: str | os.PathLike[str]) -> list[Path]:
    """Write ``<prefix>.csv``, ``<prefix>.jsonl`` and ``<prefix>.sh`` for the plan's
    files (path, the reference it duplicates, bits and similarity to it, size, sha256),
    farthest from their reference first; nothing in the corpus is touched. The CSV is
    written by the export's safe writer (:func:`~ditto_tui.corpus.export.csv_cell`: formula
    cells neutralised, CR and LF quoted). The script is plain printable ASCII (names as
    printf octal escapes), prints names escaped (no terminal control reaches whoever runs
    it), and removes a file only if it is still a regular file of the recorded size *and*
    sha256. Refuses to overwrite existing files (FileExistsError)."""
    from ditto_tui.corpus.export import csv_cell

    prefix = str(prefix)
    paths = [Path(prefix + ext) for ext in (".csv", ".jsonl", ".sh")]
    for p in paths:
        if p.exists():
            raise FileExistsError(p)
    rows = []
    for s in sorted(plan.steps, key=lambda s: (-(s.distance or 0), s.id)):
        path = os.path.join(plan.root, *s.id.split("/"))
        ref = os.path.join(plan.root, *s.reference.split("/"))
        similar = "" if s.distance is None else similarity_percent(s.distance)
        rows.append((s.id, path, s.reference, ref, s.distance, similar, s.size, s.sha256))
    header = ("id", "path", "reference", "reference_path", "distance", "similarity", "size",
              "sha256")
    with open(paths[0], "x", encoding="utf-8", errors="surrogateescape", newline="") as fh:
        for row in (header, *rows):
            fh.write(",".join(csv_cell("" if v is None else v) for v in row) + "\n")
    with open(paths[1], "x", encoding="ascii") as fh:
        for r in rows:
            fh.write(json.dumps(dict(zip(header, r, strict=True))) + "\n")
    lines = [
        "#!/bin/sh",
        f"# Written by ditto-tui: {len(rows)} near-duplicate file(s) under",
        "# " + _escape(plan.root),
        "# Nothing has been removed. Review, then run: sh "
        + _escape(os.path.basename(paths[2])),
        "# Each file is removed only if it is still a regular file with the size and sha256",
        "# it had when this list was written.",
        _SCRIPT_HEAD.rstrip("\n"),
    ]
    for r in rows:
        bits = "" if r[4] is None else f" ({r[4]} bits, {r[5]})"
        lines.append("# keeps " + _escape(r[3]) + bits)
        lines.append(f"remove {shlex.quote(_printf_format(r[1]))} {int(r[6])} {r[7]} "
                     f"{shlex.quote(_escape(r[1]))}")
    with open(paths[2], "x", encoding="ascii") as fh:
        fh.write("\n".join(lines) + "\n")
    os.chmod(paths[2], 0o755)
    return paths
