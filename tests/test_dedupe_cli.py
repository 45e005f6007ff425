"""``ditto-tui dedupe`` / ``undo`` / ``export --decisions`` on real folders."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ditto_tui.cli.main import main
from ditto_tui.core.review.decisions import identity_of
from ditto_tui.corpus.actions.execution import PAUSE_ENV
from ditto_tui.corpus.journal import journals
from ditto_tui.corpus.review import ReviewStore
from ditto_tui.corpus.session import CorpusSession

TEXT = "Your Apple ID has been locked. Please verify your account now, today. " * 8


def tree(root: Path) -> dict[str, str]:
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


@pytest.fixture
def env(tmp_path: Path, monkeypatch) -> dict[str, Path]:
    places = {"cache": tmp_path / "cache", "trash": tmp_path / "trash"}
    monkeypatch.setenv("XDG_CACHE_HOME", str(places["cache"]))
    monkeypatch.setenv("DITTO_TUI_TRASH_DIR", str(places["trash"]))
    return places


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for rel, text in {
        "ref/orig.txt": TEXT,
        "copies/one.txt": TEXT,
        "copies/two.txt": TEXT + "!",
        "copies/deep/three.txt": TEXT,
        "other/unrelated.txt": "Minutes of the garden committee: compost and tomatoes. " * 6,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    # distinct mtimes, oldest first in this order
    for n, rel in enumerate(["copies/one.txt", "ref/orig.txt", "copies/two.txt",
                             "copies/deep/three.txt"]):
        os.utime(root / rel, ns=(1_600_000_000_000_000_000 + n, 1_600_000_000_000_000_000 + n))
    return root


def run(capfdbinary, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capfdbinary.readouterr()
    return code, captured.out.decode("utf-8", "replace"), captured.err.decode("utf-8", "replace")


def test_dry_run_lists_the_plan_and_touches_nothing(corpus, env, capfdbinary) -> None:
    before = tree(corpus)
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "-k", "3", "--keep", "oldest",
                         "--action", "trash", "--dry-run")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "keep    copies/one.txt"
    assert set(lines[1:4]) == {"trash   ref/orig.txt  (0 bits, 100.00%)",
                               "trash   copies/two.txt  (0 bits, 100.00%)",
                               "trash   copies/deep/three.txt  (0 bits, 100.00%)"}
    assert "3 file(s) to trash" in lines[-1] and "every one within k=3" in lines[-1]
    assert tree(corpus) == before


def test_reference_folder_wins_and_is_never_acted_on(corpus, env, capfdbinary) -> None:
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "newest",
                         "--prefer-folder", str(corpus / "ref"), "--action", "trash", "-n")
    assert code == 0, err
    assert out.splitlines()[0] == "keep    ref/orig.txt"
    assert "ref/orig.txt" not in "".join(out.splitlines()[1:])
    code, out, _ = run(capfdbinary, "dedupe", str(corpus), "--prefer-folder", "/elsewhere", "-n")
    assert code == 2


def test_acting_needs_confirmation_when_not_a_terminal(corpus, env, capfdbinary) -> None:
    before = tree(corpus)
    code, _, err = run(capfdbinary, "dedupe", str(corpus), "--action", "trash")
    assert code == 1 and "not acting without confirmation" in err
    assert tree(corpus) == before


def test_trash_then_undo_restores_every_byte(corpus, env, capfdbinary) -> None:
    before = tree(corpus)
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest",
                         "--action", "trash", "--yes")
    assert code == 0, err
    assert "3 file(s) done" in out
    assert set(tree(corpus)) == {"copies/one.txt", "other/unrelated.txt"}
    assert len(list((env["trash"] / "info").iterdir())) == 3
    code, out, err = run(capfdbinary, "undo", str(corpus), "--list")
    assert code == 0 and "\ttrash\t3 file(s)\tdone" in out
    code, out, err = run(capfdbinary, "undo", str(corpus))
    assert code == 0, err
    assert "3 file(s) put back" in out
    assert tree(corpus) == before
    code, _, err = run(capfdbinary, "undo", str(corpus))
    assert code == 0 and "nothing to undo" in err


def test_move_link_and_list_actions(corpus, env, tmp_path, capfdbinary) -> None:
    before = tree(corpus)
    q = tmp_path / "quarantine"
    code, _, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "--only-folder",
                       str(corpus / "copies"), "--action", "move", str(q), "-y")
    assert code == 0, err
    assert sorted(tree(q)) == ["copies/deep/three.txt", "copies/two.txt"]
    run(capfdbinary, "undo", str(corpus))
    assert tree(corpus) == before
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest",
                         "--action", "link", "-y")
    assert code == 0, err
    assert "refuse  copies/two.txt  (0 bits, 100.00%; not byte-identical" in out
    one = os.stat(corpus / "copies/one.txt").st_ino
    assert os.stat(corpus / "ref/orig.txt").st_ino == one
    run(capfdbinary, "undo", str(corpus))
    assert tree(corpus) == before and os.stat(corpus / "ref/orig.txt").st_ino != one
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--action", "list",
                         str(tmp_path / "removal"), "--only-glob", "two.*")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO((tmp_path / "removal.csv").read_text())))
    assert [r[0] for r in rows[1:]] == ["copies/two.txt"]
    assert tree(corpus) == before
    assert run(capfdbinary, "dedupe", str(corpus), "--action", "move")[0] == 2
    assert run(capfdbinary, "dedupe", str(corpus), "--action", "shred")[0] == 2


def _identities(root: Path, cache: Path) -> dict:
    from ditto_tui.core import make_pipeline

    with CorpusSession(root, make_pipeline("ditto")) as session:
        session.scan()
        return {i: identity_of(d, int(session.fingerprints[i]))
                for i, d in session.documents.items()}


def test_stored_decisions_and_ignored_pairs_are_respected(corpus, env, capfdbinary) -> None:
    idents = _identities(corpus, env["cache"])
    with ReviewStore.for_root(corpus) as store:
        store.set_decision("copies/deep/three.txt", idents["copies/deep/three.txt"], "keep")
        # two.txt is "not a duplicate" of anything it links to: cut all its edges
        for other in ("ref/orig.txt", "copies/one.txt", "copies/deep/three.txt"):
            store.ignore_pair(("copies/two.txt", idents["copies/two.txt"]), (other, idents[other]))
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "-n",
                         "--action", "trash")
    assert code == 0, err
    body = [ln for ln in out.splitlines() if ln]
    assert body[0] == "keep    copies/one.txt"
    # three.txt decided keep (kept, with nothing of its own to list); two.txt split off
    assert body[1:-1] == ["trash   ref/orig.txt  (0 bits, 100.00%)"]
    assert "1 file(s) to trash" in body[-1]
    # export carries the decisions and the family's reference
    out_csv = env["cache"].parent / "export.csv"
    code, _, err = run(capfdbinary, "export", str(corpus), "--decisions", "-o", str(out_csv))
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text())))
    by_member = {r["member"]: r for r in rows}
    three = by_member[os.path.join(str(corpus), "copies/deep/three.txt")]
    assert three["decision"] == "keep"
    assert three["reference"].endswith("copies/deep/three.txt")


def test_mail_messages_are_refused(tmp_path, env, capfdbinary) -> None:
    root = tmp_path / "mail"
    for sub in ("cur", "new", "tmp"):
        (root / "box" / sub).mkdir(parents=True)
    body = "From: a@example.org\nSubject: hi\n\n" + TEXT
    (root / "box/cur/1:2,S").write_text(body)
    (root / "box/cur/2:2,S").write_text(body)
    code, out, err = run(capfdbinary, "dedupe", str(root), "--action", "trash", "-y")
    assert code == 0, err
    assert "refuse  box/cur/" in out and "mail message" in out
    assert len(tree(root)) == 2


def test_killed_dedupe_is_rolled_back_at_the_next_start(corpus, env, capfdbinary) -> None:
    for n in range(6):
        (corpus / f"more/c{n}.txt").parent.mkdir(exist_ok=True)
        (corpus / f"more/c{n}.txt").write_text(TEXT)
    before = tree(corpus)
    child = subprocess.Popen(
        [sys.executable, "-m", "ditto_tui", "dedupe", str(corpus), "--action", "trash", "--yes"],
        env=dict(os.environ, **{PAUSE_ENV: "4"}), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    with ReviewStore.for_root(corpus) as store:
        jdir = store.journal_dir
    deadline = time.monotonic() + 90
    done = 0
    while time.monotonic() < deadline and done < 4:
        assert child.poll() is None
        found = journals(jdir)
        done = sum(1 for o in found[0].outcomes.values() if o["status"] == "done") if found else 0
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert len(tree(corpus)) == len(before) - 4
    code, out, err = run(capfdbinary, "undo", str(corpus), "--list")
    assert code == 0
    assert "an interrupted trash was rolled back: 4 file(s) put back" in err
    assert "rolled-back" in out
    assert tree(corpus) == before


def test_select_leaves_out_families_marked_fine(corpus, env) -> None:
    from ditto_tui.core import make_pipeline
    from ditto_tui.core.review.decisions import family_key
    from ditto_tui.corpus.dedupe import select

    with CorpusSession(corpus, make_pipeline("ditto")) as session:
        session.scan()
        docs, fps = session.documents, session.fingerprints
        with ReviewStore.for_root(corpus) as store:
            first = select(docs, fps, 3, ["oldest"], store=store)
            assert first.family_count == 1 and int(first.marked.sum()) == 3
            assert first.reference_of(first.ids.index("copies/two.txt")) == "copies/one.txt"
            members = [i for x, i in enumerate(first.ids) if first.labels[x] == 0]
            idents = [identity_of(docs[i], int(fps[i])) for i in members]
            store.mark_family("ignored", family_key(idents), len(members))
            again = select(docs, fps, 3, ["oldest"], store=store)
            assert again.family_count == 0 and not again.marked.any()
            assert again.targets(docs) == []


def _drifting_texts() -> list[str]:
    """Four versions of a text, each a few words further from the first: at k=5 they form
    one chain d0-d1-d2-d3 but the star around d1 leaves d3 out (found by search, fixed seed)."""
    import random

    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon"]
    rng = random.Random(1)
    base = [rng.choice(words) + str(rng.randrange(50)) for _ in range(60)]
    texts: list[str] = []
    for _trial in range(4):
        texts, cur = [], list(base)
        for _step in range(4):
            texts.append(" ".join(cur))
            for _ in range(rng.randrange(1, 4)):
                cur[rng.randrange(len(cur))] = rng.choice(words) + str(rng.randrange(50))
    return texts


def test_star_mode_groups_as_the_explorer_does(tmp_path, env, capfdbinary) -> None:
    from ditto_tui.core.fingerprint.pipeline import make_pipeline
    from ditto_tui.core.index.near_index import NearIndex

    root = tmp_path / "drift"
    root.mkdir()
    texts = _drifting_texts()
    for n, text in enumerate(texts):
        (root / f"d{n}.txt").write_text(text)
    index = NearIndex(8)
    pipeline = make_pipeline()
    for n, text in enumerate(texts):
        index.add(f"d{n}.txt", int(pipeline.fingerprint(text.encode())))
    star = [f.members for f in index.families(5, mode="star") if f.size > 1]
    chain = [f.members for f in index.families(5, mode="chain") if f.size > 1]
    assert chain == [("d0.txt", "d1.txt", "d2.txt", "d3.txt")] and star != chain

    fps = {f"d{n}.txt": int(pipeline.fingerprint(t.encode())) for n, t in enumerate(texts)}

    def listed(*extra: str) -> list[str]:
        """The kept and listed names of the dry run, each listed one checked to be within
        k=5 of the kept copy above it (its bits printed right)."""
        code, out, err = run(capfdbinary, "dedupe", str(root), "-k", "5", "--keep",
                             "first-name", "-n", *extra)
        assert code == 0, err
        names, keeper = [], ""
        for line in out.splitlines():
            if not line.startswith(("keep", "list")):
                continue
            name = line.split()[1]
            names.append(name)
            if line.startswith("keep"):
                keeper = name
                continue
            bits = int(line.split("(")[1].split()[0])
            assert bits == (fps[name] ^ fps[keeper]).bit_count() <= 5
        return names

    chained = listed()  # the chain family is wider than k: it splits, nobody is far
    assert chained[0] == "d0.txt" and set(chained) <= set(chain[0])
    starred = listed("--mode", "star")
    assert set(starred) <= set(star[0]) and "d3.txt" not in starred  # d3 left alone


@pytest.mark.parametrize(("platform", "name"), [("darwin", "macOS"), ("win32", "Windows")])
def test_trash_is_refused_in_one_line_on_macos_and_windows(
    corpus, env, tmp_path, monkeypatch, capfdbinary, platform, name
) -> None:
    """No trash folder given: one line on stderr naming the platform and --action move,
    before anything is scanned or shown; a dry run says so too. With --trash-dir (or
    DITTO_TUI_TRASH_DIR) the trash is ditto-tui's own folder and works, with undo."""
    import platformdirs  # picks its backend when first imported: on the real platform

    assert platformdirs.user_cache_dir("ditto-tui").startswith(str(env["cache"]))
    monkeypatch.delenv("DITTO_TUI_TRASH_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(sys, "platform", platform)
    before = tree(corpus)
    for extra in (["--yes"], ["--dry-run"], []):
        code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest",
                             *extra, "--action", "trash")
        assert code == 1 and out == ""
        assert err.endswith("\n") and err.count("\n") == 1, err  # one line, no traceback
        assert err.startswith(f"ditto-tui: the system trash on {name} ")
        assert "--action move DIR" in err
    assert tree(corpus) == before and not (tmp_path / "data").exists()
    assert not env["cache"].exists()  # not even scanned
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "--yes",
                         "--trash-dir", str(env["trash"]), "--action", "trash")
    assert code == 0, err
    assert "3 file(s) done" in out and len(list((env["trash"] / "info").iterdir())) == 3
    code, out, err = run(capfdbinary, "undo", str(corpus))
    assert code == 0 and "3 file(s) put back" in out, err
    assert tree(corpus) == before
    monkeypatch.setenv("DITTO_TUI_TRASH_DIR", str(tmp_path / "env-trash"))
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "-n",
                         "--action", "trash")
    assert code == 0 and "3 file(s) to trash" in out, err
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "-n",
                         "--action", "move", str(tmp_path / "q"))
    assert code == 0 and "3 file(s) to move" in out, err
    assert tree(corpus) == before and not (tmp_path / "data").exists()


