"""CPU seconds and wall seconds of one process translating N sentences, per configuration.

A: TensorFlow's default pools, one batch at a time. B: `configure_decoding_threads(2)`, then
passes with `parallel=1` and `parallel=2` alternating (same pools). Two passes each after a
warm-up pass; CPU seconds (`time.process_time`) say how much work a pass costs even where other
processes take the cores.

    python cpu_time.py A|B SENTENCES RUN_OR_SAVED_DIR [BEAM_SIZE]
"""
import sys
import time

# Before any TensorFlow op: B's pools must be set first.
from keras_nmt.workshop.translators.decoding_threads import configure_decoding_threads

DATA = "/work/shared/data/spa-eng.test.tsv"
config = sys.argv[1]
parallel_choices = [1, configure_decoding_threads(2)] if config == "B" else [1]

from keras_nmt.workshop.corpora.corpus import read_tsv  # noqa: E402
from keras_nmt.workshop.translators.open_translator import open_translator  # noqa: E402

texts = [source for source, _ in read_tsv(DATA).pairs][: int(sys.argv[2])]
translator = open_translator(sys.argv[3])
options = {"beam_size": int(sys.argv[4])} if len(sys.argv) > 4 else {}
for parallel in parallel_choices:  # warm-up
    translator.translate_batch(texts, parallel=parallel, **options)
for _ in range(2):
    for parallel in parallel_choices:
        wall, cpu = time.perf_counter(), time.process_time()
        translator.translate_batch(texts, parallel=parallel, **options)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{config} {options} parallel={parallel} wall {wall:.2f} s, cpu {cpu:.2f} s, "
              f"cpu/wall {cpu / wall:.2f}", flush=True)
