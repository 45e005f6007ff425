"""LiveIndex: what a screen or widget may read of the live index, typed.

The app hands the explorer (:class:`~ditto_tui.explore.Explorer`, which meets this
protocol) down to the screens and widgets that explain the index (the k chart, the chain
path screen); none of them reaches for the app to find it.
"""

from __future__ import annotations

from typing import Any, Protocol

from ditto_tui.core.families.paths import NearGraph
from ditto_tui.core.families.tree import SweepRow
from ditto_tui.explore.snapshot import Snapshot

__all__ = ["LiveIndex"]


class LiveIndex(Protocol):
    """The latest state of the index and its near graph (pairs and merge order)."""

    @property
    def generation(self) -> int:
        """The generation of the latest snapshot (grows with every change)."""
        ...

    @property
    def scanning(self) -> bool:
        """Whether a scan is running (figures would be partial)."""
        ...

    @property
    def snapshot(self) -> Snapshot:
        """The latest snapshot (immutable)."""
        ...

    @property
    def source(self) -> Any:
        """The corpus source the documents are read from."""
        ...

    def sweep(self) -> tuple[SweepRow, ...]:
        """The figures of every k (families, documents, largest, diameter); blocking (call
        from a worker), :class:`~ditto_tui.explore.explorer.ExplorerStopped` once closed."""
        ...

    def near_graph(self) -> NearGraph:
        """The index's pairs and merge order; blocking (call from a worker), and raises
        :class:`~ditto_tui.explore.explorer.ExplorerStopped` once the index is closed."""
        ...
