"""A strict check of the report's HTML: html5lib's spec parser in strict mode (any parse
error of the HTML standard fails), then a structural pass built on ``html.parser``.

Stricter than browsers on purpose, so a broken tag fails a test at once: every element
is closed explicitly and in order (void elements excepted), ids are unique, the only
script is the page's own, no attribute is an event handler or a ``style``, every link is a
``#fragment`` to an existing id, and nothing but whitespace follows ``</html>``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser

import html5lib

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
SVG_SELF_CLOSING = {"line", "rect", "circle", "path"}


@dataclass
class Page:
    """What the check collected: elements by tag, ids, texts by element id, script/style."""

    tags: Counter = field(default_factory=Counter)
    ids: list[str] = field(default_factory=list)
    classes: Counter = field(default_factory=Counter)
    attributes: Counter = field(default_factory=Counter)
    root_attributes: dict[str, str] = field(default_factory=dict)
    scripts: list[str] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    hrefs: list[str] = field(default_factory=list)
    metas: list[dict[str, str]] = field(default_factory=list)
    title: str = ""
    text: list[str] = field(default_factory=list)


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.closed_html = False
        self.doctype = False
        self._raw: str | None = None

    def _where(self) -> str:
        line, col = self.getpos()
        return f"line {line}, column {col}"

    def handle_decl(self, decl: str) -> None:
        if decl.lower() == "doctype html":
            self.doctype = True

    def _attrs(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = [name for name, _ in attrs]
        if len(names) != len(set(names)):
            self.errors.append(f"duplicate attribute on <{tag}> at {self._where()}")
        if tag == "html":
            self.page.root_attributes = {k: v or "" for k, v in attrs}
        for name, value in attrs:
            self.page.attributes[name] += 1
            if name.startswith("on"):
                self.errors.append(f"event handler {name} on <{tag}> at {self._where()}")
            if name == "style":
                self.errors.append(f"style attribute on <{tag}> at {self._where()}")
            if name == "id":
                self.page.ids.append(value or "")
            if name == "class" and value:
                self.page.classes.update(f"{tag}.{c}" for c in value.split())
            if name in ("href", "src", "action", "formaction", "xlink:href"):
                self.page.hrefs.append(value or "")
        if tag == "meta":
            self.page.metas.append({k: v or "" for k, v in attrs})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.closed_html:
            self.errors.append(f"<{tag}> after </html> at {self._where()}")
        self.page.tags[tag] += 1
        self._attrs(tag, attrs)
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag in ("script", "style", "title"):
            self._raw = ""

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID and not (tag in SVG_SELF_CLOSING and "svg" in self.stack):
            self.errors.append(f"self-closing <{tag}/> at {self._where()}")
        self.page.tags[tag] += 1
        self._attrs(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            self.errors.append(f"end tag </{tag}> of a void element at {self._where()}")
            return
        if not self.stack or self.stack[-1] != tag:
            top = self.stack[-1] if self.stack else "nothing"
            self.errors.append(f"</{tag}> closes <{top}> at {self._where()}")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if tag in ("script", "style", "title") and self._raw is not None:
            {"script": self.page.scripts, "style": self.page.styles}.get(tag, []).append(self._raw)
            if tag == "title" and "head" in self.stack:
                self.page.title = self._raw
            self._raw = None
        if tag == "html":
            self.closed_html = True

    def handle_data(self, data: str) -> None:
        if self._raw is not None:
            self._raw += data
        elif self.closed_html and data.strip():
            self.errors.append(f"text after </html> at {self._where()}")
        else:
            self.page.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.errors.append(f"comment at {self._where()}: {data[:40]!r}")

    def handle_pi(self, data: str) -> None:
        self.errors.append(f"processing instruction at {self._where()}")


def check_html(page: str, *, script: str | None = None) -> Page:
    """Parse ``page`` strictly; raise AssertionError listing the problems found.

    ``script``: when given, the page must hold exactly this one inline script.
    """
    spec = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    try:
        spec.parse(page)
    except html5lib.html5parser.ParseError as exc:
        (line, col), code, _ = spec.errors[-1]
        raise AssertionError(f"HTML parse error at line {line}, column {col}: {exc}") from None
    checker = _Checker()
    checker.feed(page)
    checker.close()
    errors = list(checker.errors)
    if not checker.doctype:
        errors.append("no <!DOCTYPE html>")
    if checker.stack:
        errors.append(f"unclosed elements: {checker.stack}")
    if not checker.closed_html:
        errors.append("no </html>")
    dupes = [i for i, n in Counter(checker.page.ids).items() if n > 1]
    if dupes:
        errors.append(f"duplicate ids: {dupes[:10]}")
    ids = set(checker.page.ids)
    for href in checker.page.hrefs:
        if not href.startswith("#"):
            errors.append(f"link that leaves the page: {href!r}")
        elif href[1:] not in ids:
            errors.append(f"link to a missing id: {href!r}")
    if script is not None and checker.page.scripts != [script]:
        errors.append(f"{len(checker.page.scripts)} scripts, expected only the page's own")
    if errors:
        raise AssertionError("invalid report HTML:\n  " + "\n  ".join(errors[:30]))
    return checker.page
