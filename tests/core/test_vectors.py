"""The ditto/2 test vectors: fingerprints computed by Go ditto, reproduced bit for bit."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from ditto_tui.core import Featurizer, normalize
from tests.each import check_each

# every test here runs once per engine (numpy, compiled per instruction set): see conftest.py
pytestmark = pytest.mark.usefixtures("engine_kernel")

VECTORS = Path(__file__).resolve().parents[1] / "data" / "ditto2-vectors.jsonl"


def _load() -> list[dict]:
    with VECTORS.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


ALL = _load()


def _raw(vector: dict) -> bytes:
    if vector["text"] is None:
        return base64.b64decode(vector["b64"])
    return vector["text"].encode("utf-8")


@pytest.mark.kernel_free
def test_the_whole_file_is_exercised() -> None:
    assert len(ALL) == 456
    assert len({v["id"] for v in ALL}) == 456


def _check_vector(vector: dict) -> None:
    data = _raw(vector)
    featurizer = Featurizer(char_n=vector["charN"], word_n=vector["wordN"])

    assert featurizer.fingerprint(data).hex == vector["fp"]
    assert len(featurizer.features(data)) == vector["features"]
    norm = normalize(data)
    if "norm" in vector:
        assert norm == vector["norm"]
    else:
        assert len(norm.encode("utf-8")) == vector["norm_len_bytes"]


def test_every_vector() -> None:
    """Fingerprint, feature count and normalized text of each of the 456 vectors (a failure
    names each vector that differs, ``id-category``)."""
    assert check_each(((f"{v['id']}-{v['category']}", v) for v in ALL), _check_vector) == 456


def _check_text_input(vector: dict) -> None:
    featurizer = Featurizer(char_n=vector["charN"], word_n=vector["wordN"])
    assert featurizer.features(vector["text"]) == featurizer.features(_raw(vector))
    assert normalize(vector["text"]) == normalize(_raw(vector))


@pytest.mark.kernel_free
def test_text_input_equals_its_utf8_bytes() -> None:
    texts = [v for v in ALL if v["text"] is not None][:60]
    assert check_each(((v["id"], v) for v in texts), _check_text_input) == 60
