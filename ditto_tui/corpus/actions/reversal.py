"""Reversing one journaled operation, decided from the disk (never from the journal's
outcome alone): :func:`undo_rename` takes a file back out of the trash or quarantine
folder, :func:`undo_link` writes a fresh copy of the bytes a linked file had. Both also
finish or reverse an operation an interrupted process left half done."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from typing import Any

from ditto_tui.corpus.actions import run_state
from ditto_tui.corpus.actions.folders import At, lstat_at, split_rel, unlink_quietly
from ditto_tui.corpus.actions.messages import moved_reason
from ditto_tui.corpus.actions.outcomes import Refused
from ditto_tui.corpus.actions.run_state import Run
from ditto_tui.corpus.actions.transfer import copy_at, exchange_in, move_at, rename_over
from ditto_tui.corpus.actions.verify import hash_at
from ditto_tui.corpus.fsops import rename_noreplace

__all__ = ["UNDO_BY_ACTION", "undo_link", "undo_rename"]


def _is_original(at: At, op: dict[str, Any], *, same_inode: bool = True) -> bool:
    """Whether ``at`` holds the op's original file again (size, mtime, sha256, and the
    inode when it was renamed back)."""
    try:
        st = lstat_at(at.fd, at.name)
        if st is None or not stat.S_ISREG(st.st_mode):
            return False
        if (st.st_size, st.st_mtime_ns) != (op["size"], op["mtime_ns"]):
            return False
        if same_inode and st.st_ino != op["inode"]:
            return False
        return bool(hash_at(at.fd, at.name)[0] == op["sha256"])
    except (OSError, Refused):
        return False


def undo_rename(run: Run, header: dict[str, Any], op: dict[str, Any], rolling_back: bool) -> str:
    """Put a trashed or quarantined file back at its place, deciding from the disk what
    was done; return ``undone`` or ``not-done`` (``rolling_back``: found untouched), else
    raise Refused with the reason the file stays where it is."""
    rel, dest, info = op["id"], op["dest"], op.get("info", "")
    parent, name = split_rel(rel)
    dname = os.path.basename(dest)
    if header.get("action") == "trash":
        base, drel = run.base_of(dest), "files"
    else:
        quarantine = header.get("quarantine")
        if not isinstance(quarantine, str):
            raise Refused("the journal does not say where the quarantine folder is")
        base, drel = quarantine, parent
    dfd = run.folder_or_none(base, drel, check=False)  # checked after the move
    if dfd is not None:
        unlink_quietly(dfd, dname + ".ditto-part")
    pfd = run.folder_or_none(run.root, parent, check=False)  # checked after the move
    src_st = None if pfd is None else lstat_at(pfd, name)
    dest_st = None if dfd is None else lstat_at(dfd, dname)

    def drop_info() -> None:
        if info:
            iname = os.path.basename(info)
            ifd = run.folder_or_none(run.base_of(info), "info", False)
            if ifd is not None:
                unlink_quietly(ifd, iname)

    if dest_st is not None and src_st is None:
        assert dfd is not None
        if not stat.S_ISREG(dest_st.st_mode) or (dest_st.st_size, dest_st.st_mtime_ns) != (
                op["size"], op["mtime_ns"]):
            raise Refused(f"the file at {dest} is not the one put there; left there")
        if pfd is None:
            pfd = run.folder(parent, create=True)
        src = At(run.root, parent, pfd, name, rel)
        run_state.about_to_act(rel)
        move_at(run, At(base, drel, dfd, dname, dest), src, dest_st.st_ino, op["sha256"],
                 "the corpus folder", src_checked=False)
        run.touched.add((run.root, parent))
        drop_info()
        return "undone"
    if src_st is not None and dest_st is None:
        assert pfd is not None
        if rolling_back:
            drop_info()
            return "not-done"
        if _is_original(At(run.root, parent, pfd, name, rel), op):  # an undo cut short
            drop_info()
            return "undone"
        raise Refused(f"{dest} is gone and a file is back at {rel}")
    if src_st is not None and dest_st is not None:
        assert pfd is not None and dfd is not None
        copy = At(base, drel, dfd, dname, dest)
        if rolling_back and stat.S_ISREG(dest_st.st_mode) and src_st.st_ino == op["inode"] \
                and _is_original(copy, op, same_inode=False):
            # a copy across filesystems finished but the original was not removed yet
            unlink_quietly(dfd, dname)
            drop_info()
            return "not-done"
        raise Refused(f"a file now exists at {rel}; the original stays at {dest}")
    raise Refused(f"no longer at {dest} (was the trash emptied?)")


def undo_link(run: Run, header: dict[str, Any], op: dict[str, Any], rolling_back: bool) -> str:
    """Replace a hard link made by ``link`` with a fresh copy of the bytes, mode and times
    the file had (finishing or reversing a link cut short), deciding from the disk; return
    as :func:`undo_rename`."""
    rel = op["id"]
    parent, name = split_rel(rel)
    tmp = os.path.basename(op["dest"])
    pfd = run.folder_or_none(run.root, parent)
    st: os.stat_result | None = None
    if pfd is not None:
        at = At(run.root, parent, pfd, name, rel)
        left = lstat_at(pfd, tmp)
        if left is not None and left.st_ino == op["ref_inode"]:
            unlink_quietly(pfd, tmp)  # a link made but not yet put in place
        elif left is not None and left.st_ino == op["inode"]:
            # stopped between the exchange and the removal of the original: put it back
            cur = lstat_at(pfd, name)
            if cur is None:
                run_state.about_to_act(rel)
                rename_noreplace(pfd, tmp, pfd, name)
            elif cur.st_ino == op["ref_inode"]:
                run_state.about_to_act(rel)
                if exchange_in(run, at, tmp, op["ref_inode"]):
                    unlink_quietly(pfd, tmp)
                else:
                    rename_over(run, at, tmp, op["ref_inode"])
            else:
                raise Refused(f"a file now exists at {rel}; the original stays at {op['dest']}")
            return "not-done" if rolling_back else "undone"
        st = lstat_at(pfd, name)
    if st is not None and st.st_ino == op["inode"]:
        if rolling_back:
            return "not-done"
        # the file system may give a copy put back by an interrupted undo the inode number
        # the original had before it was linked: judge by content, not by the number
        assert pfd is not None
        if _is_original(At(run.root, parent, pfd, name, rel), op, same_inode=False):
            return "undone"
        raise Refused("is not linked any more")
    if st is not None and st.st_ino != op["ref_inode"]:
        assert pfd is not None
        if _is_original(At(run.root, parent, pfd, name, rel), op, same_inode=False):
            return "undone"  # an interrupted undo got this far
        raise Refused("was replaced since the action; left as is")
    if st is None:
        rparent, rname = split_rel(op["reference"])
        try:
            source = At(run.root, rparent, run.folder(rparent), rname, op["reference"])
        except FileNotFoundError:
            raise Refused(f"it is gone and so is its reference {op['reference']}") from None
        pfd = run.folder(parent, create=True)
    else:
        assert pfd is not None
        source = At(run.root, parent, pfd, name, rel)
    at = At(run.root, parent, pfd, name, rel)
    fresh = f".{tmp}.undo"
    unlink_quietly(pfd, fresh)
    try:
        copy_at(source, At(run.root, parent, pfd, fresh, fresh), op["sha256"],
                 (op["mode"], op["atime_ns"], op["mtime_ns"]), "the corpus folder")
    except Refused:
        raise Refused("its content changed since it was linked; left as is") from None
    try:
        run_state.about_to_act(rel)
        if st is None:
            try:
                rename_noreplace(pfd, fresh, pfd, name)
            except FileExistsError:
                raise Refused(f"a file now exists at {rel}") from None
            if not run.still_at(at):
                with contextlib.suppress(OSError):
                    rename_noreplace(pfd, name, pfd, fresh)
                raise Refused(moved_reason(at) + " (left as it was)")
        elif exchange_in(run, at, fresh, op["ref_inode"]):
            pass  # ``fresh`` now names the link: removed below
        else:
            rename_over(run, at, fresh, op["ref_inode"])
    finally:
        unlink_quietly(pfd, fresh)
    run.touched.add((run.root, parent))
    return "undone"


#: How each action's operations are reversed (``header``: the journal's header).
UNDO_BY_ACTION: dict[str, Callable[[Run, dict[str, Any], dict[str, Any], bool], str]] = {
    "trash": undo_rename, "move": undo_rename, "link": undo_link,
}
