"""Every kind of real corpus through Spark, checked id for id against the in-process CLI.

Three generated stand-ins -- a source tree (dot and underscore folders, ignored folders, a
name that is not UTF-8), an HTML crawl (pages without an extension, files that are not
pages, symlinks to a page and to a folder inside the root) and a mail store (maildirs with
their ``tmp`` folders, an mbox) -- go through ``fingerprint``, ``pairs`` and ``families``
at K = 8 on Spark. Each must give the fingerprints ``ditto-tui fingerprint`` prints, the
skips it reports, and at k = 0, 3, 6 and 8 the families ``ditto-tui cluster`` prints. The
one difference allowed: Spark cannot open a file whose name is not UTF-8, so that file is
a skip there (with its reason) and a document in the CLI (unique text, so no family).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scale.corpus_maker import WORDS, _edit, _lines, _text

pytest.importorskip("pyspark", reason="pyspark is not installed (extra 'spark')")
pytest.importorskip("pyarrow", reason="pyarrow is not installed (extra 'spark')")

from ditto_tui.corpus.documents import ScanOptions, display_id  # noqa: E402
from ditto_tui.scale.families import families_job  # noqa: E402
from ditto_tui.scale.fingerprints import (  # noqa: E402
    UNDECODABLE_REASON,
    PipelineSpec,
    fingerprint_corpus,
)
from ditto_tui.scale.pairs import pairs_job  # noqa: E402
from ditto_tui.scale.results import load_results  # noqa: E402
from ditto_tui.scale.session import build_session, find_java  # noqa: E402

if find_java() is None:
    pytest.skip("Java is not installed (Spark needs Java 17+)", allow_module_level=True)

pytestmark = pytest.mark.slow
K = 8
LEVELS = (0, 3, 6, 8)
SKIP_LINE = re.compile(r"^ditto-tui: skipped (.*): ([^:]*)$")


def _put(root: Path, rel: str, data: bytes | str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def _variants(rng: random.Random, n: int, words: int = 150) -> list[str]:
    base = _text(rng, words)
    return [_lines(_edit(rng, base, rng.choice((0, 1, 2, 4, 8, 16))), rng) for _ in range(n)]


def source_tree(root: Path) -> None:
    """Modules copied and edited across packages, hidden and underscore folders,
    folders the defaults ignore, a hard link, and one name in Latin-1."""
    rng = random.Random(1)
    for m in range(6):
        for i, text in enumerate(_variants(rng, 4)):
            folder = ("src/pkg", "src/pkg/_internal", "vendor/_vendored", ".github/scripts")[i]
            _put(root, f"{folder}/mod{m}.py", "# module\n" + text)
    _put(root, "src/pkg/__init__.py", "")
    _put(root, "_build/notes.txt", _lines(_text(rng, 80), rng))
    _put(root, ".config/settings.toml", "[tool]\nname = 'x'\n")
    _put(root, ".git/config", "[core]\n")  # ignored by default, both sides
    _put(root, "node_modules/a/index.js", "module.exports = 1;\n")
    _put(root, "assets/logo.png", b"\x89PNG\r\n\x1a\n\x00\x01binary")
    os.link(root / "src/pkg/mod1.py", root / "src/pkg/mod1_copy.py")  # a hard link
    (root / "src").joinpath(os.fsdecode(b"caf\xe9.py")).write_text(
        "# latin-1 name\n" + _lines(_text(rng, 200), rng))


def html_crawl(root: Path) -> None:
    """Pages of a few templates, saved with and without ``.html``; feeds, styles and
    images that are no pages; a symlink to a page and one to a folder."""
    rng = random.Random(2)
    templates = [
        "<!DOCTYPE html>\n<html><head><title>{t}</title></head><body><nav><a href='/'>home"
        "</a><a href='/blog'>blog</a></nav><main><h1>{t}</h1>{body}</main>"
        "<footer><p>footer</p></footer></body></html>\n",
        "<html><body><div class='page'><table><tr><td>{t}</td></tr></table>{body}</div>"
        "</body></html>\n",
        "  <!-- saved page -->\n<div><ul><li>{t}</li></ul>{body}<form><input></form></div>\n",
    ]
    for i in range(40):
        template = templates[i % 3]
        paras = "".join(f"<p>{' '.join(rng.choice(WORDS) for _ in range(8))}</p>"
                        for _ in range(rng.randint(1, 4 + i % 5)))
        page = template.format(t=rng.choice(WORDS), body=paras)
        rel = f"site/blog/post-{i}" if i % 2 else f"site/pages/p{i}.html"
        _put(root, rel, page)
    _put(root, "site/feed", '{"items": []}\n')
    _put(root, "site/style.css", "body { color: black }\n")
    _put(root, "site/img/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    _put(root, "site/empty-page", "")
    _put(root, "site/EXTRA.HTM", "<html><body><p>upper case</p></body></html>")
    os.symlink("blog/post-3", root / "site" / "latest")
    os.symlink("blog", root / "site" / "archive")


def mail_store(root: Path) -> None:
    """Maildirs of newsletters (near-duplicates) with ``tmp`` folders holding partial
    deliveries, a folder named tmp that is no maildir's, and an mbox."""
    rng = random.Random(3)
    letters = _variants(rng, 12, 120)
    for i, body in enumerate(letters):
        box = ("Mail/inbox", "Mail/lists/news")[i % 2]
        part = ("cur", "new")[i % 3 == 0]
        head = f"From: news@example.org\nSubject: issue {i}\n\n"
        _put(root, f"{box}/{part}/17000{i:02d}.M{i}P1.host:2,S", head + body)
        _put(root, f"{box}/tmp/17000{i:02d}.M{i}P9.host", head + body[:40])
    _put(root, "Mail/notes/tmp/scratch.txt", _lines(_text(rng, 60), rng))  # not a maildir
    mbox = "".join(f"From user{i}@example.org Mon Jan  1 00:00:00 2024\nSubject: note {i}\n\n"
                   + body + "\n" for i, body in enumerate(_variants(rng, 5, 90)))
    _put(root, "Mail/archive.mbox", mbox)


