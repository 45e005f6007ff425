"""The swap race: a folder inside the root replaced by a symlink to an outside folder at
the moment a file action (or its undo) acts. Nothing outside may change, and the step is
refused with its reason; undo still works once the folder is back."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from ditto_tui.corpus.actions import run_state
from ditto_tui.corpus.actions.execution import execute
from ditto_tui.corpus.actions.plan import Target
from ditto_tui.corpus.actions.planning import plan_action
from ditto_tui.corpus.actions.undo import undo_last

DATA = b"the same bytes in three places\n" * 40


def snapshot(folder: Path) -> dict[str, tuple[str, int, int]]:
    """sha256, inode and link count of every file below ``folder`` (never following links)."""
    out = {}
    for dirpath, _, files in os.walk(folder):
        for name in files:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, folder)] = (hashlib.sha256(fh.read()).hexdigest(),
                                                   st.st_ino, st.st_nlink)
    return out


@pytest.fixture
def places(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "corpus"
    (root / "keep").mkdir(parents=True)
    (root / "sub").mkdir()
    (root / "keep" / "a.txt").write_bytes(DATA)
    (root / "sub" / "f.txt").write_bytes(DATA)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_bytes(b"a file outside the corpus that must stay as it is\n")
    (outside / "other.txt").write_bytes(DATA)
    return {"root": root, "outside": outside, "trash": tmp_path / "trash",
            "q": tmp_path / "quarantine", "j": tmp_path / "journals"}


def swap(places: dict[str, Path]) -> None:
    """root/sub becomes a symlink to the outside folder (the real folder moves aside)."""
    root = places["root"]
    os.rename(root / "sub", root / "sub.moved")
    os.symlink(places["outside"], root / "sub")


def unswap(places: dict[str, Path]) -> None:
    root = places["root"]
    os.unlink(root / "sub")
    os.rename(root / "sub.moved", root / "sub")


def swap_once(places: dict[str, Path], monkeypatch) -> None:
    """Swap the folder right after the last check of ``sub/f.txt``, before it is acted on
    (the seam ``run_state.about_to_act``, called by execute and by undo)."""
    done = []

    def once(*_: object) -> None:
        if not done:
            done.append(True)
            swap(places)

    monkeypatch.setattr(run_state, "about_to_act", lambda rel: once())


def plan(places: dict[str, Path], action: str):
    root = places["root"]
    st = os.lstat(root / "sub" / "f.txt")
    target = Target("sub/f.txt", st.st_size, st.st_mtime_ns, st.st_ino, "text", "keep/a.txt")
    return plan_action(root, action, [target], trash_dir=places["trash"],
                       quarantine=places["q"] if action == "move" else None)


ACTIONS = ["trash", "move", "link"]


@pytest.mark.parametrize("action", ACTIONS)
def test_a_folder_swapped_for_a_symlink_while_acting_is_refused_and_nothing_outside_changes(
    places: dict[str, Path], monkeypatch, action: str
) -> None:
    outside = snapshot(places["outside"])
    member = os.lstat(places["root"] / "sub" / "f.txt")
    checked = plan(places, action)
    assert len(checked.steps) == 1, checked.refused
    swap_once(places, monkeypatch)
    report = execute(checked, places["j"])
    assert snapshot(places["outside"]) == outside
    [outcome] = report.outcomes
    assert outcome.status == "refused", outcome
    assert "replaced or moved while acting" in outcome.reason
    # the file is still where the folder went, the same file, not linked
    st = os.lstat(places["root"] / "sub.moved" / "f.txt")
    assert (st.st_ino, st.st_nlink) == (member.st_ino, 1)
    assert not list(places["trash"].glob("*/*"))  # no file and no .trashinfo left
    assert not list(places["q"].rglob("f.txt*"))
    assert sorted(os.listdir(places["root"] / "sub.moved")) == ["f.txt"]  # no temporary left


@pytest.mark.parametrize("action", ACTIONS)
def test_a_folder_swapped_for_a_symlink_during_undo_is_refused_and_undo_works_later(
    places: dict[str, Path], monkeypatch, action: str
) -> None:
    before = snapshot(places["root"])
    report = execute(plan(places, action), places["j"])
    assert report.count("done") == 1, report.outcomes
    outside = snapshot(places["outside"])
    swap_once(places, monkeypatch)
    undone = undo_last(places["j"])
    assert undone is not None
    assert snapshot(places["outside"]) == outside
    [outcome] = undone.outcomes
    assert outcome.status == "failed", outcome
    assert "replaced or moved while acting" in outcome.reason
    assert sorted(os.listdir(places["root"] / "sub.moved")) == (
        ["f.txt"] if action == "link" else [])  # a link stays a link; nothing left behind
    unswap(places)
    again = undo_last(places["j"])
    assert again is not None and again.count("undone") == 1, again.outcomes
    after = snapshot(places["root"])
    assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}
    assert after["sub/f.txt"][2] == 1 and after["keep/a.txt"][2] == 1


@pytest.mark.parametrize("action", ACTIONS)
def test_a_folder_already_swapped_before_undo_is_refused_by_the_gate(
    places: dict[str, Path], action: str
) -> None:
    execute(plan(places, action), places["j"])
    if action == "link":
        # the outside file is a hard link to the reference, as the first bug left it
        os.unlink(places["outside"] / "f.txt")
        os.link(places["root"] / "keep" / "a.txt", places["outside"] / "f.txt")
    outside = snapshot(places["outside"])
    swap(places)
    undone = undo_last(places["j"])
    assert undone is not None
    [outcome] = undone.outcomes
    assert outcome.status == "failed" and "symlink" in outcome.reason, outcome
    assert snapshot(places["outside"]) == outside


def test_the_reference_folder_swapped_while_linking_is_refused(
    places: dict[str, Path], monkeypatch
) -> None:
    """The reference's folder swapped for a symlink to a folder holding another file of the
    same name: the link is made from the reference checked, or refused."""
    root = places["root"]
    outside = snapshot(places["outside"])
    checked = plan(places, "link")

    def swap_reference(rel: str) -> None:
        os.rename(root / "keep", root / "keep.moved")
        os.symlink(places["outside"], root / "keep")

    monkeypatch.setattr(run_state, "about_to_act", swap_reference)
    report = execute(checked, places["j"])
    [outcome] = report.outcomes
    assert outcome.status == "refused" and "replaced or moved" in outcome.reason, outcome
    assert snapshot(places["outside"]) == outside
    assert os.lstat(root / "sub" / "f.txt").st_nlink == 1


def test_a_file_swapped_at_its_name_while_linking_is_put_back(
    places: dict[str, Path], monkeypatch
) -> None:
    """Another file put at the member's name after its check is not replaced by the link."""
    root = places["root"]
    checked = plan(places, "link")
    intruder = b"written by someone else just now\n"

    def replace_member(rel: str) -> None:  # made while the member exists: another inode
        (root / "sub" / "f.new").write_bytes(intruder)
        os.rename(root / "sub" / "f.new", root / "sub" / "f.txt")

    monkeypatch.setattr(run_state, "about_to_act", replace_member)
    report = execute(checked, places["j"])
    [outcome] = report.outcomes
    assert outcome.status == "refused" and "replaced by another file" in outcome.reason
    assert (root / "sub" / "f.txt").read_bytes() == intruder
    assert sorted(os.listdir(root / "sub")) == ["f.txt"]

