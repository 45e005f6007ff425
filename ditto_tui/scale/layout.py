"""The results folder written by the Spark jobs, and its per-stage metadata.

A results folder ``OUT`` holds Parquet tables (folders of part files), each written by
one stage and overwritten when the stage runs again:

========================  ===================================================  =========
table                     columns                                              stage
========================  ===================================================  =========
``fingerprints``          doc, id, fp (int64 = the unsigned bits), hex, size,  fingerprint
                          offset, kind, pipeline; sorted by doc
``skipped``               id, reason                                           fingerprint
``groups``                fp, n, first (smallest doc sharing fp)               pairs
``pairs-fp``              fp_a, fp_b (fp_a < fp_b), distance, n_a, n_b         pairs
``pairs``                 a, b (ids, a < b), distance -- with ``--expand``     pairs
``families``              fp, k, family: the doc labelling fp's family from    families
                          k on, one row per change (none for loners)
``meta-<stage>``          json (one row: the stage's parameters and counts)    each
========================  ===================================================  =========

``doc`` is the rank of the id in code-point order (0..n-1), so "the smallest id" is the
smallest ``doc`` and ``families`` needs no strings: the family of a document at k is the
``family`` of the latest row of its fp with ``k' <= k``, else (k = 0 and loners) the
smallest ``doc`` with the same fp.
Ids are root-relative, ``/``-separated, like :class:`~ditto_tui.corpus.CorpusSession`
ids; ``a < b`` and "smallest id" use code-point order (Spark compares UTF-8 bytes, which
orders valid strings the same way). Metadata rows are JSON so a folder is self-describing
(root, pipeline, options, k) and readable with pyarrow alone.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "DOCS_RANK",
    "FAMILIES",
    "FINGERPRINTS",
    "GROUPS",
    "PAIRS",
    "PAIRS_FP",
    "SKIPPED",
    "join_uri",
    "meta_name",
    "read_meta",
    "write_meta",
]

#: The integer document number in every table: the rank of the id in code-point order.
DOCS_RANK = "doc"
FINGERPRINTS = "fingerprints"
SKIPPED = "skipped"
GROUPS = "groups"
PAIRS_FP = "pairs-fp"
PAIRS = "pairs"
FAMILIES = "families"
STAGES = ("fingerprint", "pairs", "families")


def join_uri(base: str, name: str) -> str:
    """``base/name`` for a local path or a URI (never doubles the slash)."""
    return base.rstrip("/") + "/" + name


def meta_name(stage: str) -> str:
    """Table name of a stage's metadata (``meta-fingerprint``...)."""
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}")
    return f"meta-{stage}"


def write_meta(spark: SparkSession, out: str, stage: str, meta: dict[str, Any]) -> None:
    """Store ``meta`` (JSON-serialisable) as the one-row table ``meta-<stage>`` of ``out``."""
    text = json.dumps(meta, sort_keys=True, ensure_ascii=False)
    df = spark.createDataFrame([(text,)], "json string")
    df.coalesce(1).write.mode("overwrite").parquet(join_uri(out, meta_name(stage)))


def read_meta(spark: SparkSession, out: str, stage: str) -> dict[str, Any] | None:
    """The metadata a stage stored in ``out`` (None when that stage never ran there)."""
    from pyspark.errors import AnalysisException

    try:
        rows = spark.read.parquet(join_uri(out, meta_name(stage))).collect()
    except AnalysisException:
        return None
    return json.loads(rows[0]["json"]) if rows else None