CORPORA = {"source": (source_tree, "ditto"), "html": (html_crawl, "html"),
           "mail": (mail_store, "ditto")}


@pytest.fixture(scope="module")
def spark():
    session = build_session("local[2]", shuffle_partitions=4, conf={"spark.ui.enabled": "false"})
    yield session
    session.stop()


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "ditto_tui", *args, "--no-cache", "."],
                          cwd=root, capture_output=True, text=True, timeout=300,
                          errors="surrogateescape")
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.mark.parametrize("kind", sorted(CORPORA))
def test_a_corpus_through_spark_equals_the_cli_id_for_id(spark, tmp_path, kind) -> None:
    make, pipeline = CORPORA[kind]
    root = tmp_path / kind
    make(root)
    out = str(tmp_path / "out")
    options = ScanOptions()
    summary = fingerprint_corpus(spark, str(root), out, PipelineSpec(pipeline), options)
    pairs_job(spark, out, K)
    families_job(spark, out, K)
    results = load_results(out)

    listed = _cli(root, "fingerprint", "--pipeline", pipeline)
    cli_fps = {display_id(i): fp  # the CLI prints the raw bytes of a name
               for fp, i in (line.split("\t") for line in listed.stdout.splitlines())}
    cli_skips = dict(m.groups() for m in map(SKIP_LINE.match, listed.stderr.splitlines()) if m)
    spark_fps = {i: f"{int(fp):016x}" for i, fp in zip(results.ids, results.fps, strict=True)}
    spark_skips = dict(results.skipped)
    undecodable = {i for i, reason in spark_skips.items() if reason == UNDECODABLE_REASON}
    assert undecodable == ({r"src/caf\xe9.py"} if kind == "source" else set())  # escaped
    assert {i for i in cli_fps if i not in spark_fps} == undecodable
    assert {i: fp for i, fp in cli_fps.items() if i not in undecodable} == spark_fps
    assert {i: r for i, r in spark_skips.items() if i not in undecodable} == cli_skips
    assert summary.documents == len(spark_fps) and len(spark_fps) >= 15

    for k in LEVELS:
        shown = _cli(root, "cluster", "-k", str(k), "--json", "--pipeline", pipeline)
        cli_families = [[m["id"] for m in json.loads(line)["members"]]
                        for line in shown.stdout.splitlines()]
        assert results.families_at(k, min_size=2) == cli_families, f"k={k}"
    assert any(len(f) >= 3 for f in results.families_at(3, min_size=2))
    if kind == "html":  # pages without an extension are documents, the rest is not
        assert "site/blog/post-1" in spark_fps and "site/feed" in spark_skips
        assert spark_skips["site/latest"] == "same file as site/blog/post-3"
        assert not any(i.startswith("site/archive/") for i in spark_fps)
    if kind == "source":
        assert spark_skips["src/pkg/mod1_copy.py"] == "same file as src/pkg/mod1.py"
    if kind == "mail":
        assert not any("/tmp/" in i and i.startswith("Mail/inbox") for i in spark_fps)
        assert "Mail/notes/tmp/scratch.txt" in spark_fps
        assert "Mail/archive.mbox#5" in spark_fps
