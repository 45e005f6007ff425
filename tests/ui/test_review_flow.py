"""Reviewing in the explorer, on real files: decisions that last, keep rules, actions, undo."""

from __future__ import annotations

import hashlib
import os
import random
import sys
from pathlib import Path

import pytest

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.ui.app import DittoApp
from ditto_tui.ui.screens.actions import ActionsScreen, ConfirmScreen, UndoScreen
from ditto_tui.ui.screens.keep_rules import KeepRulesScreen
from ditto_tui.ui.widgets.member_table import MemberTable
from ditto_tui.ui.widgets.status_bar import StatusBar

from .conftest import settle, wait_for

WORDS = ["river", "stone", "lamp", "garden", "window", "harbour", "copper", "meadow", "lantern", "orchard", "violet", "thunder", "pepper", "marble", "candle", "silver", "forest", "ember", "willow", "anchor"]


def text(seed: int, n: int = 220) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) + str(rng.randrange(40)) for _ in range(n)) + "\n"


def make_corpus(root: Path, families: int = 3, copies: int = 3) -> None:
    """``families`` groups of ``copies`` near-identical files (one word changed per copy)
    in a/, b/ and c/, plus one unrelated file; distinct mtimes (newest in c/)."""
    stamp = 1_750_000_000
    for f in range(families):
        base = text(f)
        for c in range(copies):
            folder = root / "abc"[c]
            folder.mkdir(parents=True, exist_ok=True)
            body = base if c == 0 else base.replace(base.split()[c], f"edit{c}", 1)
            path = folder / f"doc{f}.txt"
            path.write_text(body)
            os.utime(path, (stamp + f * 100 + c, stamp + f * 100 + c))
    (root / "lonely.txt").write_text(text(999))


def tree_digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def places(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    trash = tmp_path / "trash"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.setenv("DITTO_TUI_TRASH_DIR", str(trash))
    root = tmp_path / "corpus"
    make_corpus(root)
    return root, cache, trash


def open_app(root: Path, cache: Path, sessions: list, **options) -> DittoApp:
    session = CorpusSession(root, make_pipeline(), use_cache=False, jobs=1)
    sessions.append(session)
    options.setdefault("watch", False)
    return DittoApp(session, root="corpus", review=True, review_dir=cache, **options)


@pytest.fixture
def sessions():
    opened: list[CorpusSession] = []
    yield opened
    for s in opened:
        s.close()


def decision_cell(app: DittoApp, doc_id: str) -> str:
    table = app.main_screen.query_one(MemberTable)
    member = next(m for m in table.members if m.id == doc_id)
    return table.cell(member, "decision")


async def test_decisions_survive_restart_and_rename(places, sessions):
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert "0 of 3 reviewed" in str(screen.query_one(StatusBar).render())
        first = screen.selected_member()
        assert first is not None
        await pilot.press("k")
        await wait_for(pilot, lambda: screen.review.decision(first) == ("keep", False))
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.view is not None and screen.view.reviewed == 1)
        await settle(pilot)
        assert decision_cell(app, first) == "keep"
        assert "1 of 3 reviewed" in str(screen.query_one(StatusBar).render())
        await pilot.press("U")  # unreviewed only: the reviewed family is hidden
        await wait_for(pilot, lambda: screen.view is not None and len(screen.view) == 2)
    # quit; rename the decided file on disk; reopen
    old = root / first
    new = old.with_name("renamed-" + old.name)
    old.rename(new)
    renamed = str(new.relative_to(root))
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert screen.unreviewed_only  # the session came back
        await wait_for(pilot, lambda: screen.review.decision(renamed) == ("keep", False))
        assert first not in screen.review.decisions
        # the family whose member was renamed is still reviewed (its key is content-based)
        assert screen.view is not None and screen.view.reviewed == 1
        await pilot.press("U")
        await settle(pilot)
        screen.table.move_cursor(row=next(
            r for r, f in enumerate(screen.view.families) if renamed in f.members))
        await settle(pilot)
        assert decision_cell(app, renamed) == "keep"


async def test_edited_file_shows_a_stale_decision(places, sessions):
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        doc = screen.selected_member()
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.review.decision(doc) == ("duplicate", False))
    path = root / doc
    path.write_text(path.read_text() + "one more line\n")
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await wait_for(pilot, lambda: screen.review.decision(doc) == ("duplicate", True))
        await settle(pilot)
        row = next(r for r, f in enumerate(screen.view.families) if doc in f.members)
        screen.table.move_cursor(row=row)
        await settle(pilot)
        assert decision_cell(app, doc) == "stale duplicate"
        targets, _far, stale, _wide = app.explorer.actions.targets(screen.k, screen.mode)
        assert doc not in [t.id for t in targets] and stale == 1  # never applied


