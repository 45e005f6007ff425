"""explore: the application layer between the corpus and the UI.

- ``source``: ``CorpusSource``, the typed protocol a corpus meets (folder session, Spark
  results, in-memory corpus), and its optional capabilities.
- ``memory``: ``MemorySource``, an in-memory corpus for tests and benchmarks.
- ``snapshot``: ``Snapshot``, an immutable state of the index with a generation number.
- ``view``: ``ViewRequest`` and ``FamilyView``: the filtered, sorted family listing with
  its row map and change counts, built off the UI thread.
- ``explorer``: ``Explorer``, the facade the UI holds; its parts: ``writer`` (the one
  ordered writer over the source and the live index), ``view_builder``,
  ``source_runner`` (scans, watching, switching), ``pacing``, ``process_tuning``,
  ``review_service``, ``action_service``; ``events``: what the UI hears.
"""

from ditto_tui.explore.events import ExplorerEvent
from ditto_tui.explore.explorer import Explorer
from ditto_tui.explore.memory import MemorySource
from ditto_tui.explore.snapshot import Snapshot
from ditto_tui.explore.source import CorpusSource, PairStore, PipelineSwitchable
from ditto_tui.explore.view import FamilyView, ViewRequest
from ditto_tui.explore.writer import ExplorerStopped

__all__ = [
    "CorpusSource",
    "Explorer",
    "ExplorerEvent",
    "ExplorerStopped",
    "FamilyView",
    "MemorySource",
    "PairStore",
    "PipelineSwitchable",
    "Snapshot",
    "ViewRequest",
]
