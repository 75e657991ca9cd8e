"""Training-step speed of the spelling comparison's models, timed in turn on the same batches.

Builds each model of a finished comparison from its run folder's config (the same sizes, the
same `mixed_bfloat16` or float32 policy the run chose), compiles it as `train()` does, and times
`train_on_batch` on the same 64 noisy test sentences, the models in turn, after a warm-up; then
the CTC loss alone (forward and gradient) on the CTC model's logits. Writes `step_speed.json`
beside this script. Usage, from the repository root:

    python docs/results/spelling-ctc/step_speed.py runs/spell-ctc
"""

import json
import sys
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from keras_nmt.data.pipeline import make_dataset
from keras_nmt.models.ctc.ctc_loss import ctc_loss
from keras_nmt.models.registry import build_model
from keras_nmt.training.fit import compile_model
from keras_nmt.workshop.run.run_folder import RunFolder
from keras_nmt.workshop.run.train_config import TrainConfig
from keras_nmt.workshop.timing import time_in_turn

HERE = Path(__file__).resolve().parent
ROUNDS = 20


def main(runs_dir):
    folders = sorted(path for path in Path(runs_dir).glob("char-*")
                     if (path / "model.keras").exists())
    run = RunFolder.load(folders[0])
    keras.mixed_precision.set_global_policy(
        json.loads((folders[0] / "precision.json").read_text())["policy"])
    lines = (folders[0] / "test_pairs.tsv").read_text(encoding="utf-8").splitlines()[1:65]
    pairs = [tuple(line.split("\t")[:2]) for line in lines]
    batch = next(iter(make_dataset(pairs, run.source_tokenizer, run.target_tokenizer,
                                   batch_size=64, shuffle=False)))
    models = {}
    for folder in folders:
        config = TrainConfig(**{k: v for k, v in json.loads(
            (folder / "config.json").read_text()).items() if k in TrainConfig.__dataclass_fields__})
        keras.utils.set_random_seed(0)
        model = build_model(config.model, config.api, run.source_tokenizer.vocab_size,
                            run.target_tokenizer.vocab_size, vars(config))
        model(batch[0])
        compile_model(model, config)
        model.train_on_batch(*batch)  # warm-up: traces the step
        models[config.model] = model
    names = list(models)
    steps = time_in_turn([lambda m=models[n]: m.train_on_batch(*batch) for n in names],
                         repeats=ROUNDS, rotate=True)
    logits = tf.Variable(tf.cast(models["ctc"](batch[0]), tf.float32))
    lengths = models["ctc"].frame_lengths(batch[0]["encoder_tokens"])

    @tf.function
    def loss_and_gradient():
        with tf.GradientTape() as tape:
            loss = ctc_loss(batch[1], logits, lengths)
        return loss, tape.gradient(loss, logits)

    loss_and_gradient()
    [loss_time] = time_in_turn([lambda: [t.numpy() for t in loss_and_gradient()]],
                               repeats=ROUNDS)
    record = {
        "batch": {"sentences": 64, "source_tokens": int(np.sum(batch[0]["encoder_tokens"] > 0)),
                  "target_tokens": int(np.sum(batch[1] > 0))},
        "policy": keras.mixed_precision.global_policy().name,
        "step_seconds": {name: timing.median for name, timing in zip(names, steps, strict=True)},
        "ctc_loss_and_gradient_seconds": loss_time.median,
        "parameters": {name: int(models[name].count_params()) for name in names},
    }
    (HERE / "step_speed.json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main(sys.argv[1])
