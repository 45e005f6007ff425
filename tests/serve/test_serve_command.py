"""``ditto-tui serve`` without a browser: the command each tab runs, the binding warning,
the options it refuses, the review store it prepares."""

from __future__ import annotations

import argparse
import shlex
import sys

import pytest

from ditto_tui.cli import serve
from ditto_tui.cli.main import build_parser, main
from ditto_tui.cli.options import Parser
from ditto_tui.corpus.review import review_path_for


def parse(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *argv])


def test_each_tab_runs_explore_with_the_same_options_but_fresh(tmp_path):
    args = parse(str(tmp_path), "-k", "2", "--max-k", "6", "--mode", "star", "--ignore", "a*",
                 "--ignore", "b c", "--read-only", "--fresh", "--cache", str(tmp_path / "c"),
                 "--pipeline", "html", "--min-size", "10", "--port", "9000", "--host", "::1",
                 "-j", "2", "--screenshots", str(tmp_path / "shots"))
    words = serve.explore_argv(args)
    assert "--fresh" not in words and "--port" not in words and "--host" not in words
    assert "--jobs" in words and "-j" not in words
    command = shlex.split(serve.child_command(str(tmp_path / "it's here"), words))
    assert command[:4] == [sys.executable, "-m", "ditto_tui", "explore"]
    assert command[-2:] == ["--", str(tmp_path / "it's here")]
    child = build_parser().parse_args(command[3:])
    for name, value in vars(args).items():
        if name in ("command", "path", "host", "port", "public_url", "fresh"):
            continue
        assert vars(child)[name] == value, name
    assert child.path == str(tmp_path / "it's here") and child.fresh is False


def test_nothing_is_handed_on_when_every_option_is_at_its_default(tmp_path):
    assert serve.explore_argv(parse(str(tmp_path))) == []
    parser = Parser(add_help=False)
    serve.add_explore_options(parser)  # the same options as explore's own
    explore = build_parser()._subparsers._group_actions[0].choices["explore"]  # type: ignore[union-attr]
    assert ({a.dest for a in parser._actions}
            == {a.dest for a in explore._actions} - {"help", "path"})


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True),
    ("localhost", True), ("0.0.0.0", False), ("::", False), ("192.0.2.7", False),
    ("example.org", False),
])
def test_loopback_addresses(host, loopback):
    assert serve.is_loopback(host) is loopback


def run_serve(monkeypatch, capsys, *argv: str) -> tuple[int, list[str], list[tuple]]:
    calls: list[tuple] = []
    monkeypatch.setattr(serve, "_serve", lambda *a, **kw: calls.append((a, kw)))
    code = main(["serve", *argv])
    return code, capsys.readouterr().err.splitlines(), calls


def test_a_loopback_host_serves_without_a_word(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "corpus").mkdir()
    code, err, calls = run_serve(monkeypatch, capsys, str(tmp_path / "corpus"))
    assert code == 0 and err == []
    (command, host, port, url), options = calls[0]
    assert (host, port, url) == ("127.0.0.1", 8000, "http://127.0.0.1:8000")
    assert options["read_only"] is False
    assert "explore" in command and "--read-only" not in command


def test_another_host_prints_one_warning_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    (tmp_path / "corpus").mkdir()
    code, err, calls = run_serve(monkeypatch, capsys, str(tmp_path / "corpus"),
                                 "--host", "0.0.0.0", "--port", "8123")
    assert code == 0 and len(err) == 1 and len(calls) == 1
    assert "warning" in err[0] and "anyone who can reach port 8123" in err[0]
    assert "trash, move, link" in err[0] and "--read-only" in err[0]
    code, err, calls = run_serve(monkeypatch, capsys, str(tmp_path / "corpus"),
                                 "--host", "0.0.0.0", "--read-only")
    assert code == 0 and len(err) == 1 and "can read the documents" in err[0]
    assert "--read-only" in calls[0][0][0] and calls[0][1]["read_only"] is True


def test_refused_options(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    code, err, calls = run_serve(monkeypatch, capsys, str(tmp_path / "missing"))
    assert code == 1 and "not a folder" in err[0] and not calls
    (tmp_path / "corpus").mkdir()
    code, err, calls = run_serve(monkeypatch, capsys, str(tmp_path / "corpus"),
                                 "--read-only", "--fresh")
    assert code == 1 and "--fresh" in err[0] and not calls
    code, err, calls = run_serve(monkeypatch, capsys, str(tmp_path / "corpus"), "--port", "0")
    assert code == 2 and "--port" in err[0] and not calls
    code, err, calls = run_serve(monkeypatch, capsys, str(tmp_path / "corpus"), "-k", "9")
    assert code == 2 and "--max-k" in err[0] and not calls
    code, err, calls = run_serve(monkeypatch, capsys, str(tmp_path / "corpus"),
                                 "--cache", str(tmp_path / "corpus" / "cache"))
    assert code == 1 and "must not be inside" in err[0] and len(err) == 1 and not calls


def test_the_review_store_is_made_once_and_fresh_sets_it_aside_once(tmp_path, monkeypatch,
                                                                    capsys):
    root, cache = tmp_path / "corpus", tmp_path / "cache"
    root.mkdir()
    store = review_path_for(root, cache)
    code, _err, _calls = run_serve(monkeypatch, capsys, str(root), "--cache", str(cache))
    assert code == 0 and store.exists()
    code, err, calls = run_serve(monkeypatch, capsys, str(root), "--cache", str(cache),
                                 "--fresh")
    assert code == 0 and any("fresh review" in line for line in err)
    assert len(list(cache.glob("*.before-fresh-*"))) == 1
    assert "--fresh" not in calls[0][0][0]  # the tabs open the new store as it is


def test_a_port_in_use_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "corpus").mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))

    def busy(*_a, **_kw):
        raise OSError(98, "Address already in use")

    monkeypatch.setattr(serve, "_serve", busy)
    assert main(["serve", str(tmp_path / "corpus"), "--port", "8001"]) == 1
    assert capsys.readouterr().err.strip().endswith("cannot listen on 127.0.0.1:8001: "
                                                    "Address already in use")
