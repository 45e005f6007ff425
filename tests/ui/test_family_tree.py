"""The family tree (t): beside the members, computed in a worker, a node filters the
member list (esc clears), follows k and the corpus, scopes a keep rule, names literally."""

from __future__ import annotations

import threading

from ditto_tui.core.families.tree import TreeNode, family_tree
from ditto_tui.ui.screens.keep_rules import KeepRulesScreen
from ditto_tui.ui.widgets.family_tree import FamilyTreeView
from ditto_tui.ui.widgets.member_table import MemberTable

from .conftest import settle, wait_for

PRESS = {
    "press/tidewell-2.0-draft.txt",
    "press/tidewell-2.0-final.txt",
    "press/tidewell-2.0-fr-notes.txt",
    "press/tidewell-2.0.txt",
}


def tree_of(app) -> FamilyTreeView:
    return app.main_screen.query_one(FamilyTreeView)


def member_ids(app) -> set[str]:
    return {m.id for m in app.main_screen.query_one(MemberTable).members}


def member_title(app) -> str:
    return str(app.main_screen.query_one(MemberTable).border_title)


def line_labels(tree: FamilyTreeView) -> list[str]:
    """The text of every line of the tree as drawn (guides left out)."""
    lines = []
    for line in tree._tree_lines:
        node = line.node
        lines.append(tree.render_label(node, tree.rich_style, tree.rich_style).plain)
    return lines


async def open_press_tree(pilot) -> FamilyTreeView:
    """k=6 (the four press releases are the first family), then t."""
    app = pilot.app
    await settle(pilot)
    await pilot.press("]", "]", "]")
    await settle(pilot)
    assert set(app.main_screen.table.selected.members) == PRESS
    await pilot.press("t")
    tree = tree_of(app)
    await wait_for(pilot, lambda: tree.result is not None)
    await settle(pilot)
    return tree