def test_a_quarantine_folder_at_the_root_is_refused_in_one_line(corpus, env, capfdbinary) -> None:
    before = tree(corpus)
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--yes", "--action", "move",
                         str(corpus))
    assert code == 1 and err == "ditto-tui: the quarantine folder cannot be the corpus folder itself\n"
    assert tree(corpus) == before


# -- damaged journals (issue 31, file actions 5) ----------------------------------------


def _trash_six(corpus: Path, capfdbinary) -> tuple[dict[str, str], Path]:
    for n in range(6):
        (corpus / f"more/c{n}.txt").parent.mkdir(exist_ok=True)
        (corpus / f"more/c{n}.txt").write_text(TEXT)
    before = tree(corpus)
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest",
                         "--action", "trash", "--yes")
    assert code == 0 and "9 file(s) done" in out, err
    with ReviewStore.for_root(corpus) as store:
        [journal] = journals(store.journal_dir)
    return before, journal.path


def _rewrite(path: Path, change) -> None:
    lines = path.read_bytes().split(b"\n")
    change(lines)
    path.write_bytes(b"\n".join(lines))


def test_a_journal_with_a_damaged_line_is_undone_as_far_as_it_goes_and_says_so(
    corpus, env, capfdbinary
) -> None:
    before, path = _trash_six(corpus, capfdbinary)

    def damage(lines: list[bytes]) -> None:  # the third operation's line is garbled
        lines[3] = b'{"op": {"n": 2, "id": "more/c' + b"\xff" * 10

    _rewrite(path, damage)
    code, out, err = run(capfdbinary, "undo", str(corpus))
    assert code == 1 and "Traceback" not in err
    assert "8 file(s) put back" in out and "damaged" in out
    assert f"journal {path.name} is damaged (line 4 does not parse)" in err
    assert "1 file(s) unaccounted for" in err
    assert len(tree(corpus)) == len(before) - 1  # the one the journal lost stays in the trash
    code, out, err = run(capfdbinary, "undo", str(corpus), "--list")
    assert "damaged, undo-incomplete" in out and path.name in err and code == 1


