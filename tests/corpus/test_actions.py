"""File actions on real files: trash, quarantine, hard links, removal lists, undo, recovery."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ditto_tui.corpus.actions.execution import PAUSE_ENV, execute
from ditto_tui.corpus.actions.messages import MAIL_REASON
from ditto_tui.corpus.actions.plan import Target
from ditto_tui.corpus.actions.planning import plan_action
from ditto_tui.corpus.actions.removal_list import write_removal_list
from ditto_tui.corpus.actions.undo import recover, undo_last, undoable
from ditto_tui.corpus.journal import Journal, journals

from .conftest import write


def tree(root: Path) -> dict[str, tuple[str, int, int]]:
    """sha256, mode and mtime of every file below ``root``."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            with open(p, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
            out[os.path.relpath(p, root)] = (digest, st.st_mode, st.st_mtime_ns)
    return out


def target(root: Path, rel: str, reference: str | None, kind: str = "text") -> Target:
    st = os.lstat(root / rel)
    return Target(rel, st.st_size, st.st_mtime_ns, st.st_ino, kind, reference)


@pytest.fixture
def corpus(root: Path) -> Path:
    write(root, "keep/a.txt", "alpha " * 50)
    write(root, "copies/a1.txt", "alpha " * 50)
    write(root, "copies/deep/a2.txt", "alpha " * 50)
    write(root, "copies/odd name 'q' \u00e9.txt", "alpha " * 50)
    write(root, "other/b.txt", "beta " * 40)
    write(root, "other/b-near.txt", "beta " * 39 + "gamma")
    os.chmod(root / "copies/a1.txt", 0o640)
    return root


def test_trash_then_undo_restores_a_byte_identical_tree(corpus: Path, tmp_path: Path) -> None:
    before = tree(corpus)
    trash = tmp_path / "trash"
    jdir = tmp_path / "journals"
    names = ["copies/a1.txt", "copies/deep/a2.txt", "copies/odd name 'q' \u00e9.txt"]
    plan = plan_action(corpus, "trash", [target(corpus, n, "keep/a.txt") for n in names]
                       + [target(corpus, "other/b-near.txt", "other/b.txt")], trash_dir=trash)
    assert not plan.refused and len(plan.steps) == 4
    assert tree(corpus) == before  # planning touches nothing
    report = execute(plan, jdir)
    assert report.count("done") == 4, report.outcomes
    after = tree(corpus)
    assert set(after) == {"keep/a.txt", "other/b.txt"}
    infos = sorted((trash / "info").iterdir())
    assert len(infos) == 4 and len(list((trash / "files").iterdir())) == 4
    text = infos[0].read_text()
    assert text.startswith("[Trash Info]\nPath=/") and "DeletionDate=" in text
    [journal] = journals(jdir)
    assert journal.state == "done" and len(journal.ops) == 4

    undone = undo_last(jdir)
    assert undone is not None and undone.count("undone") == 4
    assert tree(corpus) == before
    assert list((trash / "files").iterdir()) == [] and list((trash / "info").iterdir()) == []
    assert journals(jdir)[0].state == "undone"
    assert undo_last(jdir) is None  # nothing left to undo


def test_move_to_quarantine_keeps_relative_paths_and_undoes(corpus: Path, tmp_path: Path) -> None:
    before = tree(corpus)
    q = tmp_path / "quarantine"
    plan = plan_action(corpus, "move", [target(corpus, "copies/deep/a2.txt", "keep/a.txt")],
                       quarantine=q)
    report = execute(plan, tmp_path / "j")
    assert report.count("done") == 1
    assert (q / "copies/deep/a2.txt").read_text() == "alpha " * 50
    assert not (corpus / "copies/deep/a2.txt").exists()
    undo_last(tmp_path / "j")
    assert tree(corpus) == before


def test_link_only_byte_identical_files_and_undo_gives_separate_copies(
    corpus: Path, tmp_path: Path
) -> None:
    before = tree(corpus)
    plan = plan_action(corpus, "link", [
        target(corpus, "copies/a1.txt", "keep/a.txt"),
        target(corpus, "other/b-near.txt", "other/b.txt"),
    ])
    assert [o.id for o in plan.refused] == ["other/b-near.txt"]
    assert "byte-identical" in plan.refused[0].reason
    report = execute(plan, tmp_path / "j")
    assert report.count("done") == 1 and report.count("refused") == 1
    assert os.stat(corpus / "copies/a1.txt").st_ino == os.stat(corpus / "keep/a.txt").st_ino
    assert not [p for p in (corpus / "copies").iterdir() if p.name.startswith(".")]
    undo_last(tmp_path / "j")
    assert os.stat(corpus / "copies/a1.txt").st_ino != os.stat(corpus / "keep/a.txt").st_ino
    assert tree(corpus) == before  # content, mode and mtime as they were


