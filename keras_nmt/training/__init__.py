"""Training: what `model.fit` is compiled with (`fit.py`: the masked loss and metrics, the
optimizer and its schedule) and the callbacks that shape it (scheduled sampling).

A whole training run (its options `TrainConfig`, its data `Task`, its folder, backups and
resumption) is the workshop's `keras_nmt.workshop.run`, built on this package.
"""