def test_lost_outcome_lines_are_decided_from_the_disk(corpus, env, capfdbinary) -> None:
    before, path = _trash_six(corpus, capfdbinary)

    def damage(lines: list[bytes]) -> None:  # two "done" records garbled
        n_ops = sum(1 for ln in lines if ln.startswith(b'{"op"'))
        lines[1 + n_ops] = b"\x00garbage"
        lines[2 + n_ops] = b'{"n": 1, "status": '

    _rewrite(path, damage)
    code, out, err = run(capfdbinary, "undo", str(corpus))
    assert "9 file(s) put back" in out, (out, err)
    assert tree(corpus) == before
    assert code == 0 or "damaged" in err


@pytest.mark.parametrize("field", ["n", "created", "root", "size"])
def test_an_ill_typed_field_never_gives_a_traceback(corpus, env, capfdbinary, field) -> None:
    import json as _json

    before, path = _trash_six(corpus, capfdbinary)
    lines = path.read_bytes().split(b"\n")
    if field in ("created", "root"):
        entry = _json.loads(lines[0])
        entry["header"][field] = ["not", "a", "scalar"]
        lines[0] = _json.dumps(entry).encode()
    else:
        entry = _json.loads(lines[1])
        entry["op"][field] = "twelve"
        lines[1] = _json.dumps(entry).encode()
    path.write_bytes(b"\n".join(lines))
    for argv in (["undo", str(corpus), "--list"], ["undo", str(corpus)],
                 ["dedupe", str(corpus), "--action", "trash", "-n"]):
        code, out, err = run(capfdbinary, *argv)  # raising here would fail the test
        assert "Traceback" not in err and code in (0, 1), (argv, err)
        assert path.name in err, (argv, err)  # the damaged journal is named
    if field == "root":  # nothing can be put back: the journal no longer says where
        assert len(tree(corpus)) == len(before) - 9
    else:
        assert len(tree(corpus)) >= len(before) - 1


