"""A stage's progress kept in ``OUT/_resume/<stage>``, so a re-run after an interrupt continues.

A :class:`ResumeStore` holds Parquet tables, each written once under its own name, and
*states*: one-row JSON tables ``state-<n>`` that name the tables a step left and carry
the key of the stage's inputs. A state is written after the tables it names, and the
highest complete state (one with Spark's ``_SUCCESS`` marker) is the one a re-run reads,
so an interrupt at any moment leaves the previous state usable. A state whose key differs
from the re-run's (other inputs, another K) is discarded with the reason. The store's
tables are as reliable as the results folder (any Hadoop file system), and reading one
back cuts the query plan like a checkpoint. Without a folder (:class:`MemoryStore`)
the same calls checkpoint and remember nothing.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ditto_tui.scale.layout import join_uri

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["RESUME", "MemoryStore", "ResumeStore"]

#: The folder under OUT that holds every stage's resume store.
RESUME = "_resume"
_STATE = "state-"
_DONE = "_SUCCESS"


class MemoryStore:
    """The store's interface without a folder: tables are reliable checkpoints (the
    context's checkpoint folder) remembered by name, states are kept in memory only
    (nothing resumes)."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.resumed = False
        self._tables: dict[str, DataFrame] = {}

    def save(self, name: str, df: DataFrame) -> DataFrame:
        """Materialise ``df`` as table ``name``; returns a frame reading it."""
        from ditto_tui.scale.session import checkpoint

        self._tables[name] = checkpoint(df)
        return self._tables[name]

    def table(self, name: str) -> DataFrame:
        """The table saved as ``name`` (KeyError if none)."""
        return self._tables[name]

    def commit(self, state: dict[str, Any]) -> None:
        self.state = dict(state)

    def clear(self) -> None:
        self.state = None


class ResumeStore(MemoryStore):
    """``out/_resume/<stage>``; :meth:`load` reads the last state whose inputs match
    ``key`` (JSON-serialisable)."""

    def __init__(self, spark: SparkSession, out: str, stage: str, key: dict[str, Any]) -> None:
        super().__init__()
        self.spark = spark
        self.root = join_uri(out, RESUME)
        self.uri = join_uri(self.root, stage)
        self.key = json.dumps(key, sort_keys=True)
        self.seq = 0

    def load(self) -> str | None:
        """Read the last complete state into :attr:`state`; returns None, or why an
        earlier run's progress cannot be used (the store is then emptied)."""
        from ditto_tui.scale.session import delete_path, list_names

        names = list_names(self.spark, self.uri)
        if not names:
            return None
        states = sorted(
            (int(n[len(_STATE):]) for n in names
             if n.startswith(_STATE) and n[len(_STATE):].isdigit()
             and _DONE in list_names(self.spark, join_uri(self.uri, n))),
            reverse=True,
        )
        if not states:
            delete_path(self.spark, self.uri)
            return "the interrupted run saved no complete step"
        row = self.spark.read.parquet(join_uri(self.uri, f"{_STATE}{states[0]}")).first()
        saved = json.loads(row["json"]) if row is not None else {}
        if saved.get("key") != self.key:
            delete_path(self.spark, self.uri)
            return "its inputs or parameters differ from this run's"
        self.seq = states[0]
        self.state = saved["state"]
        self.resumed = True
        return None

    def save(self, name: str, df: DataFrame) -> DataFrame:
        """Write ``df`` as table ``name`` (overwriting) and return it read back."""
        df.write.mode("overwrite").parquet(join_uri(self.uri, name))
        return self.table(name)

    def table(self, name: str) -> DataFrame:
        return self.spark.read.parquet(join_uri(self.uri, name))

    def commit(self, state: dict[str, Any]) -> None:
        """Record ``state`` (it names, in ``tables``, the tables it needs); then delete the
        older states and every table it does not name."""
        from ditto_tui.scale.session import delete_path, list_names

        self.seq += 1
        text = json.dumps({"key": self.key, "state": state}, sort_keys=True)
        name = f"{_STATE}{self.seq}"
        self.spark.createDataFrame([(text,)], "json string").coalesce(1).write.mode(
            "overwrite").parquet(join_uri(self.uri, name))
        self.state = dict(state)
        keep = {name, *state.get("tables", [])}
        for entry in list_names(self.spark, self.uri):
            if entry not in keep:
                delete_path(self.spark, join_uri(self.uri, entry))

    def clear(self) -> None:
        """Delete the store (and ``_resume`` when nothing else is in it)."""
        from ditto_tui.scale.session import delete_path, list_names

        delete_path(self.spark, self.uri)
        if not list_names(self.spark, self.root):
            delete_path(self.spark, self.root)
        self.state = None
