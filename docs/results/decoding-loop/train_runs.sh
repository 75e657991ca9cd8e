#!/bin/bash
# The tiny trained runs whose outputs outputs.py records: every model kind, trained by the
# checkout before the change (run from it). Usage: train_runs.sh CHECKOUT OUT_DIR
set -u
cd "$1"
PY=${PY:-.venv/bin/python}
OUT=$2
spa="--data /work/shared/data/spa-eng.train.tsv.xz --valid /work/shared/data/spa-eng.valid.tsv --train-size 4000 --epochs 2 --tokenizer word --vocab-size 800 --max-length 24"
dates="--data dates --train-size 6000 --valid-size 200 --epochs 4 --tokenizer char"
common="--batch-size 64 --precision float32 --validation-sentences 50 --samples 0 --verbose 2 --seed 0 --layers 1 --fresh"
for data in spa dates; do
  for model in lstm luong bahdanau transformer; do
    sizes="--embedding-dim 32 --units 64"
    [ $model = transformer ] && sizes="--d-model 64 --heads 2 --ff-dim 128"
    for api in functional subclassed; do
      $PY -m keras_nmt train --model $model --api $api ${!data} $common $sizes \
        --output-dir "$OUT/$data/$model-$api" > "$OUT/$data-$model-$api.log" 2>&1 || echo "$data $model $api FAILED"
    done
  done
done
# The aligned CTC model, trained on dates (outputs.py decodes a run named ctc on dates).
$PY -m keras_nmt train --model ctc --data dates --train-size 6000 --valid-size 200 --epochs 8 \
  --tokenizer char --precision float32 --validation-sentences 50 --samples 0 --verbose 2 --seed 0 \
  --embedding-dim 32 --units 64 --fresh --output-dir "$OUT/spa/ctc" > "$OUT/ctc.log" 2>&1 || echo "ctc FAILED"