def test_a_journal_whose_header_is_lost_is_listed_not_invisible(corpus, env, capfdbinary) -> None:
    _, path = _trash_six(corpus, capfdbinary)
    _rewrite(path, lambda lines: lines.__setitem__(0, b"{\"header\": "))
    code, out, err = run(capfdbinary, "undo", str(corpus))
    assert code == 1 and "Traceback" not in err
    assert f"journal {path.name} is damaged" in err and "no longer says what was done" in err
    assert "nothing to undo" in err
    code, out, err = run(capfdbinary, "undo", str(corpus), "--list")
    assert path.stem in out and "damaged" in out


def test_a_file_rewritten_in_place_with_the_same_size_and_mtime_is_not_acted_on(
    corpus, env, capfdbinary
) -> None:
    """rsync --inplace -t: same size, mtime and inode, other bytes. The cached fingerprint
    is stale; the plan re-fingerprints the bytes it hashes and refuses the file, and the
    stale cache row is dropped so the next scan sees what the file is now."""
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "-n",
                         "--action", "trash")
    assert code == 0 and "trash   copies/deep/three.txt" in out, err
    path = corpus / "copies/deep/three.txt"
    st = path.stat()
    other = ("Minutes of the garden committee: compost and tomatoes. " * 20)[: st.st_size]
    with open(path, "r+b") as fh:  # in place: the inode stays
        fh.write(other.encode())
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_ino == st.st_ino
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest",
                         "--action", "trash", "--yes")
    assert path.read_text() == other  # not trashed
    assert "refuse  copies/deep/three.txt  (0 bits, 100.00%; its content is not what was fingerprinted" in out
    assert "2 file(s) done" in out, (out, err)
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "-n",
                         "--action", "trash")
    # read again: now a near-duplicate of the garden minutes, no longer of the others
    assert "keep    copies/deep/three.txt\ntrash   other/unrelated.txt  (0 bits" in out, out


