"""Reopening an unchanged folder: the explorer reuses the near pairs of the last open."""

from __future__ import annotations

from pathlib import Path

import pytest

import ditto_tui.core.index.pairs as pairs_module
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.corpus.session import CorpusSession
from ditto_tui.ui.app import DittoApp

from .conftest import settle

WORDS = ["heating", "landlord", "flat", "repair", "monday", "invoice", "garden", "window"]


@pytest.fixture
def joins(monkeypatch) -> list[int]:
    """Sizes of the all-pairs joins run (distinct fingerprints per call)."""
    calls: list[int] = []
    real = pairs_module.unique_pairs

    def counting(u, k, *args, **kwargs):
        calls.append(len(u))
        return real(u, k, *args, **kwargs)

    monkeypatch.setattr(pairs_module, "unique_pairs", counting)
    return calls


def make_folder(root: Path, n: int = 90) -> None:
    """``n`` letters in families of near copies (enough for a bulk load of the index)."""
    for i in range(n):
        family, copy = divmod(i, 3)
        body = " ".join(WORDS[(family + w) % len(WORDS)] for w in range(60)) + f" family {family}"
        path = root / f"f{family:03}" / f"copy{copy}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body + " edit" * copy, encoding="utf-8")


async def open_folder(root: Path, cache: Path) -> tuple[list, list[str]]:
    """Open ``root`` in the explorer until it settles: (families at k=8, ids)."""
    session = CorpusSession(root, make_pipeline(), cache=cache, jobs=1)
    try:
        app = DittoApp(session, root="corpus", watch=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            return list(app.explorer.families(8)), sorted(app.snapshot.fingerprints)
    finally:
        session.close()


async def test_second_open_of_an_unchanged_folder_skips_the_join(tmp_path, joins):
    root = tmp_path / "corpus"
    make_folder(root)
    cache = tmp_path / "cache" / "c.sqlite"
    first, ids = await open_folder(root, cache)
    assert len(ids) == 90 and joins and joins[-1] > 1
    assert any(f.size > 1 for f in first)
    joins.clear()
    second, ids_again = await open_folder(root, cache)
    assert joins == []  # the pairs came from the cache
    assert (second, ids_again) == (first, ids)

    (root / "f000" / "copy0.txt").write_text("something else altogether " * 20)
    third, _ = await open_folder(root, cache)
    assert len(joins) == 1  # other fingerprints: the stored pairs do not fit
    joins.clear()
    fourth, _ = await open_folder(root, cache)
    assert joins == [] and fourth == third  # ... and the new ones replaced them