async def test_rule_preview_then_apply_then_trash_and_undo(places, sessions):
    root, cache, trash = places
    before = tree_digest(root)
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, KeepRulesScreen))
        rules = app.screen
        assert rules.query_one("#scope").value == "family"  # a family is selected
        rules.query_one("#scope").value = "all"
        rules.query_one("#rules").value = "newest"
        await pilot.pause()
        await pilot.click("#keep-preview")
        await wait_for(pilot, lambda: rules.preview is not None)
        assert (rules.preview.duplicates, rules.preview.keeps, rules.preview.families) == (6, 3, 3)
        assert all(v == "keep" for k, v in rules.preview.marks.items() if k.startswith("c/"))
        assert not screen.review.decisions  # a preview records nothing
        await pilot.click("#keep-apply")
        await wait_for(pilot, lambda: len(screen.review.decisions) == 9)
        # a file changed between marking and acting is refused with its reason
        changed = root / "a" / "doc1.txt"
        changed.write_text(changed.read_text() + "late edit\n")
        before[str(changed.relative_to(root))] = hashlib.sha256(changed.read_bytes()).hexdigest()
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, ActionsScreen))
        act = app.screen
        await wait_for(pilot, lambda: act.targets is not None)
        await pilot.click("#dry-run")
        await wait_for(pilot, lambda: act.plan is not None)
        assert len(act.plan.steps) == 5
        assert [o.id for o in act.plan.refused] == ["a/doc1.txt"]
        assert tree_digest(root) == before  # the dry run touched nothing
        summary = str(act.query_one("#action-summary").render())
        assert "5 file(s) to trash" in summary and "1 refused" in summary
        await pilot.click("#run")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: act.report is not None, timeout=20)
        assert act.report.count("done") == 5
        refused = [o for o in act.report.outcomes if o.status == "refused"]
        assert refused and "changed" in refused[0].reason or "size" in refused[0].reason
        assert not (root / "a" / "doc0.txt").exists()
        assert len(list((trash / "files").iterdir())) == 5
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UndoScreen))
        undo = app.screen
        await wait_for(pilot, lambda: undo.journal is not None)
        await pilot.press("y")
        await wait_for(pilot, lambda: undo.report is not None, timeout=20)
        assert undo.report.count("undone") == 5 and not undo.report.failures
        assert "Restored 5 file(s)" in str(undo.query_one("#undo-text").render())
    assert tree_digest(root) == before


async def test_ignore_pair_splits_the_family_and_f4_shows_it_again(places, sessions):
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        family = screen.table.selected
        assert family is not None and family.size == 3
        other = next(m for m in family.members if m != family.centre)
        row = next(r for r, m in enumerate(screen.member_table.members) if m.id == other)
        screen.member_table.move_cursor(row=row)
        await settle(pilot)
        await pilot.press("I")  # the highlighted member and the representative
        await wait_for(pilot, lambda: len(screen.review.pairs) == 1)
        await settle(pilot)
        # still one chain: both are near the third member
        assert any(set(family.members) == set(f.members) for f in screen.view.families)
        third = next(m for m in family.members if m not in (other, family.centre))
        table = screen.member_table
        for doc in (family.centre, third):  # mark the other link with space, then I
            table.move_cursor(row=next(r for r, m in enumerate(table.members) if m.id == doc))
            await pilot.pause()
            await pilot.press("space")
        assert sorted(screen.marked) == sorted([family.centre, third])
        await pilot.press("I")
        await wait_for(pilot, lambda: len(screen.review.pairs) == 2)
        await settle(pilot)
        assert ((family.centre,) in [f.members for f in screen.view.families]
                or not any(family.centre in f.members for f in screen.view.families))
        assert any(set(f.members) == {other, third} for f in screen.view.families)
        await pilot.press("f4")
        await settle(pilot)
        assert any({other, family.centre} <= set(f.members) for f in screen.view.families)
        await pilot.press("f4")
        await settle(pilot)
        # "this family is fine": hidden and left out of the progress
        count = len(screen.view)
        await pilot.press("i")
        await wait_for(pilot, lambda: len(screen.review.ignored) == 1)
        await settle(pilot)
        assert len(screen.view) == count - 1


