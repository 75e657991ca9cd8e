"""docs/export-and-serving.md: the documented signatures and REST bodies are the export's."""

import json
import re

import numpy as np
import pytest
import tensorflow as tf

from keras_nmt.workshop.translators.export_translator import export_translator
from tests.docs.markdown_blocks import REPOSITORY, fence_after, fences
from tests.export.helpers import make_translator

PAGE = REPOSITORY / "docs" / "export-and-serving.md"
# The export traces four beam searches: about a minute on a loaded 2-core CPU.
pytestmark = [pytest.mark.tensorflow, pytest.mark.slow]
# `name: dtype [shape]` in the page's signature table.
_TENSOR = re.compile(r"`(\w+): (\w+) \[([^\]]*)\]`")


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """An untrained tiny export (the structure of the outputs does not depend on training)."""
    translator = make_translator("lstm", "functional", max_beam_size=4)
    path = export_translator(translator, tmp_path_factory.mktemp("saved"), name="tiny")
    return tf.saved_model.load(str(path))


def _python(value):
    """A TensorFlow Serving JSON value of a NumPy value: bytes as text, arrays as lists."""
    if isinstance(value, np.ndarray):
        return [_python(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return value.item() if isinstance(value, np.generic) else value


def _kind(value):
    """A JSON value's structure: types and list lengths, not the values."""
    if isinstance(value, dict):
        return {key: _kind(v) for key, v in value.items()}
    if isinstance(value, list):
        return [_kind(v) for v in value]
    return "number" if isinstance(value, int | float) else type(value).__name__


def test_the_signature_table_is_the_exports(loaded):
    """Every signature, input and output of the table, with its dtype and rank, and no other."""
    page = PAGE.read_text()
    rows = [line for line in page.splitlines() if re.match(r"\| `\w+` \|", line)]
    documented = {}
    for row in rows:
        name, inputs, outputs = (cell.strip() for cell in row.strip("|").split("|"))
        documented[name.strip("`")] = [
            {tensor: (dtype, len([d for d in shape.split(",") if d.strip()]))
             for tensor, dtype, shape in _TENSOR.findall(cell)} for cell in (inputs, outputs)]
    actual = {}
    for name, function in loaded.signatures.items():
        specs = function.structured_input_signature[1], function.structured_outputs
        actual[name] = [{key: (spec.dtype.name, spec.shape.rank) for key, spec in side.items()}
                        for side in specs]
    assert documented == actual


def test_the_documented_rest_request_gives_the_documented_response(loaded):
    """The row-format request, fed to `serving_default`, answers with the documented rows."""
    page = PAGE.read_text()
    request = json.loads(fence_after(page, "<!-- serving-request -->", "json").text)
    documented = json.loads(fence_after(page, "<!-- serving-response -->", "json").text)
    assert list(request) == ["instances"] and request["instances"]
    outputs = loaded.signatures["serving_default"](text=tf.constant(request["instances"]))
    # TensorFlow Serving's row format: one object per instance, one key per output.
    columns = {name: _python(tensor.numpy()) for name, tensor in outputs.items()}
    response = {"predictions": [{name: column[row] for name, column in columns.items()}
                                for row in range(len(request["instances"]))]}
    assert _kind(response) == _kind(documented)
    assert len(response["predictions"]) == len(request["instances"]) == 2
    for row, prediction in enumerate(documented["predictions"]):
        assert prediction["score"] <= 0, row  # a sum of log-probabilities
        assert response["predictions"][row]["score"] <= 0


def test_the_documented_beam_request_gives_the_documented_columns(loaded):
    """The columnar `beam_search` request answers with `[batch, beam_size]` columns."""
    blocks = [json.loads(f.text) for f in fences(PAGE.read_text()) if f.info == "json"]
    request = next(b for b in blocks if b.get("signature_name") == "beam_search")
    documented = next(b for b in blocks if "outputs" in b)
    inputs = request["inputs"]
    outputs = loaded.signatures["beam_search"](
        text=tf.constant(inputs["text"]), beam_size=tf.constant(inputs["beam_size"]),
        length_penalty=tf.constant(inputs["length_penalty"], tf.float32))
    response = {"outputs": {name: _python(t.numpy()) for name, t in outputs.items()}}
    assert _kind(response) == _kind(documented)
    assert np.shape(response["outputs"]["translations"]) == (len(inputs["text"]),
                                                             inputs["beam_size"])