async def test_t_opens_the_tree_of_the_selected_family_beside_its_members(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        tree = await open_press_tree(pilot)
        screen = app.main_screen
        assert tree.display and tree.has_focus and screen.has_class("-tree")
        # beside the member list, on the same rows
        members = screen.query_one(MemberTable)
        assert tree.region.y == members.region.y and tree.region.right <= members.region.x
        root = tree.result
        assert root is not None and root.k == 6 and set(root.members) == PRESS
        fps = app.live.snapshot.fingerprints
        expected = family_tree(sorted(PRESS), [fps[m] for m in sorted(PRESS)], 6)
        assert _shape(root) == _shape(expected)
        labels = line_labels(tree)
        assert labels[0].startswith("▼ k=6") and ("4 docs" in labels[0] or "  4  " in labels[0])
        # every node of the tree is on a line (it is small: opened whole)
        assert len(labels) == root.node_count
        assert any(label.lstrip("▼ ").startswith("k=4") for label in labels[1:])
        await pilot.press("t")
        await settle(pilot)
        assert not tree.display and not screen.has_class("-tree")
        assert member_ids(app) == PRESS


def _shape(node: TreeNode) -> tuple:
    return (node.k, node.members, node.diameter, node.representative,
            tuple(_shape(c) for c in node.children))


async def test_a_chosen_node_filters_the_members_and_esc_shows_them_all(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        tree = await open_press_tree(pilot)
        sub = tree.result.children[0]  # the three releases that stay together up to k=4
        assert sub.size == 3
        await pilot.press("down", "enter")
        await settle(pilot)
        detail = app.main_screen.detail
        assert detail.tree_control.node is sub and tree.chosen is sub
        assert member_ids(app) == set(sub.members)
        title = member_title(app)
        assert "3/4 · node k=4" in title or "3 of 4 in tree node k=4" in title
        assert line_labels(tree)[1].startswith("▼ ● k=4")
        await pilot.press("escape")
        await settle(pilot)
        assert detail.tree_control.node is None and member_ids(app) == PRESS
        assert "tree node" not in member_title(app)
        assert tree.display  # esc cleared the filter; the tree stays
        # a leaf (one document), then the root: the whole family again
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert len(member_ids(app)) == 1
        await pilot.press("home", "enter")
        await settle(pilot)
        assert detail.tree_control.node is None and member_ids(app) == PRESS
        # a click on a line chooses its node too
        await pilot.click(FamilyTreeView, offset=(12, 2))  # (the border, the root, then it)
        await settle(pilot)
        assert detail.tree_control.node is sub and member_ids(app) == set(sub.members)
        await pilot.press("escape")
        await settle(pilot)
        # esc with nothing chosen closes the tree
        await pilot.press("escape")
        await settle(pilot)
        assert not detail.tree_control.is_open and app.main_screen.focused is app.main_screen.member_table


async def test_the_tree_follows_k_and_keeps_a_node_still_in_it(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        tree = await open_press_tree(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        chosen = tree.chosen.members
        await pilot.press("]")  # k=7: the same family, the same sub-family at k=4
        await wait_for(pilot, lambda: tree.result is not None and tree.result.k == 7)
        await settle(pilot)
        assert tree.chosen is not None and tree.chosen.members == chosen
        assert member_ids(app) == set(chosen)
        assert "Tree · k=7" in str(tree.border_title)
        await pilot.press("[", "[", "[")  # k=4: the family is those three, the node is the root
        await settle(pilot)
        await wait_for(pilot, lambda: tree.result is not None and tree.result.k == 4)
        # down at k=3 the press family has gone: another family, its tree
        await pilot.press("[")
        await settle(pilot)
        await wait_for(pilot, lambda: tree.result is not None and tree.result.k == 3)
        family = app.main_screen.table.selected
        assert set(tree.result.members) == set(family.members)


async def test_star_grouping_closes_the_tree_with_a_notice(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        tree = await open_press_tree(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert not tree.display and not app.main_screen.detail.tree_control.is_open
        assert any("chain families" in n.message for n in app._notifications)
        await pilot.press("t")  # in star grouping: a notice, no tree
        await settle(pilot)
        assert not tree.display
        assert any("press g" in n.message for n in app._notifications)


async def test_the_tree_is_computed_again_after_a_change_on_disk(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        tree = await open_press_tree(pilot)
        before = tree.result
        press = corpus_dir / "press"
        (press / "tidewell-2.0-copy.txt").write_bytes((press / "tidewell-2.0.txt").read_bytes())
        await pilot.press("f5")
        await settle(pilot)
        await wait_for(pilot, lambda: tree.result is not before and tree.result.size == 5)
        leaf = next(n for n in tree.result.walk() if n.is_leaf and n.size == 2)
        assert set(leaf.members) == {"press/tidewell-2.0.txt", "press/tidewell-2.0-copy.txt"}


async def test_keep_rules_take_the_chosen_node_as_their_scope(corpus_dir, make_app, tmp_path):
    app = make_app(corpus_dir, review=True, review_dir=tmp_path / "review")
    async with app.run_test(size=(120, 40)) as pilot:
        tree = await open_press_tree(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        node = tree.chosen
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, KeepRulesScreen))
        rules = app.screen
        assert tuple(rules.selected) == node.members
        scope = rules.query_one("#scope")
        assert scope.value == "family"
        assert "The chosen tree node (k=4, 3 documents)" in [label for label, _ in rules.scope_choices()]
        await pilot.click("#keep-preview")
        await wait_for(pilot, lambda: rules.preview is not None)
        assert {row[0] for row in rules.preview.rows} == set(node.members)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main_screen)
        # without a chosen node: the selected family, as before
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, KeepRulesScreen))
        assert set(app.screen.selected) == PRESS
        assert app.screen.scope_choices()[1][0] == "The selected family"


async def test_names_in_the_tree_are_literal(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("/", *"markup", "enter")
        await settle(pilot)
        await pilot.press("t")
        tree = tree_of(app)
        await wait_for(pilot, lambda: tree.result is not None)
        await settle(pilot)
        labels = line_labels(tree)
        assert any("[bold red]markup name.txt" in label for label in labels)
        # every label fits its line: the longest name is cut with an ellipsis
        width = tree.scrollable_content_region.width
        for line, label in zip(tree._tree_lines, labels, strict=True):
            guides = (len(line.path) - 1) * tree.guide_depth
            assert guides + len(label) <= width


async def test_a_family_of_thousands_is_computed_off_the_ui_thread(tmp_path, make_app, monkeypatch):
    """Over 3,000 documents in one chain family: the tree is computed in a worker while the
    app keeps answering keys; it opens with a line summing up the children left out."""
    import random

    import ditto_tui.ui.widgets.family_tree as module

    root = tmp_path / "big"
    root.mkdir()
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(5000)]
    docs = [[rng.choice(vocab) for _ in range(50)]]
    while len(docs) < 3400:
        doc = list(docs[rng.randrange(max(0, len(docs) - 30), len(docs))])
        for _ in range(rng.randint(1, 3)):
            doc[rng.randrange(len(doc))] = rng.choice(vocab)
        docs.append(doc)
    for i, words in enumerate(docs):
        (root / f"d{i:04d}.txt").write_text(" ".join(words))
    threads: list[threading.Thread] = []
    real = module.family_tree
    release = threading.Event()

    def slow(*args, **kwargs):
        threads.append(threading.current_thread())
        release.wait(30)  # held until the app has answered a key meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "family_tree", slow)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, timeout=60)
        screen = app.main_screen
        family = screen.table.selected
        assert family.size > 3000
        await pilot.press("t")
        tree = tree_of(app)
        focused = app.focused
        row = getattr(focused, "cursor_row", None)
        await pilot.press("down")  # answered while the worker is held in the tree
        assert tree.computing and not tree.result
        assert row is None or getattr(app.focused, "cursor_row", None) != row
        assert "Computing the tree" in line_labels(tree)[0]
        release.set()
        await wait_for(pilot, lambda: tree.result is not None, timeout=30)
        assert threads and all(t is not threading.main_thread() for t in threads)
        assert tree.result.size == family.size
        shown = sum(1 for _ in tree._tree_lines)
        assert shown <= 1 + sum(min(len(n.children), module.CHILD_LIMIT) + 1 for n in tree.result.walk())