async def test_fresh_sets_the_review_aside_and_keeps_the_journals(places, sessions):
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        doc = screen.selected_member()
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.review.decision(doc) == ("duplicate", False))
        await pilot.press("s")  # sort: diameter (saved in the session)
        await settle(pilot)
        journals = app.explorer.journal_dir
    journals.mkdir(parents=True, exist_ok=True)
    (journals / "keep-me.txt").write_text("a journal stays")
    app = open_app(root, cache, sessions, fresh=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert not screen.review.decisions and screen.sort_key == "size"
        assert any("fresh" in n for n in app.notices)
    assert (journals / "keep-me.txt").exists()
    assert list(cache.rglob("review-*.before-fresh-*"))
    from ditto_tui.cli.main import build_parser

    assert build_parser().parse_args(["explore", str(root), "--fresh"]).fresh


async def test_an_interrupted_action_is_rolled_back_at_start_with_a_notice(places, sessions):
    from dataclasses import asdict

    from ditto_tui.corpus.actions.plan import Target
    from ditto_tui.corpus.actions.planning import plan_action
    from ditto_tui.corpus.journal import Journal
    from ditto_tui.corpus.review import review_path_for

    root, cache, trash = places
    before = tree_digest(root)
    st = (root / "a" / "doc0.txt").stat()
    plan = plan_action(root, "trash", [Target("a/doc0.txt", st.st_size, st.st_mtime_ns, st.st_ino,
                                              "text", "b/doc0.txt")])
    from ditto_tui.corpus.journal import journal_folder

    journal_dir = journal_folder(review_path_for(root, cache))
    journal = Journal.create(journal_dir, {"action": "trash", "root": plan.root},
                             [asdict(s) for s in plan.steps])
    step = plan.steps[0]
    os.makedirs(os.path.dirname(step.dest), exist_ok=True)
    os.makedirs(os.path.dirname(step.info), exist_ok=True)
    Path(step.info).write_text("[Trash Info]\n")
    os.rename(root / "a" / "doc0.txt", step.dest)  # a crash right after the move
    journal.close()
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: any("rolled back" in n for n in app.notices))
        assert any("1 file(s) put back" in n for n in app.notices)
    assert tree_digest(root) == before


async def test_actions_include_duplicates_in_families_the_filters_hide(places, sessions):
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("tab", "down")
        doc = screen.selected_member()
        rows = [m.id for m in screen.member_table.members]
        await pilot.press("d", "r")
        await wait_for(pilot, lambda: screen.review.decision(doc) == ("duplicate", False))
        # deciding moves on to the next member, as in a mail reader
        assert screen.selected_member() == rows[rows.index(doc) + 1]
        await pilot.press("U")
        await wait_for(pilot, lambda: screen.view is not None and len(screen.view) == 2)
        assert all(doc not in f.members for f in screen.view.families)
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, ActionsScreen))
        act = app.screen
        await wait_for(pilot, lambda: act.targets is not None)
        assert [t.id for t in act.targets] == [doc]


async def test_a_saved_k_comes_back_unless_the_command_line_gives_one(places, sessions):
    """Reopening restores the saved k and grouping; an explicit -k/--mode wins over them."""
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert app.main_screen.k == 3
        await pilot.press("right_square_bracket", "right_square_bracket", "g")
        await wait_for(pilot, lambda: app.main_screen.k == 5 and app.main_screen.mode == "star")
    app = open_app(root, cache, sessions)
    assert (app.main_screen.k, app.main_screen.mode) == (5, "star")
    app = open_app(root, cache, sessions, k=2, mode="chain")
    assert (app.main_screen.k, app.main_screen.mode) == (2, "chain")
    from ditto_tui.cli.main import build_parser

    args = build_parser().parse_args(["explore", str(root)])
    assert args.k is None and args.mode is None  # "not given", so the saved view decides


async def test_a_saved_filter_comes_back_in_the_filter_box(places, sessions):
    """Reopening with a filter typed last time: the app starts with it, in its box."""
    from textual.widgets import Input

    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "d", "o", "c", "1")
        await wait_for(pilot, lambda: app.main_screen.pattern == "doc1")
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert screen.pattern == "doc1"
        assert screen.query_one("#filter", Input).value == "doc1"
        assert [sorted(f.members) for f in screen.table.rows] == [
            ["a/doc1.txt", "b/doc1.txt", "c/doc1.txt"]
        ]