# -- saved plans (issue 31, file actions 3) --------------------------------------------


def test_apply_acts_on_exactly_the_saved_plan(corpus, env, tmp_path, capfdbinary) -> None:
    import json as _json

    plan_file = tmp_path / "plan.json"
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "--dry-run",
                         "--plan", str(plan_file), "--action", "trash")
    assert code == 0 and "plan saved to" in out, err
    doc = _json.loads(plan_file.read_text())
    assert doc["ditto_tui_plan"] == 1 and doc["root"] == os.path.realpath(corpus)
    assert doc["action"] == "trash" and doc["k"] == 3
    steps = {s["id"]: s for s in doc["steps"]}
    assert set(steps) == {"ref/orig.txt", "copies/two.txt", "copies/deep/three.txt"}
    two = steps["copies/two.txt"]
    assert two["reference"] == "copies/one.txt" and two["distance"] is not None
    assert len(two["sha256"]) == 64 and isinstance(two["fp"], int) and two["inode"] > 0
    assert os.stat(plan_file).st_mode & 0o077 == 0
    # after the review: a new copy appears (a fresh plan would take it), one file changes
    (corpus / "copies/four.txt").write_text(TEXT)
    with open(corpus / "copies/two.txt", "a") as fh:
        fh.write("?")
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--apply", str(plan_file), "--yes")
    assert code == 1, (out, err)
    assert "refuse  copies/two.txt  (changed since it was fingerprinted" in out
    assert "2 file(s) done" in out
    left = set(tree(corpus))
    assert left == {"copies/one.txt", "copies/two.txt", "copies/four.txt", "other/unrelated.txt"}
    code, out, err = run(capfdbinary, "undo", str(corpus))
    assert code == 0 and "2 file(s) put back" in out


