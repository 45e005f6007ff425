"""The user guide tells the truth: its command outputs and its Python examples are re-run.

* Every ```console block of ``docs/*.md`` is a shell session: ``$ command`` lines run
  (bash, from the repository root, stderr discarded unless the command redirects it)
  and the lines after each must be exactly its output.
  ``python tests/test_docs.py --update`` rewrites those outputs after a deliberate change.
* ``docs/library.md`` and ``docs/index.md`` are doctests (every ``>>>`` example runs).
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```console\n(.*?)^```\n", re.S | re.M)
DOCTEST_PAGES = ["library.md", "index.md"]


def _sessions(text: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of every console block, in order."""
    out: list[tuple[str, str]] = []
    for block in FENCE.finditer(text):
        for part in re.split(r"^(?=\$ )", block.group(1), flags=re.M):
            if part.startswith("$ "):
                command, _, expected = part[2:].partition("\n")
                out.append((command, expected))
    return out


def _run(command: str, cache: str) -> str:
    env = {**os.environ, "XDG_CACHE_HOME": cache, "COLUMNS": "80", "NO_COLOR": "1"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    wrapped = command if "2>" in command else f"{{ {command}; }} 2>/dev/null"
    done = subprocess.run(
        ["bash", "-c", wrapped], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    return done.stdout


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if FENCE.search(p.read_text(encoding="utf-8")))


def _blocks() -> list[tuple[Path, str]]:
    """Every console block, named by its page and first line: one test each, so that the
    runner can spread a long page's blocks over its workers (each block starts with an
    empty cache; the commands of one block run in order)."""
    blocks = []
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        for block in FENCE.finditer(text):
            line = text.count("\n", 0, block.start()) + 1
            blocks.append(pytest.param(page, block.group(0), id=f"{page.name}:{line}"))
    return blocks


@pytest.mark.parametrize(("page", "block"), _blocks())
def test_console_blocks_show_real_output(page: Path, block: str, tmp_path: Path) -> None:
    sessions = _sessions(block)
    assert sessions, f"{page.name}: a console block without a command"
    for command, expected in sessions:
        got = _run(command, str(tmp_path / "cache"))
        assert got == expected, f"{page.name}: output of `{command}` changed (see --update)"


@pytest.mark.parametrize("name", DOCTEST_PAGES)
def test_python_examples_run(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(ROOT)
    result = doctest.testfile(
        str(DOCS / name),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        globs={"TMP": str(tmp_path)},
    )
    assert result.attempted > 0 and result.failed == 0


#: Documented, but not run by this file: the explorer is a screen (its tests drive it),
#: serve a server (tests/serve drives it in a browser), spark and open need a Spark session (their examples are run by the slow Spark tests),
#: engine names this CPU's instruction sets (tests/core/test_engine.py runs it).
NOT_RUN_HERE = {"explore", "serve", "spark", "open", "engine"}


def test_the_guide_documents_and_runs_every_command() -> None:
    """Issue 34: the guide had no section for report, explain, explain --chain. Every
    command (and every mode with its own section) has a heading in the guide and, unless
    it cannot run here, an example in a console block, which the test above re-runs."""
    from ditto_tui.cli.main import SUBCOMMANDS

    pages = "".join(p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md")))
    headings = re.findall(r"^#+ (.*)$", pages, re.M)
    run = set()
    for command, _ in _sessions(pages):
        found = re.match(r"(?:\w+=\S+ )*ditto-tui ([a-z]+)(?: .*?(--chain|--sweep|--tree))?",
                         command)
        if found:
            run.update({found.group(1), " ".join(filter(None, found.groups()))})
    aliases = {"fp", "kernel"}
    commands = set(SUBCOMMANDS) - aliases
    modes = {"explain --chain", "cluster --sweep", "cluster --tree"}
    for name in sorted(commands | modes):
        title = {"explore": "explorer"}.get(name, name)  # its own page, "The explorer"
        assert any(re.search(rf"\b{re.escape(title)}\b", h) for h in headings), \
            f"no section of the guide is about `{name}`"
    missing = (commands | modes) - NOT_RUN_HERE - run
    assert not missing, f"no console example runs {sorted(missing)}"


def test_every_document_the_code_cites_is_in_the_repository() -> None:
    cited: set[str] = set()
    for folder in ("ditto_tui", "tests", "benchmarks", "examples"):
        for source in (ROOT / folder).rglob("*.py"):
            if "_work" in source.relative_to(ROOT).parts:
                continue  # benchmarks' downloads (not in git): check_sphinx unpacks sphinx
            text = source.read_text(encoding="utf-8")
            outside = "shared/" + "spec"  # spelt in two so this file does not match itself
            assert outside not in text, f"{source} cites a file outside the repository"
            cited.update(re.findall(r"\bdocs/[\w/.-]+\.md\b", text))
    assert cited, "nothing cites the guide: the pattern is wrong"
    for doc in sorted(cited):
        assert (ROOT / doc).is_file(), f"{doc} is cited but missing"


def update() -> None:
    with tempfile.TemporaryDirectory() as cache:
        for page in _pages():
            text = page.read_text(encoding="utf-8")

            def fill(block: re.Match[str]) -> str:
                parts = []
                for part in re.split(r"^(?=\$ )", block.group(1), flags=re.M):
                    if part.startswith("$ "):
                        command = part[2:].partition("\n")[0]
                        parts.append(f"$ {command}\n{_run(command, cache)}")
                return "```console\n" + "".join(parts) + "```\n"

            page.write_text(FENCE.sub(fill, text), encoding="utf-8")
            print(f"updated {page.relative_to(ROOT)}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--update"]:
        update()
    else:
        sys.exit(__doc__)
