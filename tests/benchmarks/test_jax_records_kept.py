"""`keras-nmt benchmark --backend jax` keeps its records as it goes: a run cut short (a lent
GPU's lease ends) leaves the file with every measurement finished before the cut."""

import json

from tests.benchmarks.test_jax_benchmark import run_without_tensorflow


def test_a_run_killed_in_its_decode_section_keeps_its_train_records(tmp_path):
    output, table = tmp_path / "bench.json", tmp_path / "bench.md"
    code = (
        "import os\n"
        "from keras_nmt.workshop.benchmarks import jax_benchmark\n"
        "jax_benchmark.decode_records = lambda *args, **kwargs: os._exit(3)  # the cut\n"
        "from keras_nmt.workshop.cli import main\n"
        "main(['benchmark', '--backend', 'jax', '--quick', '--models', 'lstm', '--apis',"
        " 'functional', '--precisions', 'float32',"
        f" '--output-json', {str(output)!r}, '--output-md', {str(table)!r}])\n"
    )
    result = run_without_tensorflow(code)
    assert result.returncode == 3, result.stdout[-2000:] + result.stderr[-2000:]
    records = json.loads(output.read_text())
    assert [r["section"] for r in records] == ["peak", "train"]
    assert records[1]["tokens_per_second"] > 0 and records[1]["backend"] == "jax"
    assert "| lstm | functional | float32 |" in table.read_text()
