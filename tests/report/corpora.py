"""Generated corpora for the report tests: near-duplicate families, and a hostile one.

Deterministic for a seed. Variants differ from their original by a few words, so with the
default pipeline (4-character shingles) they land within a few bits of it.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

_rng = random.Random(3)
WORDS = ["".join(_rng.choices("etaoinshrdlcumwfgypbvk", k=_rng.randint(3, 9)))
         for _ in range(5000)]

#: Lines a hostile document carries: each would act if it reached the page unescaped.
PAYLOADS = (
    "</script><script>document.title='PWNED-script';document.body.setAttribute('data-pwned','script')</script>",
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','img');document.title='PWNED-img'\">",
    "<a href=\"javascript:document.title='PWNED-link'\" id=\"pwned-link\">click me</a>",
    "<svg onload=\"document.body.setAttribute('data-pwned','svg')\"><rect/></svg>",
    "<!-- an open comment that would swallow the rest of the page",
    "<style>body{display:none}</style><base href=\"https://evil.example/\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:document.title='PWNED-meta'\">",
    "</textarea></title></pre></td></tr></table></details><div id=\"pwned-div\">injected</div>",
    "\" onmouseover=\"document.title='PWNED-attr'\" x=\"",
    "&lt;script&gt; stays text &amp; entities stay literal; ]]> and \x1b[31mred\x1b[0m",
)

#: File names that are markup too (no '/' possible in a name).
HOSTILE_NAMES = (
    "<img src=x onerror=document.body.setAttribute('data-pwned','name')>.txt",
    "\"><script>document.title='PWNED-name'<\\script>.txt",
    "javascript:alert(1).txt",
)


def text(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(WORDS) for _ in range(n)]


def edit(rng: random.Random, words: list[str], edits: int) -> list[str]:
    out = list(words)
    for _ in range(edits):
        out[rng.randrange(len(out))] = rng.choice(WORDS)
    return out


def lines(words: list[str], width: int = 10) -> str:
    return "\n".join(" ".join(words[i:i + width]) for i in range(0, len(words), width)) + "\n"


def make_families(root: Path, *, families: int = 4, members: int = 3, uniques: int = 3,
                  words: int = 300, seed: int = 1) -> Path:
    """``families`` originals with ``members - 1`` edited variants each, plus unique
    documents and one binary file (a skip)."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for f in range(families):
        base = text(rng, words)
        folder = root / f"family-{f}"
        folder.mkdir(exist_ok=True)
        (folder / "original.txt").write_text(lines(base))
        for v in range(1, members):
            (folder / f"variant-{v}.txt").write_text(lines(edit(rng, base, 1 + v % 2)))
    unique = root / "unique"
    unique.mkdir(exist_ok=True)
    for u in range(uniques):
        (unique / f"u{u}.txt").write_text(lines(text(rng, words)))
    (root / "blob.bin").write_bytes(b"\x00\x01binary\x00" * 10)
    return root


def make_hostile(root: Path, *, seed: int = 5) -> Path:
    """A family of documents full of markup, under hostile names, plus an HTML family."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    base = text(rng, 400)
    payload = "\n".join(PAYLOADS)
    for n, name in enumerate(HOSTILE_NAMES):
        body = edit(rng, base, n)
        # the payload sits inside a changed region too: it shows up inside <ins>/<del> spans
        (root / name).write_text(lines(body[:200]) + f"{payload}\nchange {n} {PAYLOADS[n]}\n"
                                 + lines(body[200:]))
    # a name that is not valid UTF-8 (shown with a \xff escape)
    odd = os.path.join(os.fsencode(root), b"not-utf8-\xff-name.txt")
    with open(odd, "wb") as handle:
        handle.write((lines(edit(rng, base, 2)[:200]) + payload + "\n"
                      + lines(base[200:])).encode())
    page = ("<html><head><title>t</title><script>document.title='PWNED-html'</script></head>"
            "<body><p>{}</p><p>&lt;img src=x onerror=alert(1)&gt; decoded by the text view</p>"
            "</body></html>\n")
    for n in range(2):
        (root / f"page-{n}.html").write_text(page.format(" ".join(edit(rng, base, n))))
    return root
