"""Generated stand-ins for the real corpora whose reports were slow (issue 34): a folder of
licence files, a crawled web site, a source tree, and a mail folder.

Deterministic for a seed; the words are invented (no real licence or page text). Each
shape keeps what made its real corpus costly or hard to read:

* ``licenses``: a dozen long templates copied thousands of times, each copy with its own
  copyright line, wrapped at its own width (the same words on other lines) and a few
  words edited, so that the copies of the commonest template chain into one wide family;
* ``html``: pages of a few site templates (the html pipeline groups pages by their
  structure, so a family's pages hold different articles: long, unlike texts to diff);
* ``code``: source files with shared headers, generated files that differ in names, and
  vendored copies with small edits (many short lines);
* ``mail``: a maildir of near-identical messages behind long ``Received:`` headers.
"""

from __future__ import annotations

import random
from pathlib import Path

_rng = random.Random(34)
WORDS = ["".join(_rng.choices("etaoinshrdlcumwfgypbvkjxqz", weights=range(26, 0, -1),
                              k=_rng.randint(2, 10))) for _ in range(8000)]
NAMES = ["".join(_rng.choices("etaoinshrdlcumwfgypbvk", k=_rng.randint(4, 9))).title()
         for _ in range(600)]


def _words(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(WORDS) for _ in range(n)]


def _wrap(words: list[str], width: int) -> list[str]:
    """Words filled into lines of at most ``width`` characters (0: one line)."""
    if width <= 0:
        return [" ".join(words)]
    lines: list[str] = []
    line: list[str] = []
    size = 0
    for w in words:
        if line and size + 1 + len(w) > width:
            lines.append(" ".join(line))
            line, size = [], 0
        size += len(w) + (1 if line else 0)
        line.append(w)
    if line:
        lines.append(" ".join(line))
    return lines


def _edit(rng: random.Random, words: list[str], edits: int) -> list[str]:
    out = list(words)
    for _ in range(edits):
        pos = rng.randrange(len(out))
        if rng.random() < 0.6:
            out[pos] = rng.choice(WORDS)
        elif rng.random() < 0.5:
            out.insert(pos, rng.choice(WORDS))
        elif len(out) > 5:
            del out[pos]
    return out