def test_a_plan_is_never_applied_to_another_root(corpus, env, tmp_path, capfdbinary) -> None:
    import shutil

    plan_file = tmp_path / "plan.json"
    code, _, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "-n",
                       "--plan", str(plan_file), "--action", "trash")
    assert code == 0, err
    twin = tmp_path / "twin"
    shutil.copytree(corpus, twin)
    before = tree(twin)
    code, out, err = run(capfdbinary, "dedupe", str(twin), "--apply", str(plan_file), "--yes")
    assert code == 1 and f"this plan was made for {os.path.realpath(corpus)}" in err
    assert tree(twin) == before
    plan_file.write_text('{"ditto_tui_plan": 1, "root": 5}')
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--apply", str(plan_file), "--yes")
    assert code == 1 and "damaged plan" in err and "Traceback" not in err
    code, _, err = run(capfdbinary, "dedupe", str(corpus), "--plan", str(plan_file), "--yes")
    assert code == 2


def test_link_says_that_hard_links_share_content(corpus, env, capfdbinary) -> None:
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "-n",
                         "--action", "link")
    assert code == 0, err
    assert "note: Hard links share one content: after linking, editing either copy" in out
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest",
                         "--action", "link")  # no terminal: not acted on, the reason said
    assert code == 1 and "not acting without confirmation" in err


