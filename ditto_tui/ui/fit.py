"""Fitting one-line labels to the cells they have, keeping what matters most.

A one-line label (status line, compare header, preview header, panel title) is a list of
:class:`Part` in display order, each with a priority. :func:`fit_parts` renders them in a
width: first in full, then with the parts' short forms, then with cropped paths (a middle
ellipsis keeps a path's file name), then without the least important parts, and as a
last resort cut with an ellipsis. The result never exceeds the width and never ends
without an ellipsis when something was left out.

Strings given here are shown as they are (``rich.text.Text``, never markup); the caller
makes corpus strings safe with :func:`~ditto_tui.ui.listing.shown` first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text

ELLIPSIS = "…"
MORE = " …"  # ends a label some of whose parts were left out


def left_crop(value: str, cells: int) -> str:
    """``value`` in at most ``cells`` terminal cells: its end, after an ellipsis."""
    if cell_len(value) <= cells:
        return value
    if cells <= 0:
        return ""
    kept: list[str] = []
    used = 1  # the ellipsis
    for char in reversed(value):
        used += cell_len(char)
        if used > cells:
            break
        kept.append(char)
    return ELLIPSIS + "".join(reversed(kept))


def right_crop(value: str, cells: int) -> str:
    """``value`` in at most ``cells`` cells: its start, then an ellipsis."""
    if cell_len(value) <= cells:
        return value
    if cells <= 0:
        return ""
    return set_cell_size(value, cells - 1) + ELLIPSIS


def middle_crop(path: str, cells: int) -> str:
    """A path in at most ``cells`` cells, keeping its file name: ``/usr/share/…/copyright``.

    The file name (after the last ``/``) is kept whole when it fits with an ellipsis in
    front of it; the rest of the room shows the start of the folder. A file name longer
    than the room keeps its start and, in two thirds of the room, its end (extension and
    last words), so names differing only at one end (``1741600007.M623P4100.host``,
    ``report-v2.txt``) stay apart."""
    if cell_len(path) <= cells:
        return path
    if cells <= 0:
        return ""
    slash = path.rstrip("/").rfind("/")
    name = path[slash:] if slash >= 0 else path  # "/name" (with its slash) or the whole
    if cell_len(name) + 1 >= cells:
        bare = name.lstrip("/")
        if cells < 6 or cell_len(bare) + 1 <= cells:
            return left_crop(path, cells)
        tail = left_crop(bare, (cells * 2) // 3 + 1)  # "…" + the end
        head = set_cell_size(bare, cells - cell_len(tail))
        return head + tail
    head_cells = cells - cell_len(name) - 1
    head = set_cell_size(path[: max(slash, 0)], head_cells).rstrip() if head_cells else ""
    return head + ELLIPSIS + name


def split_path(path: str) -> tuple[str, str]:
    """(file name, folder) of a corpus id; the folder is ``""`` at the top level.

    Mail ids such as ``box.mbox#12`` are kept whole as names."""
    slash = path.rstrip("/").rfind("/")
    if slash < 0:
        return path, ""
    return path[slash + 1 :], path[:slash]


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of a one-line label.

    ``priority``: lower is more important (0 is never dropped before others).
    ``short``: a terser form used when the full line does not fit.
    ``crop``: how the part may shrink: ``"left"`` (keep the end), ``"middle"`` (a path
    keeping its file name) or ``"right"``; down to ``min_cells``. ``sep``: text put before
    the part when another part precedes it (dropped with the part). ``quiet``: a
    reminder (such as a key hint) whose absence the line need not signal.
    """

    text: str
    priority: int = 0
    style: Style | str = ""
    short: str | None = None
    crop: str = ""
    min_cells: int = 8
    sep: str = ""
    quiet: bool = False  # a reminder: leaving it out needs no "…" at the end


def _cropped(part: Part, text: str, cells: int) -> str:
    if part.crop == "left":
        return left_crop(text, cells)
    if part.crop == "middle":
        return middle_crop(text, cells)
    return right_crop(text, cells)


def _layout(parts: Sequence[Part], short: bool, width: int) -> list[str] | None:
    """Texts of ``parts`` (short forms if asked) within ``width``, cropping the croppable
    ones as needed; None when even their minimum does not fit."""
    texts = [(p.short if short and p.short is not None else p.text) for p in parts]
    seps = [p.sep if i else "" for i, p in enumerate(parts)]
    fixed = sum(cell_len(s) for s in seps) + sum(
        cell_len(t) for p, t in zip(parts, texts, strict=True) if not p.crop
    )
    croppable = [i for i, p in enumerate(parts) if p.crop]
    natural = {i: cell_len(texts[i]) for i in croppable}
    room = width - fixed
    if room < 0 or room < sum(min(natural[i], parts[i].min_cells) for i in croppable):
        return None
    if sum(natural.values()) <= room:
        return texts
    # share the room: every croppable part gets its minimum, the rest goes evenly to
    # those that want more (longest last, so short ones are seldom cut)
    given = {i: min(natural[i], parts[i].min_cells) for i in croppable}
    spare = room - sum(given.values())
    wanting = sorted((i for i in croppable if natural[i] > given[i]), key=lambda i: natural[i])
    for n, i in enumerate(wanting):
        share = spare // (len(wanting) - n)
        extra = min(share, natural[i] - given[i])
        given[i] += extra
        spare -= extra
    for i in croppable:
        texts[i] = _cropped(parts[i], texts[i], given[i])
    return texts


def fit_parts(parts: Sequence[Part], width: int) -> Text:
    """The label in at most ``width`` cells (see the module docstring for the order in
    which it gives way). ``width <= 0`` (before the first layout) gives the full text."""
    kept = list(parts)
    texts: list[str] | None = None
    dropped = False
    if width <= 0:
        texts = [p.text for p in kept]
    while texts is None and kept:
        room = width - (len(MORE) if dropped else 0)
        texts = _layout(kept, False, room) or _layout(kept, True, room)
        if texts is None:
            if len(kept) == 1:
                break
            drop = max(range(len(kept)), key=lambda i: (kept[i].priority, i))
            dropped = dropped or not kept[drop].quiet
            kept.pop(drop)
    out = Text(no_wrap=True, overflow="ellipsis", end="")
    if texts is None:  # one part left that does not fit even cropped: cut it
        if kept:
            part = kept[0]
            out.append(right_crop(part.short or part.text, width), style=part.style)
        return out
    for index, (part, text) in enumerate(zip(kept, texts, strict=True)):
        if index and part.sep:
            out.append(part.sep)
        out.append(text, style=part.style)
    if dropped:
        out.append(MORE)
    if width > 0 and out.cell_len > width:  # wide characters rounding: never overflow
        out = Text(right_crop(out.plain, width), no_wrap=True, end="")
    return out


@lru_cache(maxsize=64)
def wrapped_lines(text: str, cells: int) -> tuple[str, ...]:
    """``text`` wrapped at spaces into lines of at most ``cells`` cells (its own line
    breaks kept); a word wider than a line is cut with an ellipsis."""
    out: list[str] = []
    for line in text.splitlines():
        current = ""
        for word in line.split(" "):
            candidate = f"{current} {word}" if current else word
            if cell_len(candidate) <= cells:
                current = candidate
                continue
            if current:
                out.append(current)
            current = right_crop(word, cells)
        out.append(current)
    return tuple(out)