def test_a_file_changed_after_planning_is_refused_and_the_rest_proceeds(
    corpus: Path, tmp_path: Path
) -> None:
    plan = plan_action(corpus, "trash", [
        target(corpus, "copies/a1.txt", "keep/a.txt"),
        target(corpus, "copies/deep/a2.txt", "keep/a.txt"),
    ], trash_dir=tmp_path / "trash")
    with open(corpus / "copies/a1.txt", "ab") as fh:
        fh.write(b"!")
    report = execute(plan, tmp_path / "j")
    by_id = {o.id: o for o in report.outcomes}
    assert by_id["copies/a1.txt"].status == "refused"
    assert "changed since it was fingerprinted" in by_id["copies/a1.txt"].reason
    assert by_id["copies/deep/a2.txt"].status == "done"
    assert (corpus / "copies/a1.txt").exists()


def test_same_size_same_mtime_edit_is_caught_by_the_content_hash(
    corpus: Path, tmp_path: Path
) -> None:
    path = corpus / "copies/a1.txt"
    plan = plan_action(corpus, "trash", [target(corpus, "copies/a1.txt", "keep/a.txt")],
                       trash_dir=tmp_path / "trash")
    st = os.stat(path)
    path.write_text("ALPHA " + "alpha " * 49)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    report = execute(plan, tmp_path / "j")
    assert report.outcomes[0].status == "refused"
    assert "content changed" in report.outcomes[0].reason


def test_refusals_symlinks_outside_paths_mail_and_references(
    corpus: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside, "x.txt", "alpha " * 50)
    os.symlink(outside, corpus / "linkdir")
    os.symlink(corpus / "keep/a.txt", corpus / "alias.txt")
    st = os.stat(outside / "x.txt")
    plan = plan_action(corpus, "trash", [
        Target("linkdir/x.txt", st.st_size, st.st_mtime_ns, st.st_ino, "text", "keep/a.txt"),
        Target("../outside/x.txt", st.st_size, st.st_mtime_ns, st.st_ino, "text", "keep/a.txt"),
        target(corpus, "alias.txt", "keep/a.txt"),
        target(corpus, "copies/a1.txt", "keep/a.txt", kind="maildir"),
        target(corpus, "copies/deep/a2.txt", None),
        target(corpus, "other/b.txt", "other/b-near.txt"),
        target(corpus, "other/b-near.txt", "other/b.txt"),
        target(corpus, "copies/odd name 'q' \u00e9.txt", "missing.txt"),
    ], trash_dir=tmp_path / "trash")
    reasons = {o.id: o.reason for o in plan.refused}
    assert plan.steps == []
    assert "symlink" in reasons["linkdir/x.txt"]
    assert "not a plain path" in reasons["../outside/x.txt"]
    assert "symlink" in reasons["alias.txt"]
    assert reasons["copies/a1.txt"] == MAIL_REASON
    assert "no copy is kept" in reasons["copies/deep/a2.txt"]
    assert "marked too" in reasons["other/b.txt"]
    assert "reference missing.txt is gone" in reasons["copies/odd name 'q' \u00e9.txt"]
    assert (outside / "x.txt").exists()


def test_reference_removed_before_acting_keeps_the_copy(corpus: Path, tmp_path: Path) -> None:
    plan = plan_action(corpus, "trash", [target(corpus, "copies/a1.txt", "keep/a.txt")],
                       trash_dir=tmp_path / "trash")
    os.unlink(corpus / "keep/a.txt")
    report = execute(plan, tmp_path / "j")
    assert report.outcomes[0].status == "refused"
    assert "keep/a.txt is gone" in report.outcomes[0].reason
    assert (corpus / "copies/a1.txt").exists()


