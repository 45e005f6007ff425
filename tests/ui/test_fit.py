"""One-line labels fit their width and keep what matters (pure, no screen)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from ditto_tui.ui.fit import Part, fit_parts, middle_crop, split_path
from ditto_tui.ui.widgets.columns import ColumnSpec, fit_columns

LONG = "usr/share/doc/libreoffice-common/help/en-US/text/shared/explorer/database/LangRef.html"


def test_middle_crop_keeps_the_file_name_and_the_start():
    cut = middle_crop(LONG, 40)
    assert cell_len(cut) <= 40
    assert cut.endswith("/LangRef.html")
    assert cut.startswith("usr/share/doc/")
    assert "…" in cut


def test_a_name_longer_than_the_room_keeps_its_start_and_its_end():
    cut = middle_crop("a/" + "x" * 50 + ".html", 12)
    assert cell_len(cut) <= 12 and cut.endswith(".html") and cut.startswith("x") and "…" in cut
    # names that differ only at their start, or only at their end, stay apart
    a = middle_crop("press/draft-of-the-quarterly-report-for-the-board.txt", 16)
    b = middle_crop("press/final-of-the-quarterly-report-for-the-board.txt", 16)
    c = middle_crop("press/final-of-the-quarterly-report-for-the-board-v2.txt", 16)
    assert len({a, b, c}) == 3, (a, b, c)
    assert middle_crop("dir/name.txt", 9) == "…name.txt"


def test_split_path():
    assert split_path("a/b/c.txt") == ("c.txt", "a/b")
    assert split_path("top.txt") == ("top.txt", "")
    assert split_path("box.mbox#12") == ("box.mbox#12", "")


def test_parts_give_way_in_priority_order_and_say_so():
    parts = [
        Part("/very/long/root/folder/of/the/corpus", 8, crop="left", min_cells=12),
        Part("7,054 docs", 5, sep="  "),
        Part("k=3", 0, sep=" · "),
        Part("chain", 1, sep=" · "),
    ]
    assert fit_parts(parts, 200).plain == "/very/long/root/folder/of/the/corpus  7,054 docs · k=3 · chain"
    narrow = fit_parts(parts, 40).plain
    assert cell_len(narrow) <= 40
    assert "k=3" in narrow and "chain" in narrow and "7,054 docs" in narrow
    assert narrow.startswith("…")  # the root lost its start
    tiny = fit_parts(parts, 14).plain
    assert tiny == "k=3 · chain …"  # the rest left out, and the line says so


@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=30),
            st.integers(0, 5),
            st.sampled_from(["", "left", "middle", "right"]),
        ),
        min_size=1,
        max_size=6,
    ),
    st.integers(1, 120),
)
def test_a_fitted_label_never_exceeds_its_width(pieces, width):
    parts = [Part(text, priority, crop=crop, min_cells=4, sep=" · ") for text, priority, crop in pieces]
    assert fit_parts(parts, width).cell_len <= width


def test_flexible_columns_use_the_whole_width_and_capped_ones_give_back():
    specs = [
        ColumnSpec("name", "Name", 16, weight=3),
        ColumnSpec("folder", "Folder", 10, weight=3),
        ColumnSpec("modified", "Modified", 10, weight=1, max_width=16),
    ]
    layout = dict((s.key, w) for s, w in fit_columns(specs, 118))
    assert sum(layout.values()) + 2 * len(layout) == 118
    assert layout["modified"] == 16


def test_columns_shrink_below_their_minimum_rather_than_overflow():
    specs = [ColumnSpec("a", "A", 7), ColumnSpec("b", "B", 20, weight=1)]
    layout = fit_columns(specs, 24)
    assert sum(w for _s, w in layout) + 4 <= 24


def test_leaving_out_a_quiet_reminder_adds_no_ellipsis():
    parts = [Part("name.html", 0), Part("text (h: source)", 5, sep=" · ", quiet=True)]
    assert fit_parts(parts, 12).plain == "name.html"
