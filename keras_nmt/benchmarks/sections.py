"""The benchmark sections by name, and the Markdown report of their records."""

from keras_nmt.benchmarks.decode_section import decode_table, run_decode
from keras_nmt.benchmarks.pipeline_section import pipeline_table, run_pipeline
from keras_nmt.benchmarks.profile_section import profile_table, run_profile
from keras_nmt.benchmarks.train_section import run_train, train_table
from keras_nmt.benchmarks.translation_section import (
    export_table,
    run_export,
    run_translation,
    translation_table,
)
from keras_nmt.hardware.machine import machine_summary

# name -> function(BenchmarkContext) -> list of JSON records, in the order they run.
SECTIONS = {
    "pipeline": run_pipeline,
    "train": run_train,
    "profile": run_profile,
    "decode": run_decode,
    "export": run_export,
    "translation": run_translation,
}
# name -> function(records of that section) -> Markdown.
TABLES = {
    "pipeline": pipeline_table,
    "train": train_table,
    "profile": profile_table,
    "decode": decode_table,
    "export": export_table,
    "translation": translation_table,
}


def markdown_report(records):
    """The records as Markdown: one table per section (and the train ratios), then the setup.

    Args:
        records: the JSON records of any sections (each has a `section` key).
    """
    lines = []
    for section, table in TABLES.items():
        chosen = [r for r in records if r["section"] == section]
        if chosen:
            lines += [f"### {section}", "", table(chosen), ""]
    if records:
        r = records[0]
        lines.append(
            f"{machine_summary(r['machine'])}, TensorFlow {r['tf_version']}, "
            f"Keras {r.get('keras_version', '?')}, seed {r['seed']}."
        )
    return "\n".join(lines)
