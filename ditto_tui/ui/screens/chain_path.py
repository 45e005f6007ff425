"""ChainPathScreen: how a member is linked to its family's representative (or to another
document): each hop of the path with its distance, and, for a family far wider than k,
the bridge documents whose removal would split it most.

Computed in a worker from a snapshot of the index's near graph (``core.families.paths``).
``enter`` on a hop compares it with the document before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable

from ditto_tui.core.families.clusters import describe_family
from ditto_tui.core.families.paths import (
    ChainPath,
    NearGraph,
    SplitPoint,
    chain_path,
    family_nodes,
    split_points,
)
from ditto_tui.explore.writer import ExplorerStopped
from ditto_tui.ui.listing import shown
from ditto_tui.ui.live_index import LiveIndex
from ditto_tui.ui.screens.compare import CompareScreen
from ditto_tui.ui.widgets.footer import Footer
from ditto_tui.ui.widgets.title_line import TitleLine

__all__ = ["ChainPathScreen", "ChainReport", "chain_report"]


class Linked(Protocol):
    """Anything with the index's near graph (the live index; a test's index)."""

    def near_graph(self) -> NearGraph: ...


@dataclass(frozen=True)
class ChainReport:
    """What the screen shows: the family at k, the path and the bridge documents."""

    source: str
    target: str
    to_representative: bool
    k: int
    family_size: int
    diameter: int
    path: ChainPath
    hops: tuple[tuple[str, int, int, int], ...]  # (id, fingerprint, distance from previous, identical)
    bridges: tuple[tuple[str, SplitPoint], ...]

    def summary(self) -> str:
        """One line: how the two are linked."""
        who = "the representative" if self.to_representative else shown(self.target)
        if not self.path.linked:
            return f"not linked to {who} within the index's maximum distance"
        if len(self.path.nodes) == 1:
            return "is the representative" if self.to_representative else f"has the same fingerprint as {who}"
        where = "" if self.path.bottleneck <= self.k else f"; they join only at k={self.path.bottleneck}"
        through = len(self.path.nodes) - 2
        how = "directly" if through == 0 else f"through {through} document{'s' * (through != 1)}"
        return f"linked to {who} {how}, max hop {self.path.bottleneck} bit{'s' * (self.path.bottleneck != 1)}{where}"


def chain_report(live: Linked, source: str, target: str | None, k: int) -> ChainReport:
    """The report for ``source`` (to ``target``, default its family's representative at
    ``k``) over ``live``'s near graph; blocking (call from a worker). KeyError when a
    document is not in the index."""
    graph = live.near_graph()
    src = graph.node_of(source)
    nodes = family_nodes(graph, src, k)
    members = [m for group in graph.documents_of(nodes) for m in group]
    fps = {m: int(graph.fps[graph.node_of(m)]) for m in members}
    centre, diameter, _ = describe_family(members, [fps[m] for m in members])
    to_rep = target is None
    goal = centre if target is None else target
    path = chain_path(graph, src, graph.node_of(goal))
    groups = graph.documents_of(np.array(path.nodes, dtype=np.int64)) if path.linked else []
    hops = []
    for i, (node, group) in enumerate(zip(path.nodes, groups, strict=True)):
        first = source if i == 0 else goal if i == len(groups) - 1 else group[0]
        hops.append((first, int(graph.fps[node]), path.hops[i - 1] if i else 0, len(group) - 1))
    bridges: list[tuple[str, SplitPoint]] = []
    if diameter > 2 * k:
        points = split_points(graph, nodes, k)
        names = graph.documents_of(np.array([p.node for p in points], dtype=np.int64))
        bridges = [(group[0], p) for group, p in zip(names, points, strict=True)]
    return ChainReport(source, goal, to_rep, k, len(members), diameter, path, tuple(hops), tuple(bridges))


class ChainPathScreen(Screen[None]):
    """The links joining ``source`` to ``target`` (default: the representative) at ``k``
    in the ``live`` index; a hop is compared in its latest snapshot."""

    BINDINGS = [
        Binding("escape,q,l", "app.pop_screen", "Back"),
        Binding("c", "compare_hop", "Compare hop"),
    ]
    DEFAULT_CSS = """
    ChainPathScreen #hops { height: 1fr; }
    ChainPathScreen #bridges { height: auto; max-height: 10; }
    """

    def __init__(self, source: str, target: str | None, k: int, *, live: LiveIndex) -> None:
        super().__init__()
        self.source, self.target, self.k = source, target, k
        self.live = live
        self.report: ChainReport | None = None

    def compose(self) -> ComposeResult:
        yield TitleLine(Text(""), id="chain-title")
        yield TitleLine(Text("finding the links…"), id="chain-summary")
        yield DataTable(id="hops", cursor_type="row", zebra_stripes=True)
        yield TitleLine(Text(""), id="bridges-title")
        yield DataTable(id="bridges", cursor_type="row")
        yield Footer()

    AUTO_FOCUS = "#hops"

    def on_mount(self) -> None:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append("Links of ", style="bold")
        title.append(shown(self.source))
        title.append(f" at k={self.k}", style="bold")
        self.query_one("#chain-title", TitleLine).update(title)
        hops = self.query_one("#hops", DataTable)
        hops.add_columns("Hop", "Bits", "Fingerprint", "Document", "Identical")
        self.query_one("#bridges", DataTable).add_columns("Bridge document", "Pieces if removed")
        self.query_one("#bridges", DataTable).display = False
        self.query_one("#bridges-title", TitleLine).display = False
        self.compute()

    @work(thread=True, exclusive=True, group="chain")
    def compute(self) -> None:
        try:
            report = chain_report(self.live, self.source, self.target, self.k)
        except KeyError:
            self.app.call_from_thread(self._failed)
            return
        except ExplorerStopped:
            return  # the app is closing
        self.app.call_from_thread(self._show, report)

    def _failed(self) -> None:
        self.query_one("#chain-summary", TitleLine).update(Text("this document is no longer in the index"))

    def _show(self, report: ChainReport) -> None:
        self.report = report
        summary = Text(no_wrap=True, overflow="ellipsis")
        summary.append(report.summary(), style="bold")
        summary.append(f"  · family of {report.family_size} at k={report.k}, diameter {report.diameter}")
        self.query_one("#chain-summary", TitleLine).update(summary)
        hops = self.query_one("#hops", DataTable)
        hops.clear()
        for i, (doc_id, fp, bits, same) in enumerate(report.hops):
            hops.add_row(str(i), "" if i == 0 else str(bits), f"{fp:016x}", Text(shown(doc_id)),
                         f"+{same}" if same else "", key=str(i))
        bridges = self.query_one("#bridges", DataTable)
        bridges.clear()
        bridges.display = self.query_one("#bridges-title", TitleLine).display = bool(report.bridges)
        if report.bridges:
            self.query_one("#bridges-title", TitleLine).update(Text(
                f"Bridge documents: the diameter ({report.diameter}) is far above k={report.k}; "
                "removing one splits the family into pieces of so many documents", no_wrap=True,
                overflow="ellipsis"))
            for doc_id, point in report.bridges:
                bridges.add_row(Text(shown(doc_id)), " + ".join(map(str, point.pieces)))

    def action_compare_hop(self) -> None:
        """Compare the highlighted hop's document with the one before it."""
        report = self.report
        row = self.query_one("#hops", DataTable).cursor_row
        if report is None or not 0 < row < len(report.hops):
            self.app.bell()
            return
        live = self.live
        self.app.push_screen(CompareScreen(report.hops[row - 1][0], report.hops[row][0],
                                           snapshot=live.snapshot, reader=live.source))

    @on(DataTable.RowSelected, "#hops")
    def _selected(self, _event: DataTable.RowSelected) -> None:
        self.action_compare_hop()
