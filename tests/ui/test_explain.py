"""A user asks why two documents matched: the explain panel, its bit grid and the
underlined text in the side-by-side diff."""

from __future__ import annotations

from ditto_tui.core.explain.explanation import explain_pair
from ditto_tui.core.explain.features import document_features
from ditto_tui.core.fingerprint.pipeline import make_pipeline
from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.widgets.bit_diff import BitDiff
from ditto_tui.ui.widgets.explain_panel import ExplainPanel
from ditto_tui.ui.widgets.explained_diff import ExplainedDiff
from ditto_tui.ui.widgets.member_table import MemberTable

from .conftest import settle, wait_for

LETTER = "letters/heating-complaint.txt"
LETTER2 = "letters/heating-complaint-v2.txt"


async def open_compare(pilot) -> CompareScreen:
    screen = pilot.app.main_screen
    await pilot.press("/", *"heating", "enter")
    await settle(pilot)
    screen.query_one(MemberTable).focus()
    await pilot.press("c")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CompareScreen)
    return pilot.app.screen


async def test_explain_shows_why_and_underlines_the_differences(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = await open_compare(pilot)
        panel = screen.query_one(ExplainPanel)
        assert not panel.shown
        await pilot.press("e")
        await settle(pilot)
        await wait_for(pilot, lambda: any(screen.query_one(ExplainedDiff).highlights))
        assert panel.shown and not screen.query_one(BitDiff).display
        e = panel.explanation
        assert e is not None
        pipeline = make_pipeline()
        a = (corpus_dir / LETTER).read_bytes()
        b = (corpus_dir / LETTER2).read_bytes()
        expected = explain_pair(document_features(pipeline, a), document_features(pipeline, b))
        assert e.distance == expected.distance == (app.live.fingerprint(LETTER) ^ app.live.fingerprint(LETTER2)).bit_count()
        assert e.differing_bits == expected.differing_bits
        body = str(panel.query_one("#explain-body").render())
        assert "SimHash expects" in body and "shared features" in body
        for bit in e.differing_bits:
            assert f"bit {bit:>2}" in body
        # the underlines sit on (or, for shingles across a line break, next to) changed lines
        view = screen.query_one(ExplainedDiff)
        left, right = view.highlights
        assert left and right
        changed_a = {r.left for r in view.diff.rows if r.kind != "equal"}
        changed_b = {r.right for r in view.diff.rows if r.kind != "equal"}
        for marks, changed, lines in ((left, changed_a, view.diff.a), (right, changed_b, view.diff.b)):
            assert set(marks) & changed
            solid = [i for i, text in enumerate(lines) if text.strip()]  # shingles skip blank lines
            for line, spans in marks.items():
                at = solid.index(line)
                assert set(solid[max(at - 1, 0) : at + 2]) & changed
                assert all(0 <= start < stop <= len(lines[line]) for start, stop in spans)
        # e again hides the panel and the underlines, and brings the bit diff back
        await pilot.press("e")
        assert not panel.shown and screen.query_one(BitDiff).display
        assert view.highlights == ({}, {})


async def test_swapping_sides_explains_again(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = await open_compare(pilot)
        await pilot.press("e")
        await settle(pilot)
        await wait_for(pilot, lambda: screen.query_one(ExplainPanel).explanation is not None)
        before = screen.query_one(ExplainPanel).explanation
        await pilot.press("s")
        await settle(pilot)
        await wait_for(pilot, lambda: screen.query_one(ExplainPanel).explanation is not None)
        after = screen.query_one(ExplainPanel).explanation
        assert (after.fingerprint_a, after.fingerprint_b) == (before.fingerprint_b, before.fingerprint_a)


async def test_k_chart_counts_families_at_every_k_and_follows_the_slider(corpus_dir, make_app):
    from ditto_tui.core.families.clusters import clusters
    from ditto_tui.ui.widgets.k_chart import KChart, bars
    from ditto_tui.ui.widgets.k_slider import KSlider

    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        chart = app.main_screen.query_one(KChart)
        await wait_for(pilot, lambda: len(chart.sweep) == app.live.max_k + 1)
        ids = app.live.ids()
        fps = [app.live.fingerprint(i) for i in ids]
        fp = dict(zip(ids, fps, strict=True))
        for row in chart.sweep:
            groups = clusters(ids, fps, row.k, 2)
            assert (row.families, row.documents) == (len(groups), sum(map(len, groups)))
            assert row.largest == max(map(len, groups), default=0)
            diameters = [max((fp[a] ^ fp[b]).bit_count() for a in g for b in g) for g in groups]
            assert row.diameter == max(diameters, default=0)
        rendered = chart.render().plain
        # the shape of the families over k, and the current k's figures
        at = chart.sweep[3]
        assert bars([r.families for r in chart.sweep]) in rendered
        assert f"fam{bars([r.families for r in chart.sweep])} {at.families}" in rendered
        assert f"docs {at.documents}" in rendered and f"max {at.largest}" in rendered
        assert f"diam {at.diameter}" in rendered
        assert "k=3:" in chart.tooltip_text and "largest" in chart.tooltip_text
        slider = app.main_screen.query_one(KSlider)
        await pilot.press("]")
        await wait_for(pilot, lambda: chart.k == slider.value == app.initial_k + 1)
        assert f"max {chart.sweep[4].largest}" in chart.render().plain
        # a new near-duplicate changes the counts
        (corpus_dir / "notes" / "todo-copy.txt").write_bytes((corpus_dir / "notes" / "todo.txt").read_bytes())
        before = chart.sweep
        await pilot.press("f5")
        await settle(pilot)
        await wait_for(pilot, lambda: chart.sweep != before)
        assert chart.sweep[0].families == before[0].families + 1


async def test_k_chart_keeps_the_current_figures_at_80_columns(corpus_dir, make_app):
    from ditto_tui.ui.widgets.k_chart import KChart

    app = make_app(corpus_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        chart = app.main_screen.query_one(KChart)
        await wait_for(pilot, lambda: bool(chart.sweep))
        await settle(pilot)
        at = chart.sweep[3]
        assert chart.display and chart.size.width > 20
        line = chart.render().plain
        for figure in (f"fam {at.families}", f"docs {at.documents}", f"max {at.largest}",
                       f"diam {at.diameter}"):
            assert figure in line
        # the line keeps room for its neighbours: the slider shows every k, the filter box is there
        slider = app.main_screen.query_one("#k-slider")
        assert slider.size.width >= slider.min_cells()
        assert app.main_screen.query_one("#filter").size.width >= 20
        # the chart's width depends on the figures of every k, not on the current one
        width = chart.size.width
        for _ in range(3):
            await pilot.press("]")
            await settle(pilot)
            assert chart.size.width == width


def test_k_chart_numbers_shrink():
    from ditto_tui.ui.widgets.k_chart import compact

    assert [compact(v) for v in (0, 999, 1000, 1234, 9949, 9950, 12_345, 999_499, 999_500, 1_234_567, 45_000_000)] == [
        "0", "999", "1.0k", "1.2k", "9.9k", "10k", "12k", "999k", "1.0M", "1.2M", "45M"
    ]


async def test_links_of_a_member_show_the_chain_to_the_representative(corpus_dir, make_app):
    from textual.widgets import DataTable

    from ditto_tui.ui.screens.chain_path import ChainPathScreen

    app = make_app(corpus_dir)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("]", "]", "]")  # k=6: the four press releases form one chain family
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("/", *"press", "enter")
        await settle(pilot)
        members = screen.query_one(MemberTable)
        members.focus()
        family = screen.table.families[0]
        far = max(family.members, key=lambda m: (app.live.fingerprint(m) ^ app.live.fingerprint(family.centre)).bit_count())
        members.move_cursor(row=[m.id for m in members.members].index(far))
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, ChainPathScreen)
        await wait_for(pilot, lambda: app.screen.report is not None)
        report = app.screen.report
        assert report.source == far and report.target == family.centre and report.to_representative
        ids = [hop[0] for hop in report.hops]
        assert ids[0] == far and ids[-1] == family.centre
        fp = app.live.fingerprint
        for before, after, hop in zip(ids, ids[1:], report.hops[1:], strict=False):
            assert hop[2] == (fp(before) ^ fp(after)).bit_count() <= 6
        assert report.path.bottleneck == max(h[2] for h in report.hops)
        assert "linked to the representative" in report.summary()
        table = app.screen.query_one("#hops", DataTable)
        assert table.row_count == len(report.hops)
        # c on a hop compares it with the document before it
        table.move_cursor(row=1)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert (app.screen.left, app.screen.right) == (ids[0], ids[1])


def test_chain_report_names_bridges_of_a_wide_family() -> None:
    from ditto_tui.core.index.near_index import NearIndex
    from ditto_tui.ui.screens.chain_path import chain_report

    index = NearIndex(max_k=4)
    fps = [0, 1, 3, 7, 15, 31, 63]  # a path at k=1, diameter 6
    ids = [f"v{i}" for i in range(len(fps))]
    index.add_many(ids, fps)

    class Live:
        def near_graph(self):
            return index.near_graph()

    report = chain_report(Live(), "v0", None, 1)
    assert report.target == "v3" and report.diameter == 6  # the medoid is the middle
    assert [h[0] for h in report.hops] == ["v0", "v1", "v2", "v3"]
    assert report.summary() == "linked to the representative through 2 documents, max hop 1 bit"
    assert [(name, p.pieces) for name, p in report.bridges][:1] == [("v3", (3, 3))]
    direct = chain_report(Live(), "v0", "v6", 4)
    assert direct.path.bottleneck == 1 and len(direct.hops) == 7  # minimax: small hops, not a 4-bit jump
    assert not direct.bridges  # diameter 6 is not above 2k = 8


async def test_the_grid_legend_explains_every_mark_at_80_columns(corpus_dir, make_app):
    app = make_app(corpus_dir)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await open_compare(pilot)
        await pilot.press("e")
        await settle(pilot)
        panel = screen.query_one(ExplainPanel)
        await wait_for(pilot, lambda: panel.explanation is not None)
        await pilot.pause()
        body = panel.query_one("#explain-body")
        lines = ["".join(s.text for s in body.render_line(y))
                 for y in range(body.content_size.height)]
        legend = next(line for line in lines if "xor" in line).rstrip()
        for mark in ("x", "!", "~"):  # each glyph of the xor row is named
            assert f"{mark} " in legend.split("xor", 1)[1], legend
        assert legend.endswith("fragile)") and "…" not in legend
        assert len(legend) <= panel.scrollable_content_region.width  # in sight at 80