def test_undo_conflict_is_reported_and_can_be_retried(corpus: Path, tmp_path: Path) -> None:
    jdir = tmp_path / "j"
    plan = plan_action(corpus, "trash", [target(corpus, "copies/a1.txt", "keep/a.txt"),
                                         target(corpus, "copies/deep/a2.txt", "keep/a.txt")],
                       trash_dir=tmp_path / "trash")
    execute(plan, jdir)
    write(corpus, "copies/a1.txt", "someone wrote a new file here")
    report = undo_last(jdir)
    assert report is not None
    by_id = {o.id: o for o in report.outcomes}
    assert by_id["copies/a1.txt"].status == "failed" and "now exists" in by_id["copies/a1.txt"].reason
    assert by_id["copies/deep/a2.txt"].status == "undone"
    assert (corpus / "copies/a1.txt").read_text() == "someone wrote a new file here"
    [journal] = undoable(jdir)
    assert journal.state == "undo-incomplete"
    os.unlink(corpus / "copies/a1.txt")
    again = undo_last(jdir)
    assert again is not None and [o.status for o in again.outcomes] == ["undone"]
    assert (corpus / "copies/a1.txt").read_text() == "alpha " * 50


def test_removal_list_touches_nothing_and_its_script_works(corpus: Path, tmp_path: Path) -> None:
    write(corpus, "copies/new\nline.txt", "alpha " * 50)
    before = tree(corpus)
    names = ["copies/a1.txt", "copies/odd name 'q' \u00e9.txt", "copies/new\nline.txt"]
    plan = plan_action(corpus, "list", [target(corpus, n, "keep/a.txt") for n in names])
    paths = write_removal_list(plan, tmp_path / "removal")
    assert [p.suffix for p in paths] == [".csv", ".jsonl", ".sh"]
    assert tree(corpus) == before
    rows = [json.loads(line) for line in paths[1].read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == sorted(names)  # (farthest first: no bits here)
    with pytest.raises(FileExistsError):
        write_removal_list(plan, tmp_path / "removal")
    # the script removes exactly the listed files (a changed one is skipped)
    with open(corpus / "copies/a1.txt", "ab") as fh:
        fh.write(b"changed")
    done = subprocess.run(["sh", str(paths[2])], capture_output=True, check=True)
    assert b"skipped" in done.stderr
    left = set(tree(corpus))
    assert left == set(before) - set(names[1:])


def _run_action_child(corpus: Path, tmp_path: Path, action: str, pause_after: int,
                      names: list[str], extra: str = "") -> subprocess.Popen:
    code = f"""
import os, sys
from ditto_tui.corpus.actions.execution import execute
from ditto_tui.corpus.actions.plan import Target
from ditto_tui.corpus.actions.planning import plan_action
root = {str(corpus)!r}
targets = []
for rel in {names!r}:
    st = os.lstat(os.path.join(root, rel))
    targets.append(Target(rel, st.st_size, st.st_mtime_ns, st.st_ino, "text", "keep/a.txt"))
plan = plan_action(root, {action!r}, targets, trash_dir={str(tmp_path / 'trash')!r} {extra})
execute(plan, {str(tmp_path / 'j')!r})
"""
    env = dict(os.environ, **{PAUSE_ENV: str(pause_after)})
    return subprocess.Popen([sys.executable, "-c", code], env=env)


@pytest.mark.parametrize("action", ["trash", "link", "move"])
def test_kill_in_the_middle_then_recover_rolls_back(
    corpus: Path, tmp_path: Path, action: str
) -> None:
    for i in range(6):
        write(corpus, f"many/c{i}.txt", "alpha " * 50)
    names = [f"many/c{i}.txt" for i in range(6)]
    before = tree(corpus)
    extra = f", quarantine={str(tmp_path / 'q')!r}" if action == "move" else ""
    child = _run_action_child(corpus, tmp_path, action, 3, names, extra)
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline:
        found = journals(tmp_path / "j")
        if found:
            done = sum(1 for o in found[0].outcomes.values() if o["status"] == "done")
            if done >= 3:
                break
        assert child.poll() is None, "the action ended before the pause"
        time.sleep(0.05)
    assert done == 3
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert tree(corpus) != before
    [journal] = journals(tmp_path / "j")
    assert journal.state is None  # interrupted
    reports = recover(tmp_path / "j")
    assert [r.count("undone") for r in reports] == [3]
    assert tree(corpus) == before
    assert journals(tmp_path / "j")[0].state == "rolled-back"
    assert recover(tmp_path / "j") == []


def test_recover_rolls_back_the_file_in_flight(corpus: Path, tmp_path: Path) -> None:
    """A crash between the journal write and the outcome record: decided from the disk."""
    before = tree(corpus)
    plan = plan_action(corpus, "trash", [target(corpus, "copies/a1.txt", "keep/a.txt")],
                       trash_dir=tmp_path / "trash")
    from dataclasses import asdict

    journal = Journal.create(tmp_path / "j", {"action": "trash", "root": plan.root}, [
        asdict(s) for s in plan.steps])
    step = plan.steps[0]
    os.makedirs(os.path.dirname(step.dest))
    os.makedirs(os.path.dirname(step.info))
    Path(step.info).write_text("[Trash Info]\n")
    os.rename(corpus / "copies/a1.txt", step.dest)  # moved; the outcome never recorded
    with open(journal.path, "ab") as fh:
        fh.write(b'{"n": 0, "sta')  # torn line
    journal.close()
    [report] = recover(tmp_path / "j")
    assert report.count("undone") == 1
    assert tree(corpus) == before
    assert not os.path.exists(step.info)


def test_a_journal_in_use_is_not_rolled_back(corpus: Path, tmp_path: Path) -> None:
    plan = plan_action(corpus, "trash", [target(corpus, "copies/a1.txt", "keep/a.txt")],
                       trash_dir=tmp_path / "trash")
    from dataclasses import asdict

    journal = Journal.create(tmp_path / "j", {"action": "trash", "root": plan.root},
                             [asdict(s) for s in plan.steps])
    try:
        assert recover(tmp_path / "j") == []  # locked by this (live) writer
    finally:
        journal.close()
    assert len(recover(tmp_path / "j")) == 1


@pytest.mark.parametrize("action", ["trash", "link"])
def test_an_undo_interrupted_before_its_record_finishes_cleanly(
    corpus: Path, tmp_path: Path, action: str
) -> None:
    before = tree(corpus)
    jdir = tmp_path / "j"
    plan = plan_action(corpus, action, [target(corpus, "copies/a1.txt", "keep/a.txt"),
                                        target(corpus, "copies/deep/a2.txt", "keep/a.txt")],
                       trash_dir=tmp_path / "trash")
    execute(plan, jdir)
    # an undo that restored a1.txt and was killed before writing its outcome
    step = plan.steps[0]
    path = corpus / "copies/a1.txt"
    if action == "trash":
        os.rename(step.dest, path)
    else:
        data = path.read_bytes()
        os.unlink(path)
        path.write_bytes(data)
        os.chmod(path, step.mode & 0o7777)
        os.utime(path, ns=(step.atime_ns, step.mtime_ns))
    report = undo_last(jdir)
    assert report is not None and report.failures == []
    assert report.count("undone") == 2
    assert tree(corpus) == before


def test_trash_inside_the_corpus_and_quarantine_escapes_are_refused(
    corpus: Path, tmp_path: Path
) -> None:
    plan = plan_action(corpus, "trash", [target(corpus, "copies/a1.txt", "keep/a.txt")],
                       trash_dir=corpus / "bin")
    assert "inside the corpus folder" in plan.refused[0].reason
    q = tmp_path / "q"
    q.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, q / "copies")
    plan = plan_action(corpus, "move", [target(corpus, "copies/deep/a2.txt", "keep/a.txt")],
                       quarantine=q)
    report = execute(plan, tmp_path / "j")
    assert report.outcomes[0].status == "refused"
    assert "leads out of the quarantine" in report.outcomes[0].reason
    assert (corpus / "copies/deep/a2.txt").exists() and list(elsewhere.iterdir()) == []
    with pytest.raises(ValueError):
        plan_action(corpus, "move", [], quarantine=corpus)


