"""The package's import graph: no circles (counting function-local and type-checking
imports), and every layer imports only the layers below it.

Read from the source with :mod:`ast` (nothing is imported): an ``import a.b`` or
``from a.b import c`` anywhere in a module, at any depth, is an edge to ``a.b`` (or to
``a.b.c`` when that is a module). Importing a module also runs its packages' ``__init__``,
but that is Python's doing, not an edge of ours: it is not counted.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "ditto_tui"

#: Each layer and the layers it may import (besides itself and the ``_version`` leaf,
#: which any layer may read). The explorer's layers flow down: core, corpus, explore, ui;
#: the report is gathered from core and corpus; the library (``_lib``, ``api``) stands on
#: core and corpus. The two command lines sit on top of everything: the main one (``cli``)
#: runs the Spark layer's commands, and those (``scale.cli``) parse with ``cli.argtypes``;
#: their modules still form no circle (the first test).
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "corpus": {"core"},
    "report": {"core", "corpus"},
    "explore": {"core", "corpus", "report"},
    "ui": {"core", "corpus", "report", "explore"},
    "_lib": {"core", "corpus"},
    "api": {"core", "corpus", "_lib"},
    "cli": {"core", "corpus", "report", "explore", "ui", "scale"},
    "scale": {"core", "corpus", "report", "explore", "ui", "cli"},
    "launch": {"core", "corpus", "cli"},
    "__main__": {"launch"},
    "": {"api"},
    "_version": set(),
}


def modules() -> dict[str, Path]:
    """Module name -> file, for every module of the package (stubs of compiled
    extensions included: an import of one is an edge to it, not to its package)."""
    found: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py*")):
        if path.suffix not in (".py", ".pyi") or "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found.setdefault(".".join(parts), path)
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """Every module of the package that ``name`` imports, wherever the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def owner(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [owner(alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else owner(base)
                for alias in node.names
            ]
        else:
            continue
        yield from (t for t in targets if t is not None and t != name)


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: set(imports(name, path, known)) for name, path in known.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def layer(module: str) -> str:
    """The layer a module belongs to: its top folder or module under ``ditto_tui``
    (``""`` for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_layer_has_a_rule() -> None:
    assert {layer(m) for m in graph()} <= set(ALLOWED)


def test_no_import_circles_even_through_local_imports() -> None:
    assert circles(graph()) == []


def test_each_layer_imports_only_the_layers_below_it() -> None:
    wrong = sorted(
        f"{source} imports {target}"
        for source, targets in graph().items()
        for target in targets
        if layer(target) not in (layer(source), "_version")
        and layer(target) not in ALLOWED[layer(source)]
    )
    assert wrong == []


def test_the_graph_is_read_from_every_kind_of_import() -> None:
    """The reader finds module-level, function-local, relative and type-checking imports
    (a test of the test: a circle hidden in any of them would be found)."""
    edges = graph()
    assert "ditto_tui.core.fingerprint.engine" in edges["ditto_tui.core.fingerprint.featurize"]  # module level
    assert "ditto_tui.core.fingerprint._compiled" in edges["ditto_tui.core.fingerprint.engine"]  # local, a stub
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
