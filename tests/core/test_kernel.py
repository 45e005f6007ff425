"""Choosing the fingerprint kernel: environment, fallback, laziness, on-disk cache."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ditto_tui.core import elf_link, kernel

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str, **env: str) -> str:
    environment = {k: v for k, v in os.environ.items() if k != kernel.ENV}
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environment, cwd=ROOT, check=True)
    return done.stdout.strip()


def test_select_rejects_unknown_kernels() -> None:
    with pytest.raises(ValueError, match="unknown kernel"):
        kernel.select("cuda")


def test_forcing_numpy_never_loads_numba() -> None:
    out = _run(
        "import sys\n"
        "from ditto_tui.core import Featurizer, kernel\n"
        "Featurizer().fingerprint(b'x' * 20_000_000)\n"
        "print(kernel.active(), 'numba' in sys.modules)",
        DITTO_TUI_KERNEL="numpy",
    )
    assert out == "numpy False"


def test_auto_mode_leaves_numba_unloaded_for_small_work() -> None:
    out = _run(
        "import sys\n"
        "from ditto_tui.core import Featurizer, kernel\n"
        "print(Featurizer().fingerprint(b'Hello, World'), kernel.active(), 'numba' in sys.modules)"
    )
    assert out.endswith("numpy False")


def test_each_pipeline_loads_only_its_own_compiled_kernel() -> None:
    out = _run(
        "import sys\n"
        "from ditto_tui.core import Featurizer, kernel, make_pipeline\n"
        "Featurizer().fingerprint(b'Hello, World')\n"
        "loaded = lambda: sorted(m.rsplit('.', 1)[1] for m in sys.modules if m.endswith('_kernel'))\n"
        "print(*loaded())\n"
        "make_pipeline('html').fingerprint(b'<html><body><p>x</p></body></html>')\n"
        "print(*loaded(), kernel.active())",
        DITTO_TUI_KERNEL="numba",
    )
    assert out.splitlines() == ["_ditto_kernel", "_ditto_kernel _html_kernel numba"]


def test_a_missing_numba_falls_back_to_numpy_and_says_why() -> None:
    out = _run(
        "import sys\n"
        "sys.modules['numba'] = None  # import numba now raises ImportError\n"
        "from ditto_tui.core import Featurizer, kernel\n"
        "fp = Featurizer().fingerprint(b'Hello, World')\n"
        "print(kernel.active(), fp)\n"
        "print(kernel.status())",
        DITTO_TUI_KERNEL="numba",
    )
    first, status = out.splitlines()
    assert first.startswith("numpy ")
    assert "numba unavailable: ModuleNotFoundError" in status


def test_loading_the_kernel_skips_scipy_linalg_which_still_imports_afterwards() -> None:
    out = _run(
        "import sys\n"
        "from ditto_tui.core import Featurizer, kernel\n"
        "from ditto_tui.core.html_structure import HtmlStructure\n"
        "fp = Featurizer().fingerprint(b'Hello, World')\n"
        "page = HtmlStructure().fingerprint(b'<p class=x>hi</p>')\n"
        "print(kernel.active(), 'scipy.linalg' in sys.modules)\n"
        "import scipy.linalg, scipy.linalg.cython_blas\n"
        "kernel.select('numpy')\n"
        "print(fp == Featurizer().fingerprint(b'Hello, World'),\n"
        "      page == HtmlStructure().fingerprint(b'<p class=x>hi</p>'))",
        DITTO_TUI_KERNEL="numba",
    )
    assert out.splitlines() == ["numba False", "True True"]


def test_the_cache_folder_follows_numba_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert kernel.cache_dir() == str(tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert kernel.cache_dir().endswith(os.path.join("ditto-tui", "numba"))


def test_compiled_functions_are_cached_on_disk() -> None:
    pytest.importorskip("numba")
    kernel.select("numba")
    try:
        assert kernel.warm(), kernel.status()
        from ditto_tui.core import Featurizer

        Featurizer().fingerprint("déjà vu".encode())  # compiled (or loaded) by now
    finally:
        kernel.select(None)
    import numba

    index = list(Path(numba.config.CACHE_DIR).rglob("_ditto_kernel.*.nbi"))
    assert index, f"no cache index under {numba.config.CACHE_DIR}"


_SAMPLES = (
    "import json\n"
    "from ditto_tui.core import Featurizer\n"
    "from ditto_tui.core.html_structure import HtmlStructure\n"
    "texts = [b'Hello, World', 'd\\u00e9j\\u00e0 vu, \\u043f\\u0440\\u0438\\u0432\\u0435\\u0442 \\u6f22\\u5b57'.encode(),\n"
    "         b'<p>Tagged <b>text</b></p>' * 40, bytes(range(256)) * 8, b'']\n"
    "blob = b''.join(texts)\n"
    "spans, at = [], 0\n"
    "for t in texts:\n"
    "    spans.append((at, len(t)))\n"
    "    at += len(t)\n"
    "f = Featurizer()\n"
    "fps = [int(f.fingerprint(t)) for t in texts] + [int(x) for x in f.fingerprint_spans(blob, spans)]\n"
    "pages = [int(HtmlStructure().fingerprint(b'<div class=a><p id=x>hi</p>' * n)) for n in (1, 50)]\n"
    "from ditto_tui.corpus.mail import split_mbox\n"
    "box = b'From a Mon\\nHello there\\n\\nFrom b Mon\\r\\nSecond, d\\xc3\\xa9j\\xc3\\xa0\\r\\n\\r\\nFrom c'\n"
    "got = f.mbox_parts(box, 2)\n"
    "fps += ([(o, n, int(f.fingerprint(box[o:o + n]))) for o, n in split_mbox(box)] if got is None\n"
    "        else list(zip(got.offsets.tolist(), got.sizes.tolist(), got.fps.tolist())))\n"
)


def _numpy_values() -> str:
    """The samples' fingerprints and page fingerprints from the numpy code, as the
    subprocesses print them."""
    kernel.select("numpy")
    try:
        namespace: dict[str, object] = {}
        exec(_SAMPLES, namespace)
    finally:
        kernel.select(None)
    return json.dumps([namespace["fps"], namespace["pages"]])


def test_a_later_process_runs_the_cached_kernels_without_starting_numbas_compiler() -> None:
    pytest.importorskip("numba")
    expected = _numpy_values()
    _run(_SAMPLES, DITTO_TUI_KERNEL="numba")  # the cache holds both kernels after this
    out = _run(
        "import sys\n" + _SAMPLES + "from ditto_tui.core import kernel\n"
        "print(kernel.active(), 'numba.np.arraymath' in sys.modules)\n"
        "print(json.dumps([fps, pages]))",
        DITTO_TUI_KERNEL="numba",
    )
    started, values = out.splitlines()
    assert started == "numba False"  # numba's compiler registries were never loaded
    assert values == expected


def test_a_later_process_runs_the_saved_machine_code_without_importing_numba() -> None:
    pytest.importorskip("numba")
    expected = _numpy_values()
    _run(_SAMPLES, DITTO_TUI_KERNEL="native")  # saved for this machine after this
    out = _run(
        "import sys\nfrom ditto_tui.core import kernel, native\n"
        "kernel.warm()  # (both at once: nothing is built beside, nothing asks LLVM)\n"
        + _SAMPLES + "print(kernel.active('ditto'), kernel.active('html'), 'numba' in sys.modules)\n"
        "print(sorted(native.LINKED_BY.values()), 'llvmlite' in sys.modules)\n"
        "print(json.dumps([fps, pages]))",
        DITTO_TUI_KERNEL="native",
    )
    started, linked, values = out.splitlines()
    assert started == "native native False"
    if elf_link.supported_here():  # linked without llvmlite
        assert linked == "['elf_link', 'elf_link'] False"
    assert values == expected


def _saved_native_folder() -> Path:
    """The test session's cache folder, with both kernels' machine code saved."""
    _run("from ditto_tui.core import kernel\nkernel.warm()", DITTO_TUI_KERNEL="native")
    return Path(kernel.cache_dir())


def test_auto_mode_compiles_nothing_below_its_threshold_when_nothing_is_saved(tmp_path: Path) -> None:
    out = _run(
        "import os, sys\n"
        "from ditto_tui.core import Featurizer, kernel\n"
        "Featurizer().fingerprint(b'word ' * 1_000_000)  # 5 MB\n"
        "print(kernel.active(), 'numba' in sys.modules, os.listdir(os.environ['NUMBA_CACHE_DIR']))",
        NUMBA_CACHE_DIR=str(tmp_path),
    )
    assert out == "numpy False []"


def test_damaged_machine_code_is_refused_and_the_status_says_why(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    shutil.copytree(_saved_native_folder() / "native", tmp_path / "native")
    for code in (tmp_path / "native").glob("ditto-*.o"):
        damaged = bytearray(code.read_bytes())
        damaged[len(damaged) // 2] ^= 0xFF
        code.write_bytes(bytes(damaged))
    out = _run(
        "import sys\n"
        "sys.modules['numba'] = None  # no way back through numba either\n"
        "from ditto_tui.core import Featurizer, kernel, make_pipeline\n"
        "fp = Featurizer().fingerprint(b'Hello, World')\n"
        "page = make_pipeline('html').fingerprint(b'<p class=a>x</p>')\n"
        "print(kernel.active('ditto'), kernel.active('html'))\n"
        "print(kernel.status())",
        DITTO_TUI_KERNEL="native", NUMBA_CACHE_DIR=str(tmp_path),
    )
    first, status = out.splitlines()
    assert first == "numpy native"
    assert "ditto not native: RuntimeError: the saved object is damaged" in status
    assert "numba unavailable: ModuleNotFoundError" in status


def test_saved_machine_code_is_used_only_for_its_key_and_only_with_known_symbols(
    tmp_path: Path,
) -> None:
    pytest.importorskip("numba")
    from ditto_tui.core import native

    shutil.copytree(_saved_native_folder() / "native", tmp_path / "native")
    assert set(native.load(str(tmp_path), "ditto")) == {"spans", "normalize", "mbox"}
    code, meta = native._paths(str(tmp_path), "ditto", native.key("ditto"))
    record = json.loads(meta.read_text())
    assert native._elf_undefined(code.read_bytes()) in (None, [])  # needs nothing outside
    record["symbols"] = ["numba_do_raise"]
    meta.write_text(json.dumps(record))
    with pytest.raises(RuntimeError, match="needs numba_do_raise"):
        native.load(str(tmp_path), "ditto")
    record["key"]["numba"] = "0.0"  # built by another numba: build again
    meta.write_text(json.dumps(record))
    with pytest.raises(native.Missing):
        native.load(str(tmp_path), "ditto")


def test_the_object_reader_lists_what_an_object_needs_from_outside() -> None:
    llvm = pytest.importorskip("llvmlite.binding")
    from ditto_tui.core import native

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(
        "declare void @numba_do_raise(ptr)\n"
        "define void @entry(ptr %p) {\n  call void @numba_do_raise(ptr %p)\n  ret void\n}\n"
    )
    machine = llvm.Target.from_default_triple().create_target_machine()
    found = native._elf_undefined(machine.emit_object(module))
    if found is None:
        pytest.skip("not an ELF platform")
    assert found == ["numba_do_raise"]


def test_the_kernel_command_says_what_runs_each_pipeline() -> None:
    environment = {k: v for k, v in os.environ.items() if k != kernel.ENV}
    done = subprocess.run([sys.executable, "-m", "ditto_tui", "kernel"], capture_output=True,
                          text=True, env={**environment, kernel.ENV: "numpy"}, cwd=ROOT, check=True)
    assert done.stdout.startswith("kernel mode numpy (DITTO_TUI_KERNEL), active numpy")
    if importlib.util.find_spec("numba") is not None:
        done = subprocess.run([sys.executable, "-m", "ditto_tui", "kernel"], capture_output=True,
                              text=True, env={**environment, kernel.ENV: "native"}, cwd=ROOT,
                              check=True)
        assert "active native (ditto native, html native)" in done.stdout


def _vector_files() -> tuple[list[dict], list[dict]]:
    data = ROOT / "tests" / "data"
    return tuple(  # type: ignore[return-value]
        [json.loads(line) for line in (data / name).read_text(encoding="utf-8").split("\n") if line]
        for name in ("ditto2-vectors.jsonl", "html-distance-vectors.jsonl")
    )


def test_both_linkers_run_the_saved_objects_to_every_vector(tmp_path: Path) -> None:
    """The saved objects linked by LLVM and by ``elf_link`` (through this host's record,
    which the LLVM link writes) give the reference fingerprint of every vector."""
    pytest.importorskip("numba")
    import base64

    from ditto_tui.core import elf_link, native
    from ditto_tui.core.html_structure import MAX_TOKENS

    shutil.copytree(_saved_native_folder() / "native", tmp_path / "native")
    for record in (tmp_path / "native").glob("*-host-*.json"):
        record.unlink()
    linked = {}
    for linker in ("llvm", "any", "any"):  # the first "any" links with LLVM, then records
        linked[linker] = {kind: native.KINDS[kind](native.load(str(tmp_path), kind, linker=linker))
                          for kind in ("ditto", "html")}
    if elf_link.supported_here():
        assert native.LINKED_BY == {"ditto": "elf_link", "html": "elf_link"}
        assert len(list((tmp_path / "native").glob("*-host-*.json"))) == 2
    ditto_vectors, html_vectors = _vector_files()
    for vector in ditto_vectors:
        data = base64.b64decode(vector["b64"]) if vector["text"] is None else vector["text"].encode()
        for engines in linked.values():
            got = engines["ditto"].fingerprint(data, vector["charN"], vector["wordN"])
            assert f"{got:016x}" == vector["fp"], vector["id"]
    for vector in html_vectors:
        page = base64.b64decode(vector["b64"])
        for shingle in (1, 2, 3):
            for engines in linked.values():
                got = engines["html"].fingerprint(page, shingle, MAX_TOKENS)
                assert got is None or f"{got:016x}" == vector[f"shingle{shingle}"], vector["id"]


def test_a_host_record_that_does_not_fit_sends_the_link_to_llvm(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    from ditto_tui.core import elf_link, native

    if not elf_link.supported_here():
        pytest.skip("elf_link links on Linux x86-64 only")
    shutil.copytree(_saved_native_folder() / "native", tmp_path / "native")
    folder = str(tmp_path)
    native.load(folder, "ditto", linker="llvm")  # (writes no record)
    native.load(folder, "ditto")  # LLVM, then the record
    host = native._host_path(folder, "ditto", native.host_key("ditto"))
    assert json.loads(host.read_text())["host"] == native.host_key("ditto")
    native.load(folder, "ditto")
    assert native.LINKED_BY["ditto"] == "elf_link"
    for meta in ("nowhere.json", "../../escape.json", 7):  # a record naming something else
        host.write_text(json.dumps({"host": native.host_key("ditto"), "meta": meta}))
        assert set(native.load(folder, "ditto")) == {"spans", "normalize", "mbox"}
        assert native.LINKED_BY["ditto"] == "llvm"  # and the record is written again:
        native.load(folder, "ditto")
        assert native.LINKED_BY["ditto"] == "elf_link"
    code, meta_path = native._paths(folder, "ditto", native.key("ditto"))
    meta = json.loads(meta_path.read_text())
    meta["key"]["source"] = "0" * 64  # an object of other sources: not this one
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(native.Missing):
        native.load(folder, "ditto")


def test_a_second_kernel_is_built_beside_only_when_two_are_missing(monkeypatch, tmp_path: Path) -> None:
    pytest.importorskip("numba")
    _saved_native_folder()  # both saved for this machine: nothing to build beside
    assert kernel._build_beside(["ditto", "html"]) == {}
    assert kernel._build_beside(["html"]) == {}
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # no interpreter to start
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # (nothing saved there)
    assert kernel._build_beside(["ditto", "html"]) == {}


def test_the_build_helper_refuses_an_unknown_kernel() -> None:
    done = subprocess.run([sys.executable, "-m", "ditto_tui.core._build_kernel", "cuda"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "usage" in done.stderr


@pytest.mark.slow
def test_from_an_empty_cache_the_second_kernel_is_built_in_a_helper_process(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    expected = _numpy_values()
    out = _run(
        "import json, sys\n"
        "from ditto_tui.core import kernel, native\n"
        "started = []\n"
        "build_beside = kernel._build_beside\n"
        "def watched(kinds):\n"
        "    helpers = build_beside(kinds)\n"
        "    started.extend(helpers)\n"
        "    return helpers\n"
        "kernel._build_beside = watched\n"
        "kernel.warm()\n"
        "print(started, kernel.active('ditto'), kernel.active('html'))\n"
        + _SAMPLES + "print(json.dumps([fps, pages]))",
        DITTO_TUI_KERNEL="native", NUMBA_CACHE_DIR=str(tmp_path),
    )
    started, values = out.splitlines()
    assert started == "['html'] native native"
    assert values == expected
    assert sorted(p.suffix for p in (tmp_path / "native").glob("*-*.o")) == [".o", ".o"]


def test_the_html_kernel_names_the_ditto_kernel_it_compiles_in() -> None:
    """numba caches the html kernel by its own source: it must change with the helpers it
    takes from the ditto kernel, or stale machine code would be served."""
    import hashlib

    pytest.importorskip("numba")
    from ditto_tui.core import _html_kernel

    source = Path(_html_kernel.__file__).with_name("_ditto_kernel.py").read_bytes()
    assert hashlib.sha256(source).hexdigest() == _html_kernel.DITTO_KERNEL_SHA256, (
        "update DITTO_KERNEL_SHA256 in _html_kernel.py to " + hashlib.sha256(source).hexdigest())


def test_the_html_kernel_names_the_atoms_it_compiles_in() -> None:
    """The atom tables are compiled into the cached html kernel as constants: the kernel's
    source must change with the atom names, or stale tables would be served."""
    pytest.importorskip("numba")
    from ditto_tui.core import _html_kernel

    assert _html_kernel.atoms_digest() == _html_kernel.ATOMS_SHA256, (
        "update ATOMS_SHA256 in _html_kernel.py to " + _html_kernel.atoms_digest())


def test_the_html_kernel_finds_every_atom_by_its_word() -> None:
    """Every atom of at most eight bytes is in the word table, once, at the slot its
    probe reaches; the raw-text elements are atoms."""
    pytest.importorskip("numba")
    from ditto_tui.core import _html_kernel as html
    from ditto_tui.core import datafiles

    names = datafiles.html_atoms()
    keys, index = html._ATOM_KEYS.tolist(), html._ATOM_KEY_INDEX.tolist()
    short = [i for i, name in enumerate(names) if len(name) <= 8]
    assert sorted(i for i in index if i >= 0) == short
    for i in short:
        word = int.from_bytes(names[i].ljust(8, b"\0"), "little")
        slot = ((word * int(html._KEY_MULTIPLIER)) % 2**64) >> 54
        while keys[slot] != word:
            assert keys[slot] != 0, names[i]
            slot = (slot + 1) % len(keys)
        assert index[slot] == i
    raw = {names[i]: t for i, t in enumerate(html._RAW_OF_ATOM.tolist()) if t >= 0}
    assert raw == {name: t for t, name in enumerate(html._RAW_NAMES)}
