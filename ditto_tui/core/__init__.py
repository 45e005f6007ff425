"""core."""
from ditto_tui.core.clusters import Family, all_pairs, clusters  # noqa: E402,F401
from ditto_tui.core.featurize import PIPELINE_VERSION, Featurizer  # noqa: E402,F401
from ditto_tui.core.index import Match, NearIndex  # noqa: E402,F401
from ditto_tui.core.normalize import decode_go, normalize  # noqa: E402,F401
from ditto_tui.core.pipeline import Pipeline, make_pipeline  # noqa: E402,F401
from ditto_tui.core.simhash import Fingerprint, distance, similarity_percent  # noqa: E402,F401