def test_content_checks_open_through_the_gate(tmp_path: Path) -> None:
    """The sha256 check before acting opens the file inside the root only: a folder on the
    way swapped for a symlink (after the lstat walk) is refused, never hashed."""
    from ditto_tui.corpus.actions.outcomes import Refused
    from ditto_tui.corpus.actions.verify import hash_in_gate
    from ditto_tui.corpus.rootdir import RootDir

    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.txt").write_text("inside")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "f.txt").write_text("outside")
    with RootDir(root) as gate:
        digest, _, _ = hash_in_gate(gate, "sub/f.txt", False)
    assert digest == hashlib.sha256(b"inside").hexdigest()
    (root / "sub" / "f.txt").unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(tmp_path / "out", target_is_directory=True)
    with RootDir(root) as gate, pytest.raises(Refused, match="symlink"):
        hash_in_gate(gate, "sub/f.txt", False)


@pytest.mark.parametrize(("platform", "name"), [("darwin", "macOS"), ("win32", "Windows")])
def test_trash_is_refused_on_macos_and_windows_unless_a_trash_folder_is_given(
    corpus: Path, tmp_path: Path, monkeypatch, platform: str, name: str
) -> None:
    """Planning refuses the system trash there (so the library and the UI cannot bypass
    the refusal); ditto-tui's own trash folder still works and undoes."""
    monkeypatch.delenv("DITTO_TUI_TRASH_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "platform", platform)
    before = tree(corpus)
    targets = [target(corpus, "copies/a1.txt", "keep/a.txt"),
               target(corpus, "copies/deep/a2.txt", "keep/a.txt")]
    for marked in (targets, []):
        with pytest.raises(ValueError) as caught:
            plan_action(corpus, "trash", marked)
        reason = str(caught.value)
        assert "\n" not in reason and f"on {name} " in reason and "--action move DIR" in reason
    assert tree(corpus) == before and not (tmp_path / "data").exists()
    jdir = tmp_path / "journals"
    own = tmp_path / "own-trash"
    plan = plan_action(corpus, "trash", targets, trash_dir=own)
    assert len(plan.steps) == 2 and all(s.dest.startswith(str(own)) for s in plan.steps)
    assert execute(plan, jdir).count("done") == 2
    assert len(list((own / "info").iterdir())) == 2
    assert not (corpus / "copies/a1.txt").exists()
    report = undo_last(jdir)
    assert report is not None and report.count("undone") == 2 and not report.failures
    assert tree(corpus) == before
    monkeypatch.setenv("DITTO_TUI_TRASH_DIR", str(tmp_path / "env-trash"))
    plan = plan_action(corpus, "trash", targets)
    assert execute(plan, jdir).count("done") == 2
    assert len(list((tmp_path / "env-trash" / "files").iterdir())) == 2
    report = undo_last(jdir)
    assert report is not None and report.count("undone") == 2
    assert tree(corpus) == before and not (tmp_path / "data").exists()
    plan = plan_action(corpus, "move", targets, quarantine=tmp_path / "q")  # never refused
    assert len(plan.steps) == 2


@pytest.mark.parametrize("platform", ["linux", "freebsd14"])
def test_trash_goes_to_the_freedesktop_home_trash_on_linux_and_the_bsds(
    corpus: Path, tmp_path: Path, monkeypatch, platform: str
) -> None:
    monkeypatch.delenv("DITTO_TUI_TRASH_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "platform", platform)
    before = tree(corpus)
    jdir = tmp_path / "journals"
    plan = plan_action(corpus, "trash", [target(corpus, "copies/a1.txt", "keep/a.txt")])
    home = tmp_path / "data" / "Trash"
    assert [os.path.dirname(s.dest) for s in plan.steps] == [str(home / "files")]
    assert execute(plan, jdir).count("done") == 1
    [info] = (home / "info").iterdir()
    assert f"\nPath={os.path.realpath(corpus)}/copies/a1.txt\n" in info.read_text()
    report = undo_last(jdir)
    assert report is not None and report.count("undone") == 1
    assert tree(corpus) == before


def _rewrite_in_place(path: Path, text: str) -> None:
    """Other bytes, same size, mtime and inode (``rsync --inplace -t``)."""
    st = os.stat(path)
    data = text.encode()[: st.st_size].ljust(st.st_size, b".")
    with open(path, "r+b") as fh:
        fh.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_ino == st.st_ino


def test_a_stale_fingerprint_is_refused_when_planning_with_the_pipeline(
    corpus: Path, tmp_path: Path, pipeline
) -> None:
    def fp(rel: str) -> int:
        return int(pipeline.fingerprint((corpus / rel).read_bytes()))

    targets = [replace(target(corpus, n, "keep/a.txt"), fp=fp(n), ref_fp=fp("keep/a.txt"))
               for n in ("copies/a1.txt", "copies/deep/a2.txt")]
    _rewrite_in_place(corpus / "copies/a1.txt", "minutes of the garden committee " * 20)
    plan = plan_action(corpus, "trash", targets, trash_dir=tmp_path / "trash",
                       pipeline=pipeline, k=3)
    assert [s.id for s in plan.steps] == ["copies/deep/a2.txt"]
    assert plan.steps[0].distance == 0 and plan.steps[0].fp == targets[1].fp
    assert plan.stale == ["copies/a1.txt"]
    assert "not what was fingerprinted" in plan.refused[0].reason


def test_a_reference_rewritten_in_place_after_planning_keeps_the_copy(
    corpus: Path, tmp_path: Path
) -> None:
    plan = plan_action(corpus, "trash", [target(corpus, "copies/a1.txt", "keep/a.txt")],
                       trash_dir=tmp_path / "trash")
    _rewrite_in_place(corpus / "keep/a.txt", "something else entirely " * 20)
    report = execute(plan, tmp_path / "j")
    assert report.outcomes[0].status == "refused"
    assert "reference keep/a.txt changed since the plan" in report.outcomes[0].reason
    assert (corpus / "copies/a1.txt").read_text() == "alpha " * 50


def test_the_removal_list_is_safe_to_open_and_to_run(corpus: Path, tmp_path: Path) -> None:
    """Formula cells neutralised and a CR kept inside its row (the export's safe writer);
    the script is printable ASCII, prints no terminal control and checks sha256."""
    import csv

    names = ["=cmd|' -C calc'!A0.txt", "+1.txt", "-2.txt", "@sum.txt", "\ttab.txt",
             "cr\rin name.txt", "esc \x1b]0;pwned\x07 \x1b[31mred.txt", "new\nline.txt",
             "per%cent \\ back.txt", "odd \udcff byte.txt"]
    for name in names:  # at the root: the id column starts with the name
        (corpus / name).write_bytes(b"alpha " * 50)
    plan = plan_action(corpus, "list", [target(corpus, n, "keep/a.txt") for n in names])
    assert not plan.refused, plan.refused
    paths = write_removal_list(plan, tmp_path / "removal")
    with open(paths[0], newline="", encoding="utf-8", errors="surrogateescape") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == len(names) + 1  # one row per file: a CR or LF never splits one
    assert sorted(r[0].removeprefix("'") for r in rows[1:]) == sorted(names)
    for r in rows[1:]:
        for cell in r:
            assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
    script = paths[2].read_bytes()
    assert all(0x20 <= b < 0x7F or b == 0x0A for b in script), "raw bytes in the script"
    # one file changed with the same size after the list was written: kept (sha256)
    changed = corpus / "+1.txt"
    changed.write_bytes(b"ALPHA " + b"alpha " * 49)
    done = subprocess.run(["sh", str(paths[2])], capture_output=True, check=True)
    for stream in (done.stdout, done.stderr):
        assert not any(b < 0x20 and b != 0x0A for b in stream), stream
        assert b"\x1b" not in stream
    assert done.stdout.count(b"removed ") == len(names) - 1
    assert b"skipped " in done.stderr and b"+1.txt" in done.stderr
    assert sorted(os.listdir(corpus)) == ["+1.txt", "copies", "keep", "other"]


def test_disk_full_while_copying_across_filesystems_leaves_no_part_file(
    corpus: Path, tmp_path: Path, monkeypatch
) -> None:
    """A move into a quarantine on another filesystem (EXDEV) copies; the disk filling
    up during the copy removes ``*.ditto-part``, names the writing side, keeps the file."""
    import errno

    from ditto_tui.corpus.actions import transfer

    q = tmp_path / "q"
    plan = plan_action(corpus, "move", [target(corpus, "copies/deep/a2.txt", "keep/a.txt")],
                       quarantine=q)
    real_write, real_rename = os.write, os.rename

    def full_write(fd: int, data) -> int:
        try:
            where = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            where = ""
        if where.endswith(".ditto-part"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    def other_fs_rename(src, dst, *args, **kwargs):  # the tree before this fix
        if str(dst).startswith(str(q)) and not str(src).endswith(".ditto-part"):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "write", full_write)
    monkeypatch.setattr(os, "rename", other_fs_rename)
    real_noreplace = transfer.rename_noreplace

    def other_fs(src_fd: int, src: str, dst_fd: int, dst: str) -> None:
        if src_fd != dst_fd:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_noreplace(src_fd, src, dst_fd, dst)

    monkeypatch.setattr(transfer, "rename_noreplace", other_fs)
    report = execute(plan, tmp_path / "j")
    monkeypatch.undo()
    [outcome] = report.outcomes
    assert outcome.status == "failed"
    assert "writing the copy in the quarantine folder failed: no space left" in outcome.reason
    assert "unreadable" not in outcome.reason
    assert [p.name for p in q.rglob("*") if p.is_file()] == []
    assert (corpus / "copies/deep/a2.txt").read_text() == "alpha " * 50
