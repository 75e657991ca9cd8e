"""TensorFlow vs CTranslate2 rows of the translation benchmark (tiny run: numbers mean nothing)."""

import pytest

from keras_nmt.workshop.benchmarks.translation_section import (
    cpu_quantizations,
    engine_speeds,
    engine_table,
    translation_table,
)
from tests.export.helpers import SOURCES, TARGETS, make_run_folder

pytest.importorskip("ctranslate2")


def test_engine_rows_with_bleu_beside_each_speed(tmp_path):
    run = make_run_folder(tmp_path / "run", "transformer")
    records = engine_speeds(run, SOURCES * 3, TARGETS * 3, beam_sizes=(1,), batch_size=4,
                            quantizations=["float32", "int8"], passes=2, print_fn=lambda _: None)
    rows = {(r["engine"], r["quantization"], r["beam_size"]): r for r in records}
    assert sorted(rows) == [(engine, q, beam) for engine, q in (
        ("ctranslate2", "float32"), ("ctranslate2", "int8"), ("tensorflow", "float32"))
        for beam in (1,)]
    for r in records:
        assert r["sentences"] == 12 and r["sentences_per_second"] > 0
        assert len(r["pass_seconds"]) == 2 and 0 <= r["bleu"] <= 100
    # The float32 export decodes our tokens.
    assert rows[("ctranslate2", "float32", 1)]["same_as_tensorflow"] == 1.0
    table = engine_table(records)
    assert "| TensorFlow (in-process Translator) | TensorFlow default |" in table
    assert "| CTranslate2 int8 |" in table and "BLEU greedy" in table
    # The translation section's report shows them after its own tables.
    report = translation_table([{**r, "kind": "engine"} for r in records])
    assert table in report


def test_cpu_quantizations_start_with_float32_and_int8():
    chosen = cpu_quantizations()
    assert chosen[:2] == ["float32", "int8"]
    assert set(chosen[2:]) <= {"bfloat16", "int8_bfloat16"}
