"""keras-nmt benchmark in --quick mode: valid JSON records and a Markdown table."""

import json

import pytest

from keras_nmt.workshop.cli import benchmark


def _app():
    return benchmark


def test_help_lists_every_flag(capsys):
    with pytest.raises(SystemExit):
        _app().main(["--help"])
    text = capsys.readouterr().out
    for flag in ("--only", "--quick", "--seed", "--output-json", "--output-md", "--data-dir",
                 "--precisions", "--jit-compile", "--eager", "--models", "--apis", "--run",
                 "--beam-sizes", "--same-shape", "--batch-tokens"):
        assert flag in text


def test_help_groups_each_backends_own_flags_and_says_both_defaults(capsys):
    with pytest.raises(SystemExit):
        _app().main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    jax_group = text[text.index("--backend jax only:"):]
    for flag in ("--size", "--tokens-per-batch", "--median-length", "--beam-size ",
                 "--peak-chain"):
        assert flag in jax_group
    assert "(default: tensorflow 8; jax 4)" in text  # --train-batches
    assert "(default: tensorflow auto; jax float32,mixed_bfloat16)" in text  # --precisions


@pytest.mark.parametrize("backend, train_batches, precisions, peak_size, data_dir, preset", [
    ("tensorflow", 8, ["auto"], 2048, str(benchmark.DEFAULT_DATA_DIR), None),
    ("jax", 4, ["float32", "mixed_bfloat16"], 8192, None, "gpu"),
])
def test_each_backend_gets_its_own_defaults(backend, train_batches, precisions, peak_size,
                                            data_dir, preset):
    args = benchmark.parse(["--backend", backend])
    assert (args.train_batches, args.precisions, args.peak_size, args.data_dir, args.preset) == (
        train_batches, precisions, peak_size, data_dir, preset)
    assert args.train_steps == 20
    assert args.models == ["lstm", "luong", "bahdanau", "transformer", "convs2s"]
    assert benchmark.parse(["--backend", backend, "--train-batches", "3"]).train_batches == 3


@pytest.mark.parametrize("backend, quick", [
    ("tensorflow", {"train_batches": 2, "train_steps": 2, "peak_size": 256, "decode_sentences": 16,
                    "beam_sizes": [1, 2], "export_repeats": 1, "vocab_size": 300,
                    "vocab_pairs": 2000, "limit": 2000}),
    ("jax", {"train_batches": 2, "train_steps": 2, "peak_size": 128, "decode_sentences": 16,
             "preset": "quick", "peak_chain": 1}),
])
def test_quick_sets_defaults_that_a_flag_given_overrides(backend, quick):
    args = benchmark.parse(["--backend", backend, "--quick"])
    assert {dest: getattr(args, dest) for dest in quick} == quick
    given = benchmark.parse(["--backend", backend, "--quick", "--train-steps", "7",
                             "--peak-size", "512", "--decode-sentences", "9"])
    assert (given.train_steps, given.peak_size, given.decode_sentences) == (7, 512, 9)
    assert given.train_batches == 2  # the others keep --quick's


@pytest.mark.parametrize("argv, message", [
    (["--backend", "jax", "--batch-size", "64", "--same-shape"],
     "error: --batch-size, --same-shape do not apply to --backend jax\n"),
    (["--size", "gpu"], "error: --size does not apply to --backend tensorflow\n"),
    (["--beam-size", "4"], "error: --beam-size does not apply to --backend tensorflow\n"),
])
def test_a_flag_of_the_other_backend_is_refused_in_one_line(argv, message, capsys):
    assert _app().main(argv) == 1
    assert capsys.readouterr().err == message


@pytest.mark.parametrize("argv, message", [
    (["--backend", "jax", "--only", "pipeline"], "unknown sections"),
    (["--backend", "jax", "--precisions", "auto"], "unknown precisions"),
])
def test_the_jax_backend_refuses_what_only_tensorflow_has(argv, message):
    with pytest.raises(SystemExit, match=message):
        _app().main(argv)


