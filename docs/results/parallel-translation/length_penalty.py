"""Beam 4 and 5 BLEU on a run's validation set for several length penalties (GNMT alpha).

    python docs/results/parallel-translation/length_penalty.py RUN_FOLDER [RUN_FOLDER ...] \
        --output length-penalty.json
"""

import argparse
import json

from keras_nmt.workshop.translators.decoding_threads import configure_decoding_threads

PARALLEL = configure_decoding_threads()  # before any TensorFlow op; outputs do not depend on it

from keras_nmt.metrics import group_references  # noqa: E402
from keras_nmt.workshop.evaluation import score_all  # noqa: E402
from keras_nmt.workshop.run.task import load_pairs  # noqa: E402
from keras_nmt.workshop.run.train_config import TrainConfig  # noqa: E402
from keras_nmt.workshop.translators.open_translator import open_translator  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--beams", default="4,5")
    parser.add_argument("--alphas", default="0,0.6,1.0")
    parser.add_argument("--output", default="length-penalty.json")
    args = parser.parse_args()
    records = []
    for run in args.runs:
        config = TrainConfig.from_json(f"{run}/config.json")
        sources, references = group_references(load_pairs(config)[1])
        translator = open_translator(run)
        for beam in (int(b) for b in args.beams.split(",")):
            for alpha in (float(a) for a in args.alphas.split(",")):
                results = translator.translate_batch(sources, beam_size=beam, length_penalty=alpha)
                hypotheses = [result.text for result in results]
                scores = score_all(hypotheses, references)
                record = {"run": run, "data": config.data, "model": config.model,
                          "beam_size": beam, "length_penalty": alpha,
                          "sentences": len(sources), "bleu": scores["bleu"],
                          "chrf": scores["chrf"], "exact_match": scores["exact_match"],
                          "mean_words": sum(len(h.split()) for h in hypotheses) / len(hypotheses)}
                records.append(record)
                print(json.dumps(record), flush=True)
    with open(args.output, "w", encoding="utf-8") as stream:
        json.dump(records, stream, indent=2)


if __name__ == "__main__":
    main()