@pytest.mark.parametrize(("platform", "name"), [("darwin", "macOS"), ("win32", "Windows")])
async def test_the_act_dialog_refuses_the_system_trash_on_macos_and_windows(
    places, sessions, monkeypatch, platform, name
):
    """No trash folder set: the dialog opens on the quarantine folder, its trash choice
    says it is not available, and choosing it shows the CLI's one-line reason instead of
    a dry run. With DITTO_TUI_TRASH_DIR the trash is offered as on Linux."""
    from textual.widgets import Button, Input, Select

    root, cache, trash = places
    monkeypatch.delenv("DITTO_TUI_TRASH_DIR")
    before = tree_digest(root)
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("tab")
        kept = screen.selected_member()
        await pilot.press("k")  # then the next member
        await wait_for(pilot, lambda: screen.review.decision(kept) == ("keep", False))
        doc = screen.selected_member()
        assert doc != kept
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.review.decision(doc) == ("duplicate", False))
        real = sys.platform
        monkeypatch.setattr(sys, "platform", platform)  # only while the dialog is open
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, ActionsScreen))
        act = app.screen
        await wait_for(pilot, lambda: act.targets is not None)
        choice = act.query_one("#action", Select)
        assert act.action == "move" and not act.query_one("#destination", Input).disabled
        assert (f"Move to the trash (not on {name})", "trash") in choice._options
        summary = str(act.query_one("#action-summary").render())
        assert "1 document(s) decided duplicate" in summary
        choice.value = "trash"
        await settle(pilot)
        reason = str(act.query_one("#action-summary").render())
        assert f"the system trash on {name} " in reason and "--action move DIR" in reason
        assert act.query_one("#destination", Input).disabled
        await pilot.click("#dry-run")
        await settle(pilot)
        assert act.plan is None and act.query_one("#run", Button).disabled
        assert any(n.message == act.no_trash for n in app._notifications)
        choice.value = "move"  # another choice: the count comes back
        await settle(pilot)
        assert "1 document(s) decided duplicate" in str(act.query_one("#action-summary").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        # a trash folder of ditto-tui's own works everywhere
        monkeypatch.setenv("DITTO_TUI_TRASH_DIR", str(trash))
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, ActionsScreen) and app.screen is not act)
        act = app.screen
        await wait_for(pilot, lambda: act.targets is not None)
        assert act.action == "trash" and act.no_trash is None
        await pilot.click("#dry-run")
        await wait_for(pilot, lambda: act.plan is not None)
        assert [s.id for s in act.plan.steps] == [doc], act.plan.refused
        assert all(s.dest.startswith(str(trash)) for s in act.plan.steps)
        monkeypatch.setattr(sys, "platform", real)
    assert tree_digest(root) == before


async def test_link_says_that_hard_links_share_content_in_the_dry_run_and_the_question(
    tmp_path, monkeypatch, sessions
):
    from textual.widgets import Select

    from ditto_tui.corpus.actions.messages import LINK_WARNING

    cache = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    root = tmp_path / "corpus"
    for n, folder in enumerate("ab"):
        (root / folder).mkdir(parents=True)
        (root / folder / "doc.txt").write_text(text(7))
        os.utime(root / folder / "doc.txt", (1_750_000_000 + n, 1_750_000_000 + n))
    (root / "lonely.txt").write_text(text(999))
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("tab", "down")
        doc = screen.selected_member()
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.review.decision(doc) == ("duplicate", False))
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, ActionsScreen))
        act = app.screen
        await wait_for(pilot, lambda: act.targets is not None)
        act.query_one("#action", Select).value = "link"
        await pilot.pause()
        await pilot.click("#dry-run")
        await wait_for(pilot, lambda: act.plan is not None)
        assert len(act.plan.steps) == 1, act.plan.refused
        assert LINK_WARNING in act.summary_text
        await pilot.click("#run")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert LINK_WARNING in app.screen.question
        await pilot.press("y")
        await wait_for(pilot, lambda: act.report is not None, timeout=20)
        assert act.report.count("done") == 1
    assert os.stat(root / "a" / "doc.txt").st_ino == os.stat(root / "b" / "doc.txt").st_ino


async def test_keep_rules_open_as_they_were_left(places, sessions) -> None:
    """R opens with the rules, scope and folders it was closed with (applied or not)."""
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, KeepRulesScreen))
        rules = app.screen
        rules.query_one("#scope").value = "all"
        rules.query_one("#rules").value = "preferred, newest"
        rules.query_one("#folders").value = "c, b"
        await pilot.pause()
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, KeepRulesScreen))
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, KeepRulesScreen))
        again = app.screen
        assert again is not rules
        assert again.query_one("#scope").value == "all"
        assert again.query_one("#rules").value == "preferred, newest"
        assert again.query_one("#folders").value == "c, b"