def test_missing_data_skips_with_a_message(tmp_path, capsys):
    output = tmp_path / "bench.json"
    assert _app().main(["--quick", "--only", "train,decode", "--only", "export",
                        "--data-dir", str(tmp_path), "--output-json", str(output)]) == 0
    assert "skipped" in capsys.readouterr().out
    assert json.loads(output.read_text()) == []


def test_unknown_section_is_refused():
    with pytest.raises(SystemExit, match="unknown sections"):
        _app().main(["--only", "nonsense"])


def test_quick_decode_writes_json_and_markdown(tmp_path, shared_data):
    output, markdown = tmp_path / "bench.json", tmp_path / "bench.md"
    _app().main([
        "--quick", "--only", "decode", "--models", "lstm", "--apis", "functional",
        "--data-dir", str(shared_data), "--output-json", str(output), "--output-md", str(markdown),
    ])  # fmt: skip
    records = json.loads(output.read_text())
    assert [r["beam_size"] for r in records] == [1, 2]
    for record in records:
        assert record["section"] == "decode" and record["sentences"] == 16
        assert record["sentences_per_second"] > 0
        assert record["cpu_count"] and record["tf_version"] and record["keras_version"]
        assert record["dtype_policy"] == "float32"
    assert records[0]["time_ratio_to_greedy"] == 1.0
    table = markdown.read_text()
    assert "### decode" in table and "| lstm | functional | untrained | greedy |" in table


def test_quick_train_with_token_batches_names_the_machine(tmp_path, shared_data):
    from keras_nmt.workshop.hardware.machine import describe_machine, machine_summary
    from keras_nmt.workshop.run.precision import resolve_precision

    output, markdown = tmp_path / "bench.json", tmp_path / "bench.md"
    _app().main([
        "--quick", "--only", "train", "--models", "lstm", "--apis", "functional",
        "--batch-tokens", "400", "--data-dir", str(shared_data), "--output-json", str(output),
        "--output-md", str(markdown),
    ])  # fmt: skip
    [record] = json.loads(output.read_text())
    assert record["batch_tokens"] == 400 and record["tokens_per_second"] > 0
    assert record["precision"] == resolve_precision("auto").policy  # --precisions auto
    assert record["machine"] == describe_machine()
    assert machine_summary(record["machine"]) in markdown.read_text()


def test_a_failing_section_keeps_the_others_records(tmp_path, monkeypatch, capsys):
    app = _app()
    record = {"section": "pipeline", "tokenizer": "char", "pairs_per_second": 1.0}

    def crash(args):
        raise RuntimeError("section crashed")

    from keras_nmt.workshop.benchmarks import sections  # the command imports them when it runs

    monkeypatch.setattr(sections, "markdown_report", lambda records: f"{len(records)} records")
    monkeypatch.setitem(sections.SECTIONS, "pipeline", lambda args: [record])
    monkeypatch.setitem(sections.SECTIONS, "train", crash)
    output, markdown = tmp_path / "bench.json", tmp_path / "bench.md"
    assert app.main(["--only", "pipeline,train", "--output-json", str(output),
                     "--output-md", str(markdown)]) == 1
    assert json.loads(output.read_text()) == [record]
    assert markdown.read_text() == "1 records\n"
    assert "train: FAILED" in capsys.readouterr().out


def test_the_help_names_the_sections_that_run():
    from keras_nmt.workshop.benchmarks import SECTION_NAMES
    from keras_nmt.workshop.benchmarks.sections import SECTIONS

    assert tuple(SECTIONS) == SECTION_NAMES


@pytest.mark.parametrize("value, reason", [("1,0", "must be >= 1"), ("1,x", "is not an integer")])
def test_a_bad_beam_size_is_refused_naming_the_flag(value, reason, capsys):
    with pytest.raises(SystemExit):
        _app().main(["--beam-sizes", value])
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"--beam-sizes {value}: {reason}")
