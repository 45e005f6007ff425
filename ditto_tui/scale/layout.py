"""The results folder written by the Spark jobs, and its per-stage metadata.

A results folder ``OUT`` holds Parquet tables (folders of part files), each written by
one stage and overwritten when the stage runs again:

========================  ===================================================  =========
table                     columns                                              stage
========================  ===================================================  =========
``fingerprints``          id, fp (int64 = the unsigned bits), hex, size,       fingerprint
                          offset, kind, pipeline
``skipped``               id, reason                                           fingerprint
``groups``                fp, hex, n, members (sorted ids sharing fp)          pairs
``pairs-fp``              fp_a, fp_b, hex_a, hex_b, distance, n_a, n_b         pairs
``pairs``                 a, b (ids, a < b), distance -- with ``--expand``     pairs
``families``              id, k, family (smallest id of the family at k)       families
``meta-<stage>``          json (one row: the stage's parameters and counts)    each
========================  ===================================================  =========

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
