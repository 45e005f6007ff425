"""Shards and manifests give the same fingerprints as the folder they were made from, and
the skewed case (many 10 % edits of one text) pairs exactly like brute force.

A user with a corpus already in Parquet or JSON lines (one document per row), or with a
list of paths, fingerprints it without Spark listing a folder; ids stay strings in the
results, numbers inside the jobs.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from ditto_tui.core.families.clusters import all_pairs, clusters
from ditto_tui.core.fingerprint.pipeline import make_pipeline

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (extra 'spark')")
pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (extra 'spark')")
pq = pytest.importorskip("pyarrow.parquet")

from ditto_tui.scale.session import find_java  # noqa: E402

if find_java() is None:
    pytest.skip("Java is not installed (Spark needs Java 17+)", allow_module_level=True)

from ditto_tui.scale.families import families_job  # noqa: E402
from ditto_tui.scale.fingerprints import Source, fingerprint_corpus  # noqa: E402
from ditto_tui.scale.pairs import pairs_job  # noqa: E402
from ditto_tui.scale.results import load_results  # noqa: E402
from ditto_tui.scale.session import build_session  # noqa: E402
from tests.scale.corpus_maker import WORDS  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def spark():
    session = build_session("local[2]", shuffle_partitions=4, conf={"spark.ui.enabled": "false"})
    yield session
    # the session is shared with other modules (getOrCreate); leave it running


def _skewed_texts(n: int, seed: int = 3) -> dict[str, str]:
    """``n`` documents, most a ~10 % word edit of one text (a template with many variants)."""
    rng = random.Random(seed)
    base = [rng.choice(WORDS) for _ in range(300)]
    docs = {}
    for i in range(n):
        words = list(base)
        if i % 10 == 9:  # a few unrelated documents
            words = [rng.choice(WORDS) for _ in range(300)]
        for _ in range(rng.randint(0, 30)):
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        docs[f"doc-{i:05d}"] = " ".join(words)
    return docs


def test_the_skewed_case_pairs_equal_brute_force(spark, tmp_path: Path) -> None:
    texts = _skewed_texts(1500)
    shard = tmp_path / "shards"
    shard.mkdir()
    ids = sorted(texts)
    half = len(ids) // 2
    for part, chunk in enumerate((ids[:half], ids[half:])):
        table = pa.table({"id": chunk, "text": [texts[i] for i in chunk]})
        pq.write_table(table, str(shard / f"part-{part}.parquet"))
    out = tmp_path / "out"
    summary = fingerprint_corpus(spark, Source("parquet", (str(shard),)), str(out))
    assert summary.documents == len(texts) and summary.skipped == 0
    pipeline = make_pipeline()
    fps = np.array([int(pipeline.fingerprint(texts[i].encode())) for i in ids], dtype=np.uint64)
    got_fps = pq.read_table(str(out / "fingerprints")).to_pydict()
    assert dict(zip(got_fps["id"], np.array(got_fps["fp"]).view(np.uint64).tolist(), strict=True)) == dict(
        zip(ids, fps.tolist(), strict=True)
    )
    k = 8
    pairs = pairs_job(spark, str(out), k, expand=True)
    i, j, d = all_pairs(fps, k)
    expected = {(ids[a], ids[b], int(c)) for a, b, c in zip(i, j, d, strict=True)}
    assert len(expected) > 50_000  # skewed: the template's variants pair massively
    table = pq.read_table(str(out / "pairs")).to_pydict()
    got = list(zip(table["a"], table["b"], table["distance"], strict=True))
    assert len(got) == len(set(got)) and set(got) == expected
    assert pairs.doc_pairs == len(expected)
    families_job(spark, str(out), k)
    loaded = load_results(out)
    for level in (0, 3, 8):
        assert loaded.families_at(level) == clusters(ids, fps, level)


def test_jsonl_shards_and_a_manifest_read_like_the_folder(spark, tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    docs = {
        "a.txt": b"the first document, plain text\n",
        "sub/b.txt": b"the first document, plain text!\n",
        "sub/_hidden.txt": b"an underscore name is read too\n",
        "bin.dat": b"\x00\x01binary",
        "empty.txt": b"",
    }
    for rel, data in docs.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    pipeline = make_pipeline()
    expected = {rel: int(pipeline.fingerprint(d)) for rel, d in docs.items() if rel != "bin.dat"}

    manifest = root / "list.txt"
    manifest.write_text("\n".join([*docs, "missing.txt", "# a comment", ""]) + "\n")
    out = tmp_path / "m"
    s = fingerprint_corpus(spark, Source("manifest", (str(manifest),)), str(out))
    table = pq.read_table(str(out / "fingerprints")).to_pydict()
    got = dict(zip(table["id"], np.array(table["fp"]).view(np.uint64).tolist(), strict=True))
    assert got == expected
    assert s.reasons == {"binary file": 1, "listed in the manifest but not found": 1}
    assert load_results(out).root_uri == f"file:{root}"

    jsonl = tmp_path / "docs.jsonl"
    with jsonl.open("w") as f:
        for rel, data in docs.items():
            if rel != "bin.dat":
                f.write(json.dumps({"url": rel, "body": data.decode()}) + "\n")
        f.write(json.dumps({"url": "nothing", "body": None}) + "\n")
    out = tmp_path / "j"
    s = fingerprint_corpus(spark, Source("jsonl", (str(jsonl),), "url", "body"), str(out))
    table = pq.read_table(str(out / "fingerprints")).to_pydict()
    got = dict(zip(table["id"], np.array(table["fp"]).view(np.uint64).tolist(), strict=True))
    assert got == expected and s.reasons == {"no text (null)": 1}
    with pytest.raises(ValueError, match="no column 'id'"):
        fingerprint_corpus(spark, Source("jsonl", (str(jsonl),)), str(tmp_path / "x"))


def test_duplicate_shard_ids_are_refused(spark, tmp_path: Path) -> None:
    pq.write_table(pa.table({"id": ["a", "a"], "text": ["x", "y"]}), str(tmp_path / "s.parquet"))
    with pytest.raises(ValueError, match="two documents have the id 'a'"):
        fingerprint_corpus(spark, Source("parquet", (str(tmp_path / "s.parquet"),)), str(tmp_path / "o"))
