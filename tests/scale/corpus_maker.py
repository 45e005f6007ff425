"""A generated corpus that looks like a real one: families of edited near-duplicates,
unique documents, exact copies, binary files, an mbox, ignored and hidden paths.

Used by tests/scale and benchmarks/bench_spark.py. Deterministic for a given seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

_LETTERS = "etaoinshrdlcumwfgypbvkjxqz"
_rng = random.Random(1)
#: A 20,000-word invented vocabulary, letters weighted like English.
WORDS = [
    "".join(_rng.choices(_LETTERS, weights=range(26, 0, -1), k=_rng.randint(2, 9)))
    for _ in range(20000)
]


@dataclass(frozen=True)
class CorpusShape:
    """How many of each kind of file to write."""

    families: int = 300  # originals, each with 2..8 edited variants
    uniques: int = 800
    copies: int = 120  # exact duplicates of family members
    binaries: int = 25
    words: tuple[int, int] = (60, 400)


def _text(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(WORDS) for _ in range(n)]


def _edit(rng: random.Random, words: list[str], edits: int) -> list[str]:
    out = list(words)
    for _ in range(edits):
        op = rng.random()
        pos = rng.randrange(len(out))
        if op < 0.4:
            out[pos] = rng.choice(WORDS)
        elif op < 0.7:
            out.insert(pos, rng.choice(WORDS))
        elif len(out) > 5:
            del out[pos]
    return out


def _lines(words: list[str], rng: random.Random) -> str:
    lines, line = [], []
    for w in words:
        line.append(w)
        if len(line) >= rng.randint(6, 14):
            lines.append(" ".join(line))
            line = []
    lines.append(" ".join(line))
    return "\n".join(lines) + "\n"


def make_corpus(root: Path, shape: CorpusShape = CorpusShape(), seed: int = 7) -> int:
    """Write the corpus under ``root`` (created); returns the number of files written."""
    rng = random.Random(seed)
    written: list[Path] = []

    def put(rel: str, data: bytes) -> Path:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
        return path

    members: list[Path] = []
    for f in range(shape.families):
        base = _text(rng, rng.randint(*shape.words))
        folder = f"topic{f % 23:02d}/fam{f:04d}"
        members.append(put(f"{folder}/original.txt", _lines(base, rng).encode()))
        for v in range(rng.randint(2, 8)):
            edited = _edit(rng, base, rng.choice((1, 1, 2, 3, 5, 8, 20)))
            ext = rng.choice((".txt", ".md", ".rst"))
            members.append(put(f"{folder}/variant-{v}{ext}", _lines(edited, rng).encode()))
    for u in range(shape.uniques):
        name = rng.choice(("notes", "report", "draft", "Ünïcode name", "with space"))
        put(f"misc/u{u % 17:02d}/{name}-{u}.txt", _lines(_text(rng, rng.randint(*shape.words)), rng).encode())
    for c in range(shape.copies):
        src = rng.choice(members)
        put(f"copies/c{c % 9}/copy-{c}{src.suffix}", src.read_bytes())
    for b in range(shape.binaries):
        blob = bytes(rng.randrange(256) for _ in range(rng.randint(50, 3000)))
        put(f"assets/blob-{b}.bin", b"\x89PNG\r\n\x1a\n\x00" + blob)
    for e in range(12):  # many identical tiny files: one fingerprint, a dense group
        put(f"empty/e{e}.txt", b"")
        put(f"stub/s{e}.txt", b"TODO\n")
    mbox = "".join(
        f"From user{i}@example.org Mon Jan  1 00:00:00 2024\nSubject: note {i}\n\n"
        + _lines(_text(rng, 80), rng) + "\n"
        for i in range(5)
    )
    put("mail/archive.mbox", mbox.encode())
    put("web/page.html", b"<html><body><p>hello world</p><div>page one</div></body></html>\n")
    put("web/Other.HTM", b"<html><body><p>hello there</p></body></html>\n")
    put("node_modules/pkg/index.js", b"module.exports = 1;\n")
    put("build/out.log", b"ignored by .dittoignore\n")
    put(".dittoignore", b"*.log\n# comment\nbuild/\n")
    put("pkg/__init__.py", b"# hidden from Spark's listing\n")
    put("pkg/.env", b"SECRET=1\n")
    put("_drafts/d.txt", b"a draft\n")
    put("_vendor/.hidden/deep.txt", b"hidden twice over\n")
    put("odd/caf\udce9-latin1.txt", b"a name in Latin-1, not UTF-8\n")  # b"caf\xe9"
    put("big/huge.txt", _lines(_text(rng, 30000), rng).encode())  # over the test's size limit
    return len(written)
