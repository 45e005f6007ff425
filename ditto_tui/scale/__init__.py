"""Scale-out on Spark: fingerprints, pairs and families for corpora beyond one machine.

Optional (extra ``spark``: pyspark, pyarrow, pandas); nothing here is imported by the base
package, and every module imports pyspark lazily, so ``ditto-tui`` works without it.

- ``session``: SparkSession builder, Java / pyspark checks (:class:`SparkUnavailable`).
- ``layout``: the results folder (table names, run metadata), readable without Spark.
- ``fingerprints``: a folder (``binaryFile``), Parquet/JSONL shards or a manifest ->
  Parquet ``fingerprints`` (with integer ``doc`` ranks) and ``skipped``; ``skip_rules``:
  the walker's name-level rules on the executors; ``local_tree``: what only a walk of a
  local root shows (symlinks, maildir ``tmp``, names that are not UTF-8).
- ``bucket_join``: the numpy side of the pairs join (block buckets out, verified pairs back).
- ``pairs``: exact all-pairs within K, buckets verified in numpy (``groups``,
  ``pairs-fp``, optionally ``pairs`` per document).
- ``families``: connected components for every k in 0..K, stored as label changes;
  ``resume``: the rounds kept in ``OUT/_resume`` so a re-run continues.
- ``interrupt``: Ctrl-C cancels the jobs (one line, no Py4J tracebacks).
- ``progress``: stage progress on stderr from Spark's status tracker.
- ``results``: a results folder loaded with pyarrow, and a read-only session for the UI.
- ``cli``: ``ditto-tui spark ...`` and ``ditto-tui open``; ``jobs``: spark-submit entry.
"""
