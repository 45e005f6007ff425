"""Two explorers on one folder and one review store (two tabs of ``ditto-tui serve``, two
terminals): each sees what the other records; the later decision on a document wins and
the session whose decision was replaced is told; a read-only explorer records nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.review import ReviewStore, review_path_for
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.explore import Explorer
from ditto_tui.explore.events import ExplorerEvent, Notice
from ditto_tui.explore.policy import ReadOnlyError, SessionPolicy
from tests.explore.conftest import wait_until


class Tab:
    """One explorer with its own session and store handle, and the events it heard."""

    def __init__(self, root: Path, cache: Path, policy: SessionPolicy | None = None) -> None:
        self.events: list[ExplorerEvent] = []
        self.session = CorpusSession(root, make_pipeline(), use_cache=False, jobs=1)
        self.explorer = Explorer(self.session, max_k=4, watch=False, on_event=self.events.append,
                                 review=ReviewStore(review_path_for(root, cache)), policy=policy)
        self.explorer.start()
        assert self.explorer.wait_idle()

    def notices(self) -> list[str]:
        return [e.text for e in self.events if isinstance(e, Notice)]

    def close(self) -> None:
        self.explorer.close()
        self.session.close()


@pytest.fixture
def tabs(tmp_path: Path) -> Iterator:
    root, cache = tmp_path / "corpus", tmp_path / "cache"
    root.mkdir()
    for name in ("a", "b", "c"):
        (root / f"{name}.txt").write_text(f"the same long text of the press release {name}\n" * 20)
    opened: list[Tab] = []

    def open_tab(policy: SessionPolicy | None = None) -> Tab:
        opened.append(Tab(root, cache, policy))
        return opened[-1]

    yield open_tab
    for tab in opened:
        tab.close()


def test_what_one_tab_records_shows_in_the_other(tabs):
    first, second = tabs(), tabs()
    first.explorer.decide(["a.txt"], "keep")
    second.explorer.decide(["b.txt"], "duplicate")
    assert first.explorer.wait_idle() and second.explorer.wait_idle()
    assert "b.txt" not in first.explorer.review.decisions  # until it reads the store again
    first.explorer.refresh_review()
    second.explorer.refresh_review()
    wait_until(lambda: dict(first.explorer.review.decisions) == dict(second.explorer.review.decisions)
               == {"a.txt": "keep", "b.txt": "duplicate"})
    assert first.notices() == [] and second.notices() == []  # nothing of theirs was replaced


def test_the_later_decision_wins_and_the_other_tab_is_told(tabs):
    first, second = tabs(), tabs()
    first.explorer.decide(["a.txt"], "keep")
    assert first.explorer.wait_idle()
    second.explorer.refresh_review()
    wait_until(lambda: second.explorer.review.decisions.get("a.txt") == "keep")
    second.explorer.decide(["a.txt"], "duplicate")
    assert second.explorer.wait_idle()
    first.explorer.refresh_review()
    wait_until(lambda: first.explorer.review.decisions.get("a.txt") == "duplicate")
    told = [n for n in first.notices() if "Another session" in n]
    assert len(told) == 1 and "on a.txt (keep -> duplicate)" in told[0]
    assert second.notices() == []


def test_a_read_only_tab_follows_the_review_but_records_and_acts_on_nothing(tabs):
    writer, reader = tabs(), tabs(SessionPolicy(read_only=True))
    reader.explorer.decide(["a.txt"], "duplicate")
    reader.explorer.set_marks({"b.txt": "keep"})
    reader.explorer.mark_family(["a.txt", "b.txt", "c.txt"], "reviewed")
    reader.explorer.ignore_pair("a.txt", "b.txt")
    assert reader.explorer.wait_idle()
    refused = [n for n in reader.notices() if "read-only" in n]
    assert len(refused) == 4 and all("decisions are not recorded" in n for n in refused)
    assert dict(reader.explorer.review.decisions) == {}
    with pytest.raises(ReadOnlyError, match="no file is trashed"):
        reader.explorer.actions.plan("trash", [])
    with pytest.raises(ReadOnlyError):
        reader.explorer.actions.undo_last()
    writer.explorer.decide(["c.txt"], "keep")
    assert writer.explorer.wait_idle()
    reader.explorer.refresh_review()
    wait_until(lambda: dict(reader.explorer.review.decisions) == {"c.txt": "keep"})


def test_the_policy_says_what_it_refuses():
    assert SessionPolicy().refusal("act") is None
    SessionPolicy().check("decide")
    policy = SessionPolicy(read_only=True)
    assert {c: policy.refusal(c) is not None for c in ("decide", "act", "export")} == dict.fromkeys(
        ("decide", "act", "export"), True)
    with pytest.raises(ReadOnlyError, match="nothing is exported"):
        policy.check("export")