def test_the_readme_says_that_hard_links_share_content() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "**Hard links share content.**" in readme and "changes both" in readme


def test_the_removal_list_gives_each_files_bits_to_its_keeper_farthest_first(
    tmp_path, env, capfdbinary
) -> None:
    """``--action list``: every listed file is within k of the copy it keeps, and the CSV
    and JSON lines say how near (bits, similarity), farthest first."""
    import json
    import random

    from ditto_tui.core.fingerprint.pipeline import make_pipeline

    root = tmp_path / "edits"
    root.mkdir()
    rng = random.Random(3)
    words = TEXT.split()
    for n in range(12):  # one text and eleven copies with a few words changed
        changed = list(words)
        for _ in range(n % 4):
            changed[rng.randrange(len(changed))] = f"edit{rng.randrange(99)}"
        (root / f"copy{n:02d}.txt").write_text(" ".join(changed))
    prefix = tmp_path / "removal"
    code, out, err = run(capfdbinary, "dedupe", str(root), "-k", "4", "--keep", "first-name",
                         "--action", "list", str(prefix), "--yes")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO((tmp_path / "removal.csv").read_text())))
    lines = [json.loads(line) for line in (tmp_path / "removal.jsonl").read_text().splitlines()]
    assert rows and [r["id"] for r in rows] == [j["id"] for j in lines]
    pipeline = make_pipeline()
    fps = {p.name: int(pipeline.fingerprint(p.read_bytes())) for p in root.iterdir()}
    bits = [int(r["distance"]) for r in rows]
    assert bits == sorted(bits, reverse=True) and bits[0] > 0  # farthest first
    for row, line in zip(rows, lines, strict=True):
        assert int(row["distance"]) == line["distance"] == (
            fps[row["id"]] ^ fps[row["reference"]]).bit_count() <= 4
        assert row["similarity"] == line["similarity"] == f"{(1 - line['distance'] / 64) * 100:.2f}%"


def test_apply_of_an_unchanged_plan_acts_on_near_duplicates_too(corpus, env, tmp_path, capfdbinary) -> None:
    """A saved plan re-checked against an unchanged folder acts on every step, the copy
    that is near (not byte-identical to) its keeper included (the saved fingerprints
    are compared as fingerprints, its distance as a distance)."""
    import json as _json

    (corpus / "copies/near.txt").write_text(TEXT.replace("now", "soon", 1))  # 2 bits away
    os.utime(corpus / "copies/near.txt", ns=(1_700_000_000_000_000_000,) * 2)
    plan_file = tmp_path / "plan.json"
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--keep", "oldest", "--dry-run",
                         "--plan", str(plan_file), "--action", "trash")
    assert code == 0, err
    steps = {s["id"]: s for s in _json.loads(plan_file.read_text())["steps"]}
    near = steps["copies/near.txt"]
    assert near["fp"] != near["ref_fp"] and near["distance"] == 2  # near, not equal
    code, out, err = run(capfdbinary, "dedupe", str(corpus), "--apply", str(plan_file), "--yes")
    assert code == 0, (out, err)
    assert "refuse " not in out and "4 file(s) done, 0 not done" in out
    assert set(tree(corpus)) == {"copies/one.txt", "other/unrelated.txt"}