def make_licenses(root: Path, documents: int = 7000, seed: int = 1) -> Path:
    """Licence files: ``documents`` of them, about 90 % copies of 12 common templates and
    300 rarer ones."""
    rng = random.Random(seed)
    sizes = [170, 220, 1600, 5600, 2500, 120, 300, 900, 1100, 450, 3000, 700]
    weights = [400, 120, 140, 60, 40, 60, 50, 30, 30, 30, 20, 20]
    sizes += [rng.randint(100, 3000) for _ in range(300)]
    weights += [1] * 300
    templates = [[_words(rng, max(20, n // 6)) for _ in range(6)] for n in sizes]
    for d in range(documents):
        folder = root / f"pkg{d // 40:04d}" / f"p{d}"
        folder.mkdir(parents=True, exist_ok=True)
        if rng.random() < 0.1:  # a licence of its own
            paragraphs = [_words(rng, rng.randint(30, 200)) for _ in range(rng.randint(2, 6))]
        else:
            t = rng.choices(range(len(templates)), weights)[0]
            paragraphs = [_edit(rng, p, rng.choice((0, 0, 0, 1, 1, 2)))
                          for p in templates[t]]
        width = rng.choice((0, 60, 66, 72, 76, 78, 79, 80))
        head = (f"Copyright (c) {rng.randint(1998, 2025)} {rng.choice(NAMES)} "
                f"{rng.choice(NAMES)}")
        text = "\n\n".join(["\n".join(_wrap(head.split(), width)),
                            *("\n".join(_wrap(p, width)) for p in paragraphs)])
        name = rng.choice(("LICENSE", "LICENSE.txt", "COPYING", "LICENSE.md"))
        (folder / name).write_text(text + "\n")
    return root


_TAGS = ("div", "section", "article", "aside", "ul", "nav", "header", "footer")


def _template(rng: random.Random) -> tuple[str, str]:
    """The head and tail of a site's pages (scripts, styles, navigation, footer), with
    the site's own classes and nesting."""
    cls = _words(rng, 6)
    item = rng.choice(("li", "div", "span"))
    nav = "".join(f'<{item} class="{cls[0]}"><a class="{cls[1]}" href="/{w}/">{w.title()}</a>'
                  f"</{item}>" for w in _words(rng, rng.randint(20, 60)))
    style = "<style>" + "".join(f".{w}{{margin:{rng.randint(0, 9)}px}}"
                                for w in _words(rng, 80)) + "</style>"
    script = "<script>var cfg={" + ",".join(f"{w}:{rng.randint(0, 999)}"
                                            for w in _words(rng, 60)) + "};</script>"
    wrap = [rng.choice(_TAGS) for _ in range(rng.randint(1, 4))]
    opening = "".join(f'<{t} class="{c}">' for t, c in zip(wrap, cls[2:], strict=False))
    closing = "".join(f"</{t}>" for t in reversed(wrap))
    head = (f"<!DOCTYPE html><html><head><title>site</title>{style}{script}</head><body>"
            f'<header class="{cls[5]}"><nav><ul>{nav}</ul></nav></header><main>{opening}')
    foot = " ".join(_words(rng, 40))
    tail = f'{closing}</main><footer class="{cls[4]}"><p>{foot}</p></footer></body></html>'
    return head, tail


def _block(rng: random.Random, text: str) -> str:
    roll = rng.random()
    if roll < 0.5:
        return f"<p>{text}</p>"
    if roll < 0.7:
        items = "".join(f"<li>{w}</li>" for w in text.split()[: rng.randint(2, 9)])
        return f'<div class="{rng.choice(WORDS)}"><p>{text}</p><ul>{items}</ul></div>'
    if roll < 0.85:
        cells = "".join(f"<td>{w}</td>" for w in text.split()[: rng.randint(2, 6)])
        return f"<table><tr>{cells}</tr></table><p>{text}</p>"
    return f'<blockquote><p><em>{text}</em></p><span class="by">{rng.choice(NAMES)}</span></blockquote>'


def make_html(root: Path, pages: int = 6000, sites: int = 60, seed: int = 2) -> Path:
    """``pages`` pages of ``sites`` site templates; a tenth carry an article published
    elsewhere too (a near-duplicate text)."""
    rng = random.Random(seed)
    templates = [_template(rng) for _ in range(sites)]
    articles: list[list[list[str]]] = []
    for p in range(pages):
        s = rng.randrange(len(templates))
        head, tail = templates[s]
        if articles and rng.random() < 0.1:
            body = [_edit(rng, para, rng.choice((0, 1, 2))) for para in rng.choice(articles)]
        else:
            body = [_words(rng, rng.randint(20, 300)) for _ in range(rng.randint(3, 30))]
            if rng.random() < 0.05:
                articles.append(body)
        # a paragraph is one long line of text (html_text makes every <p> a line), in
        # blocks of the page's own structure
        content = "".join(_block(rng, " ".join(para)) for para in body)
        folder = root / f"site{s}" / f"section{p % 31:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page-{p}.html").write_text(f"{head}<h1>{rng.choice(NAMES)}</h1>"
                                               f"{content}{tail}\n")
    return root


def _code_lines(rng: random.Random, n: int) -> list[str]:
    out = []
    depth = 0
    for _ in range(n):
        kind = rng.random()
        pad = "    " * depth
        if kind < 0.12 and depth < 4:
            out.append(f"{pad}def {rng.choice(WORDS)}_{rng.choice(WORDS)}"
                       f"({', '.join(_words(rng, rng.randint(0, 4)))}):")
            depth += 1
        elif kind < 0.2 and depth:
            out.append(f"{pad}return {rng.choice(WORDS)}")
            depth -= 1
        elif kind < 0.25:
            out.append("")
        else:
            out.append(f"{pad}{rng.choice(WORDS)} = {rng.choice(WORDS)}."
                       f"{rng.choice(WORDS)}({', '.join(_words(rng, rng.randint(0, 3)))})")
    return out


def make_code(root: Path, files: int = 6000, seed: int = 3) -> Path:
    """``files`` source files: originals, vendored copies with edits (some re-indented),
    generated files of one shape, all under a shared licence header; and minified
    bundles (a few very long lines) copied with edits."""
    rng = random.Random(seed)
    header = ["# " + line for line in _wrap(_words(rng, 120), 76)]
    originals: list[list[str]] = []
    bundles: list[list[str]] = []
    shape = _code_lines(rng, 300)
    for f in range(files):
        folder = root / f"mod{f % 97:02d}" / f"sub{f % 13}"
        folder.mkdir(parents=True, exist_ok=True)
        roll = rng.random()
        if roll < 0.05:  # minified or data files: a few very long lines, copied with edits
            if not bundles or rng.random() < 0.3:
                bundles.append([";".join(f"{w}({','.join(_words(rng, 3))})"
                                         for w in _words(rng, rng.randint(300, 1200)))
                                for _ in range(rng.randint(1, 4))])
            body = [";".join(_edit(rng, line.split(";"), rng.choice((0, 1, 3))))
                    for line in rng.choice(bundles)]
            (folder / f"bundle_{f}.min.js").write_text("\n".join(body) + "\n")
            continue
        if originals and roll < 0.35:  # a vendored copy, edited, maybe re-indented
            body = list(rng.choice(originals))
            for _ in range(rng.choice((0, 1, 2, 4, 8))):
                pos = rng.randrange(len(body))
                body[pos] = _code_lines(rng, 1)[0]
            if rng.random() < 0.2:
                body = [line.replace("    ", "  ") for line in body]
        elif roll < 0.5:  # generated: the same lines with other names
            swap = dict(zip(_words(rng, 8), _words(rng, 8), strict=True))
            body = [" ".join(swap.get(w, w) for w in line.split(" ")) for line in shape]
        else:
            body = _code_lines(rng, rng.randint(40, 900))
            if rng.random() < 0.3:
                originals.append(body)
        (folder / f"file_{f}.py").write_text("\n".join(header + [""] + body) + "\n")
    return root


def make_mail(root: Path, messages: int = 12, seed: int = 4) -> Path:
    """A maildir (``inbox/cur``) of near-identical messages, each behind a few lines of
    ``Received:`` headers, with a subject, a sender and a date."""
    rng = random.Random(seed)
    box = root / "inbox"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True, exist_ok=True)
    body = _words(rng, 160)
    for m in range(messages):
        received = "".join(
            f"Received: from mx{h}.{rng.choice(WORDS)}.example ([10.0.{h}.{m}]) by "
            f"relay.example with ESMTPS id {rng.getrandbits(40):x};\n"
            f"\tMon, {m + 1} Jan 2024 10:{h:02d}:00 +0000\n" for h in range(4))
        text = (f"{received}From: \"Ada Sender {m}\" <ada{m}@example.org>\n"
                f"To: team@example.org\nSubject: Quarterly figures, take {m}\n"
                f"Date: Mon, {m + 1} Jan 2024 10:00:00 +0000\nMessage-ID: <{m}@example.org>\n\n"
                + "\n".join(_wrap(_edit(rng, body, m % 3), 72)) + "\n")
        (box / "cur" / f"17000{m:05d}.M{m}P{m}.host:2,S").write_text(text)
    return root
