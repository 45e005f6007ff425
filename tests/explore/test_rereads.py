"""A file edited so that its fingerprint stays (letters changed in case, whitespace added,
the same bytes written again) is still a change: its new record reaches the snapshot and
the UI hears that the document was touched, so it reads its preview and excerpt again.
Issue 33, defect 1 (the explorer's side)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.explore import Explorer
from ditto_tui.explore.events import ExplorerEvent, IndexUpdated

TEXT = b"The quick brown fox jumps over the lazy dog near the river bank today\n"
#: edits the ditto pipeline does not see (it folds case and whitespace)
EDITS = {
    "letters in another case": TEXT.replace(b"quick", b"QUICK"),
    "whitespace appended": TEXT + b"\n\n   \n",
    "the same bytes rewritten": TEXT,  # only the modification time changes
    # as sed -i does: written aside, renamed over the file (a new inode, the same size)
    "letters changed aside, renamed into place": TEXT.replace(b"lazy", b"LAZY"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edit_that_keeps_the_fingerprint_reaches_the_snapshot_as_touched(
    tmp_path: Path, edit: str
) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    page = root / "page.txt"
    page.write_bytes(TEXT)
    (root / "other.txt").write_bytes(b"something else entirely, about boats and harbours\n")
    os.utime(page, ns=(1_600_000_000 * 10**9, 1_600_000_000 * 10**9))
    touched: list[frozenset[str]] = []
    lock = threading.Lock()

    def on_event(event: ExplorerEvent) -> None:
        if isinstance(event, IndexUpdated) and event.touched:
            with lock:
                touched.append(event.touched)

    pipeline = make_pipeline()
    session = CorpusSession(root, pipeline, use_cache=False, jobs=1, reconcile_every=None)
    explorer = Explorer(session, max_k=4, watch=True, on_event=on_event)
    explorer.start()
    try:
        assert explorer.wait_idle()
        deadline = time.monotonic() + 10
        while session.watch_state != "watching" and time.monotonic() < deadline:
            time.sleep(0.02)
        before = explorer.snapshot
        fingerprint = before.fingerprint("page.txt")
        new = EDITS[edit]
        if "aside" in edit:
            (root / ".sedtmp").write_bytes(new)
            os.replace(root / ".sedtmp", page)
        else:
            page.write_bytes(new)
        assert int(pipeline.fingerprint(new)) == fingerprint  # the premise of the test

        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with lock:
                if any("page.txt" in t for t in touched):
                    break
            time.sleep(0.05)
        assert explorer.wait_idle()
        with lock:
            assert any("page.txt" in t for t in touched), touched
        after = explorer.snapshot
        assert after.fingerprint("page.txt") == fingerprint
        record = after.documents["page.txt"]
        stat = page.stat()
        assert (record.size, record.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
        assert record != before.documents["page.txt"]
    finally:
        explorer.close()
        session.close()
