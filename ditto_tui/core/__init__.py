"""Pure computation: normalize, featurize, SimHash, the near-duplicate index and families.

No I/O and no UI; depends on numpy (and scipy for components), and on numba for the
compiled fingerprint kernel when it is available (``kernel``; numpy is the fallback).
"""

from ditto_tui.core.clusters import Family, all_pairs
from ditto_tui.core.featurize import PIPELINE_VERSION, Featurizer
from ditto_tui.core.index import Match, NearIndex
from ditto_tui.core.normalize import decode_go, normalize
from ditto_tui.core.pipeline import Pipeline, make_pipeline
from ditto_tui.core.simhash import Fingerprint, distance, similarity_percent

__all__ = [
    "PIPELINE_VERSION",
    "Family",
    "Featurizer",
    "Fingerprint",
    "Match",
    "NearIndex",
    "Pipeline",
    "all_pairs",
    "decode_go",
    "distance",
    "make_pipeline",
    "normalize",
    "similarity_percent",
]
