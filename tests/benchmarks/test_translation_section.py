"""Benchmark section "translation" on a tiny run folder (the numbers mean nothing here)."""

import argparse

import pytest

from keras_nmt.workshop.benchmarks.sections import TEST_FILE, BenchmarkContext, markdown_report
from keras_nmt.workshop.benchmarks.translation_section import run_translation
from tests.export.helpers import SOURCES, TARGETS, make_run_folder


def _context(tmp_path, run):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    lines = [f"{target}\t{source}" for source, target in zip(SOURCES, TARGETS, strict=True)]
    (data_dir / TEST_FILE).write_text("\n".join(lines * 3) + "\n")
    return BenchmarkContext(argparse.Namespace(
        run=run, data_dir=str(data_dir), quick=True, seed=0, batch_size=4, beam_sizes=[2],
        decode_sentences=16))


@pytest.mark.tensorflow
def test_first_calls_throughput_and_agreement(tmp_path, capsys):
    run = make_run_folder(tmp_path / "run", "lstm")
    records = run_translation(_context(tmp_path, str(run)))
    # No engine record, and the output says why.
    assert "CTranslate2 engines: not measured (a lstm model: CTranslate2 runs Transformers only)" \
        in capsys.readouterr().out
    assert not [r for r in records if r["kind"] == "engine"]
    first = {r["strategy"]: r for r in records if r["kind"] == "first_call"}
    assert sorted(first) == ["attention", "beam 2", "greedy"]
    assert all(r["in_process_seconds"] > 0 and r["saved_model_seconds"] > 0
               for r in first.values())
    speed = {r["beam_size"]: r for r in records if r["kind"] == "throughput"}
    assert sorted(speed) == [1, 2]
    assert speed[1]["in_process_time_over_greedy"] == speed[1]["saved_model_time_over_greedy"] == 1
    for r in speed.values():
        assert r["sentences"] == 12 and r["agreement"] == 1.0
        assert r["in_process_sentences_per_second"] > 0 and r["machine"]["cpu_count"] > 0
    report = markdown_report(records)
    assert "| lstm | greedy | 12 |" in report and "| lstm | beam 2 |" in report
    assert "| lstm | attention |" in report


def test_needs_a_run(tmp_path, capsys):
    assert run_translation(_context(tmp_path, None)) == []
    out = capsys.readouterr().out
    assert "translation: skipped, needs a trained model: --run RUN_FOLDER" in out
