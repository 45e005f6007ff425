"""Choosing the engine: the compiled extension when it is installed, numpy when asked for
or when the extension is missing (and then it says so), an instruction set on request."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ditto_tui.core.fingerprint import engine

ROOT = Path(__file__).resolve().parents[2]

#: Fingerprints of a text and a page, by whichever engine the process runs.
_SAMPLES = (
    "from ditto_tui.core import Featurizer, make_pipeline\nfrom ditto_tui.core.fingerprint import engine\n"
    "text = b'The Quick brown fox, \\xc3\\xa9t\\xc3\\xa9 <b>jumps</b> over it. ' * 50\n"
    "page = b'<html><body><p class=a>x</p><a href=y>z</a></body></html>' * 20\n"
    "print(Featurizer().fingerprint(text), make_pipeline('html').fingerprint(page),"
    " engine.describe())\n"
)


def _run(code: str, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k not in (engine.ENV, engine.ISA_ENV)}
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environment, cwd=ROOT, check=True)
    return done.stdout.strip()


def test_the_compiled_engine_is_installed_and_chosen_by_default() -> None:
    """The package's own build made the extension (CI builds it, and a missing compiler
    would make every compiled test here skip silently)."""
    assert engine.isas(), "the compiled engine is not installed: pip install needs a C compiler"
    out = _run(_SAMPLES)
    assert out.endswith(f"compiled ({engine.isas()[0]})")


def test_every_engine_and_instruction_set_gives_the_same_fingerprints() -> None:
    runs = {_run(_SAMPLES, DITTO_TUI_KERNEL="numpy").rsplit(" ", 1)[0]}
    for isa in engine.isas():
        out = _run(_SAMPLES, DITTO_TUI_KERNEL="compiled", DITTO_TUI_ISA=isa)
        assert out.endswith(f"compiled ({isa})")
        runs.add(out.rsplit(" ", 2)[0])
    assert len(runs) == 1


def test_forcing_numpy_never_loads_the_extension() -> None:
    out = _run("import sys\n" + _SAMPLES + "print('ditto_tui.core.fingerprint._compiled' in sys.modules)",
               DITTO_TUI_KERNEL="numpy")
    assert out.splitlines() == [out.splitlines()[0], "False"]
    assert out.splitlines()[0].endswith(" numpy")


def test_a_missing_extension_falls_back_to_numpy_and_says_why_and_what_to_do() -> None:
    out = _run(
        "import sys\n"
        "sys.modules['ditto_tui.core.fingerprint._compiled'] = None  # import now raises ImportError\n"
        + _SAMPLES +
        "print(engine.missing())",
    )
    first, why = out.splitlines()
    assert first == _run(_SAMPLES, DITTO_TUI_KERNEL="numpy").replace(
        " numpy", " numpy (the compiled engine is not installed)")
    assert "not installed" in why and "C compiler" in why and "reinstall" in why


def test_an_instruction_set_the_cpu_lacks_is_refused_and_the_best_one_runs() -> None:
    out = _run(_SAMPLES + "print(engine.missing())", DITTO_TUI_ISA="neon-9000")
    first, why = out.splitlines()
    assert first.endswith(f"compiled ({engine.isas()[0]})")
    assert "DITTO_TUI_ISA=neon-9000" in why and "cannot run" in why


def test_select_checks_its_argument() -> None:
    with pytest.raises(ValueError, match="unknown engine"):
        engine.select("numba")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cannot run"):
        engine.use_isa("neon-9000")


def test_using_the_compiled_engine_writes_nothing_and_starts_nothing(tmp_path: Path) -> None:
    """Nothing is compiled, cached or linked on the user's machine: a first use with an
    empty home and cache folder leaves them empty and starts no other process (the
    import's time is a figure of benchmarks/bench_install.py)."""
    home = tmp_path / "home"
    home.mkdir()
    out = _run(
        "import subprocess\n"
        "started = []\n"
        "subprocess.Popen.__init__ = lambda *a, **k: started.append(a)  # none may start\n"
        + _SAMPLES + "print(started)",
        HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), NUMBA_CACHE_DIR="",
    )
    assert out.splitlines()[0].endswith(f"compiled ({engine.isas()[0]})")
    assert out.splitlines()[-1] == "[]"
    assert list(home.rglob("*")) == []


def test_the_version_and_engine_commands_say_which_engine_runs() -> None:
    def command(*args: str, **env: str) -> str:
        environment = {k: v for k, v in os.environ.items()
                       if k not in (engine.ENV, engine.ISA_ENV)}
        environment.update(env)
        return subprocess.run([sys.executable, "-m", "ditto_tui", *args], capture_output=True,
                              text=True, env=environment, cwd=ROOT, check=True).stdout.strip()

    best = engine.isas()[0]
    assert command("version").endswith(f"pipeline=ditto/2 engine=compiled ({best})")
    assert command("version", DITTO_TUI_KERNEL="numpy").endswith("engine=numpy")
    line = command("engine")
    assert line.startswith(f"engine=compiled ({best}); this CPU runs the compiled kernels with ")
    assert line.endswith("DITTO_TUI_KERNEL=auto")
    assert command("kernel", DITTO_TUI_KERNEL="numpy").startswith("engine=numpy;")


def test_a_missing_extension_is_noted_once_by_each_command_that_fingerprints(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one two three")
    code = ("import sys\nsys.modules['ditto_tui.core.fingerprint._compiled'] = None\n"
            "from ditto_tui.cli.main import main\nraise SystemExit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "fingerprint", "--no-cache", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT,
                          env={k: v for k, v in os.environ.items() if k != engine.ENV})
    assert done.returncode == 0 and done.stdout.count("\t") == 1
    notes = done.stderr.splitlines()
    assert len(notes) == 1 and notes[0].startswith("ditto-tui: note: the compiled engine is not")
    quiet = subprocess.run([sys.executable, "-c", code, "fingerprint", "--no-cache", str(tmp_path)],
                           capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, engine.ENV: "numpy"})
    assert quiet.returncode == 0 and quiet.stderr == ""  # asked for numpy: nothing to say


def test_the_kernels_run_without_the_gil() -> None:
    """While a thread is inside a long compiled call, this thread keeps running Python: the
    entry released the GIL (holding it, this thread would stand still for the whole call)."""
    import threading

    compiled = engine.ditto()
    assert compiled is not None
    data = b"word and more words, " * 250_000  # 5 MB, in windows of 64 bytes: a slow call
    busy = threading.Event()
    spans: list[float] = []

    def work() -> None:
        busy.set()
        start = time.perf_counter()
        compiled.fingerprint(data, 64, 0)
        spans.append(time.perf_counter() - start)
        busy.clear()

    thread = threading.Thread(target=work)
    thread.start()
    busy.wait()
    ticks = [time.perf_counter()]
    while busy.is_set():
        ticks.append(time.perf_counter())
    thread.join()
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)] or [spans[0]]
    assert max(gaps) < 0.5 * spans[0], (max(gaps), spans[0])


def test_the_c_data_header_is_made_from_the_package_data_files() -> None:
    """``csrc/data.h`` (the code point tables and atoms the extension is built with) must
    be written again after the data files change: ``python csrc/make_data.py``."""
    done = subprocess.run([sys.executable, str(ROOT / "csrc" / "make_data.py"), "--check"],
                          cwd=ROOT)
    assert done.returncode == 0, "csrc/data.h is stale: run python csrc/make_data.py"
