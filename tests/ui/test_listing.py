"""Pure rules behind the family list: filtering, sorting, display strings, the live index."""

from __future__ import annotations

from dataclasses import dataclass

from ditto_tui.explore import Explorer, MemorySource
from ditto_tui.explore.view import filter_families
from ditto_tui.ui.listing import format_mtime, format_size, shown
from ditto_tui.ui.widgets.columns import ColumnSpec, fit_columns
from ditto_tui.ui.widgets.preview import wrap_points
from ditto_tui.ui.widgets.scan_progress import describe


@dataclass(frozen=True)
class Fam:
    members: tuple[str, ...]
    centre: str
    diameter: int

    @property
    def size(self) -> int:
        return len(self.members)


@dataclass(frozen=True)
class Doc:
    size: int
    mtime_ns: int


FAMS = [
    Fam(("a/x.txt", "a/y.txt", "b/z.html"), "a/x.txt", 2),
    Fam(("c/old.txt", "c/older.txt"), "c/old.txt", 5),
    Fam(("solo.md",), "solo.md", 0),
]
DOCS = {
    "a/x.txt": Doc(1, 10),
    "a/y.txt": Doc(1, 20),
    "b/z.html": Doc(1, 30),
    "c/old.txt": Doc(1, 99),
    "c/older.txt": Doc(1, 5),
    "solo.md": Doc(1, 1),
}


def test_filter_by_substring_glob_and_singletons():
    assert filter_families(FAMS, "", singletons=False) == FAMS[:2]
    assert filter_families(FAMS, "", singletons=True) == FAMS
    assert filter_families(FAMS, "Z.HTML", singletons=False) == [FAMS[0]]
    assert filter_families(FAMS, "*.html", singletons=False) == [FAMS[0]]
    assert filter_families(FAMS, "c/*", singletons=False) == [FAMS[1]]
    assert filter_families(FAMS, "*.md", singletons=True) == [FAMS[2]]
    assert filter_families(FAMS, "nothing", singletons=True) == []


def test_display_strings_escape_controls_and_undecodable_names():
    assert shown("ok[bold]") == "ok[bold]"
    assert shown("bad\x1b[2J") == "bad\\x1b[2J"
    assert shown(b"caf\xe9".decode("utf-8", "surrogateescape")) == "caf\\xe9"
    assert format_size(512) == "512 B" and format_size(1536) == "1.5 KB"
    assert format_mtime(1_750_000_000 * 10**9) == "2025-06-15 15:06"
    assert format_mtime(0) == ""


def test_snapshot_listings_belong_to_one_generation():
    source = MemorySource({"a": 0b0000, "b": 0b0011, "c": 0xFF00})
    explorer = Explorer(source, max_k=4)
    explorer.start()
    try:
        assert explorer.wait_idle()
        snap = explorer.snapshot
        explorer.families(2)
        first = snap.listing(2, "chain")
        assert first is not None and sorted(f.size for f in first) == [1, 2]
        source.write({"c": 0b0001})
        assert explorer.wait_idle()
        later = explorer.snapshot
        assert later.generation > snap.generation
        assert snap.listing(2, "chain") is first  # an old snapshot keeps its own listing
        explorer.families(2)
        assert [f.size for f in later.listing(2, "chain")] == [3]
        source.delete(["a"])
        assert explorer.wait_idle()
        now = explorer.snapshot
        assert "a" not in now and len(now) == 2
        assert [m.id for m in now.near(0b0001, 4)] == ["c", "b"]
    finally:
        explorer.close()


def test_columns_drop_optional_ones_when_narrow():
    specs = (
        ColumnSpec("n", "N", 4),
        ColumnSpec("name", "Name", 10, weight=1),
        ColumnSpec("extra", "Extra", 10, optional=True),
    )
    wide = fit_columns(specs, 60)
    assert [s.key for s, _ in wide] == ["n", "name", "extra"]
    assert sum(w + 2 for _, w in wide) == 60
    narrow = fit_columns(specs, 24)
    assert [s.key for s, _ in narrow] == ["n", "name"]


def test_preview_wraps_after_spaces_when_it_can():
    line = "alpha beta gamma delta"
    pieces = wrap_points(line, 12)
    assert [line[a:b] for a, b in pieces] == ["alpha beta ", "gamma delta"]
    assert wrap_points("x" * 25, 10) == [(0, 10), (10, 20), (20, 25)]


def test_scan_progress_rate_and_eta():
    assert describe(500, 1000, 2.0) == "500/1,000 docs · 250 docs/s · ETA 2s"
    assert describe(10, None, 1.0) == "10/? docs · 10 docs/s"
