"""The public API is exactly these names: adding or removing one is a decision, not an accident."""

from __future__ import annotations

import importlib
import inspect

import ditto_tui
import ditto_tui.api

PUBLIC = {
    "ChangeBatch",
    "CorpusSession",
    "Family",
    "Fingerprint",
    "Fingerprinted",
    "Index",
    "IndexFileError",
    "Match",
    "Oracle",
    "Pipeline",
    "PipelineMismatchError",
    "Skipped",
    "distance",
    "ditto",
    "fingerprint",
    "fingerprint_folder",
    "fingerprint_many",
    "html_distance",
    "load_index",
    "pipeline",
    "similarity",
}

# Public methods and properties of the public classes defined by the library layer.
MEMBERS = {
    "Pipeline": {"identity", "name", "accepts", "accepts_head", "fingerprint", "fingerprint_many"},
    "Index": {
        "k", "pipeline", "ids", "fingerprint", "add", "add_document", "add_many", "remove",
        "near", "clusters", "save", "load", "from_documents",
    },
    "Oracle": {"k", "see", "see_many", "seen", "seen_within"},
    "Fingerprinted": {"id", "fingerprint"},
}


def test_package_all_is_pinned() -> None:
    assert set(ditto_tui.__all__) == PUBLIC | {"__version__"}
    assert set(ditto_tui.api.__all__) == PUBLIC


def test_every_public_name_resolves_to_the_api_object() -> None:
    for name in PUBLIC:
        assert getattr(ditto_tui, name) is getattr(ditto_tui.api, name), name
        assert name in dir(ditto_tui)


def test_unknown_attribute_raises() -> None:
    try:
        ditto_tui.NearIndex  # noqa: B018 - internal, not re-exported
    except AttributeError as exc:
        assert "NearIndex" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("internal name leaked into the package namespace")


def test_public_members_are_pinned() -> None:
    for cls_name, expected in MEMBERS.items():
        cls = getattr(ditto_tui, cls_name)
        names = {n for n, _ in inspect.getmembers(cls)} | set(getattr(cls, "__annotations__", {}))
        found = {n for n in names if not n.startswith("_")}
        if cls_name == "Fingerprinted":  # NamedTuple brings count/index
            found -= {"count", "index"}
        assert found == expected, cls_name


def test_every_public_name_has_a_docstring() -> None:
    for name in PUBLIC:
        obj = getattr(ditto_tui, name)
        assert inspect.getdoc(obj), name
    for cls_name, members in MEMBERS.items():
        cls = getattr(ditto_tui, cls_name)
        if cls_name in ("Fingerprinted", "Pipeline"):
            continue  # fields: documented in the class docstring
        for m in members:
            assert inspect.getdoc(getattr(cls, m)), f"{cls_name}.{m}"


def test_private_modules_declare_all() -> None:
    for mod in ("pipelines", "index", "indexfile", "oracle", "folder"):
        module = importlib.import_module(f"ditto_tui._lib.{mod}")
        assert module.__all__, mod
        for name in module.__all__:
            assert hasattr(module, name), (mod, name)
