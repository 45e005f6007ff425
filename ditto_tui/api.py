"""The public library API of ditto-tui: everything a Python user needs, nothing else.

Import from the package itself (``import ditto_tui``); this module is the same list.
The names in ``__all__`` are stable: they keep their meaning across minor versions, and a
test pins the list. Everything else in the package is internal and may change.

Quick start:

    import ditto_tui as dt

    p = dt.ditto()                      # ditto/2, character 4-grams (Go: ditto.Default())
    a = p.fingerprint("Your Apple ID has been locked. Please verify your account now.")
    b = p.fingerprint("Your Apple ID has been locked. Please verify your account now!")
    dt.distance(a, b)                   # a few bits: near-duplicates

    ix = dt.Index(k=3, pipeline=p)
    ix.add("a", a)
    ix.add("b", b)
    ix.clusters()                       # [Family(members=('a', 'b'), ...)]
"""

from ditto_tui._lib.folder import Fingerprinted, fingerprint_folder
from ditto_tui._lib.index import Index, load_index
from ditto_tui._lib.indexfile import IndexFileError
from ditto_tui._lib.oracle import Oracle
from ditto_tui._lib.pipelines import (
    Pipeline,
    PipelineMismatchError,
    distance,
    ditto,
    fingerprint,
    fingerprint_many,
    html_distance,
    pipeline,
    similarity,
)
from ditto_tui.core.families.clusters import Family
from ditto_tui.core.fingerprint.simhash import Fingerprint
from ditto_tui.core.index.near_index import Match
from ditto_tui.corpus.documents import ChangeBatch, Skipped
from ditto_tui.corpus.session import CorpusSession

__all__ = [
    "ChangeBatch",
    "CorpusSession",
    "Family",
    "Fingerprint",
    "Fingerprinted",
    "Index",
    "IndexFileError",
    "Match",
    "Oracle",
    "Pipeline",
    "PipelineMismatchError",
    "Skipped",
    "distance",
    "ditto",
    "fingerprint",
    "fingerprint_folder",
    "fingerprint_many",
    "html_distance",
    "load_index",
    "pipeline",
    "similarity",
]