async def test_reviewed_and_ignored_families_are_marked_in_the_list(places, sessions) -> None:
    """✓ before a reviewed family's member count; ⊘ before an ignored one's, when F4
    shows ignored families again."""
    from ditto_tui.ui.widgets.family_table import FamilyTable

    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table = app.main_screen.query_one(FamilyTable)
        assert not any(table.cell_text(r, "size")[:2] in ("✓ ", "⊘ ") for r in range(len(table.families)))
        first = table.families[0].centre
        await pilot.press("r")
        await wait_for(pilot, lambda: table.cell_text(0, "size").startswith("✓ "))
        assert table.families[0].centre == first
        table.move_cursor(row=1)
        await settle(pilot)
        second = table.families[1].centre
        await pilot.press("i")
        await wait_for(pilot, lambda: all(f.centre != second for f in table.families))
        await pilot.press("f4")
        await wait_for(pilot, lambda: any(f.centre == second for f in table.families))
        row = next(r for r, f in enumerate(table.families) if f.centre == second)
        await wait_for(pilot, lambda: table.cell_text(row, "size").startswith("⊘ "))
        assert screen.review is not None


async def test_D_clears_the_decisions_of_the_selected_family_only(places, sessions) -> None:
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        families = screen.view.families
        first, second = families[0].members, families[1].members
        app.explorer.set_marks({first[0]: "keep", first[1]: "duplicate", second[0]: "keep"})
        await wait_for(pilot, lambda: len(screen.review.decisions) == 3)
        screen.table.move_cursor(row=0)
        await settle(pilot)
        await pilot.press("D")
        await wait_for(pilot, lambda: len(screen.review.decisions) == 1)
        assert dict(screen.review.decisions) == {second[0]: "keep"}


@pytest.mark.parametrize("width", [100, 120])
async def test_member_list_shows_name_and_folder_and_decisions_only_once_there_are_some(
    places, sessions, width
) -> None:
    """From 100 columns the member list shows the file name and its folder apart; the
    Decision column comes with the first decision (current or stale)."""
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(width, 36)) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one(MemberTable)
        keys = [spec.key for spec, _w in table.columns]
        assert "name" in keys and "folder" in keys and "decision" not in keys
        assert table.header_label(next(s for s, _w in table.columns if s.key == "name")) == "Name"
        member = table.members[0].id
        await pilot.press("k")
        await wait_for(pilot, lambda: "decision" in [s.key for s, _w in table.columns])
        row = next(i for i, m in enumerate(table.members) if m.id == member)
        assert table.cell_text(row, "decision") == "keep"
        if width >= 120:
            assert "folder" in [s.key for s, _w in table.columns]


async def test_a_saved_member_filter_comes_back_and_esc_in_the_list_clears_it(places, sessions):
    """The member filter is saved with the session and restored on reopen; esc in the
    member list (not only in the box) clears it."""
    from ditto_tui.ui.widgets.member_filter import MemberFilter

    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("tab", "slash", "c", "/")
        await wait_for(pilot, lambda: app.main_screen.detail.member_pattern == "c/")
        await pilot.press("enter")
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert screen.detail.member_pattern == "c/"
        assert screen.query_one(MemberFilter).value == "c/"
        await wait_for(pilot, lambda: [m.id for m in screen.member_table.members] == ["c/doc0.txt"])
        screen.member_table.focus()
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen.detail.member_pattern == "")
        assert screen.query_one(MemberFilter).value == ""
        assert len(screen.member_table.members) == 3


async def test_tab_never_lands_in_the_family_filter_so_letters_stay_commands(places, sessions):
    """Tab cycles the panes, never into the filter box: g after tabs still switches to
    star grouping (it became the filter text "g"); / opens the box, esc leaves it."""
    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        box = screen.query_one("#filter")
        for _ in range(6):
            await pilot.press("tab")
            assert app.focused is not box
        await pilot.press("g")
        await wait_for(pilot, lambda: screen.mode == "star")
        assert screen.pattern == ""
        screen.table.focus()  # (in the member list / filters the members)
        await pilot.press("slash", "d", "o", "c")
        await wait_for(pilot, lambda: screen.pattern == "doc")
        await pilot.press("escape")
        assert app.focused is screen.table
        await pilot.press("tab", "tab", "tab")
        assert app.focused is not box


async def test_n_is_neighbours_in_the_member_list_even_with_matches(places, sessions):
    """With a family filter some members match (») and . steps through them; n stays
    Neighbours there as everywhere."""
    from ditto_tui.ui.screens.neighbours import NeighboursScreen

    root, cache, _ = places
    app = open_app(root, cache, sessions)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "d", "o", "c", "1", "enter")
        await settle(pilot)
        screen = app.main_screen
        assert screen.detail.matching
        screen.member_table.focus()
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, NeighboursScreen))
