"""`tf.distribute` strategies for `keras-nmt train --distribution default|mirrored|multi-worker`."""

import os

import tensorflow as tf

DISTRIBUTIONS = ("default", "mirrored", "multi-worker")


def make_distribution(name):
    """The distribution strategy called `name`.

    - `default`: no distribution (the current device).
    - `mirrored`: `MirroredStrategy` over the GPUs of this machine, or over its logical CPU devices
      when it has no GPU; each batch of the dataset (the *global* batch) is split across replicas
      and gradients are summed with all-reduce.
    - `multi-worker`: `MultiWorkerMirroredStrategy` across machines described by the `TF_CONFIG`
      environment variable (`{"cluster": {"worker": ["host:port", ...]}, "task": {"type":
      "worker", "index": i}}`); every worker runs the same command.

    Must be called before any other TensorFlow op when `multi-worker`.
    """
    if name == "default":
        return tf.distribute.get_strategy()
    if name == "mirrored":
        devices = [d.name for d in tf.config.list_logical_devices("GPU")] or [
            d.name for d in tf.config.list_logical_devices("CPU")
        ]
        return tf.distribute.MirroredStrategy(devices)
    if name == "multi-worker":
        if "TF_CONFIG" not in os.environ:
            raise ValueError("--distribution multi-worker needs the TF_CONFIG environment variable")
        return _reduce_nested(tf.distribute.MultiWorkerMirroredStrategy())
    raise ValueError(f"unknown distribution {name!r}; choose from {DISTRIBUTIONS}")


def _reduce_nested(strategy):
    """Works around two Keras 3.15 issues with `MultiWorkerMirroredStrategy.reduce`.

    Keras' TensorFlow trainer reduces a whole input batch (our dict of token tensors) to learn its
    shapes before the first step, but this strategy reduces one tensor at a time; and it reduces
    the scalar logs with `axis=0`, which a scalar does not have.
    """
    reduce_one = strategy.reduce

    def reduce(reduce_op, value, axis):
        if isinstance(value, dict):
            return {key: reduce(reduce_op, item, axis) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(reduce(reduce_op, item, axis) for item in value)
        if axis is not None:
            local = value
            if isinstance(value, tf.distribute.DistributedValues):
                local = strategy.experimental_local_results(value)[0]
            if tf.convert_to_tensor(local).shape.rank == 0:
                axis = None  # a scalar log: the mean over replicas
        return reduce_one(reduce_op, value, axis)  # a tensor or per-replica value

    strategy.reduce = reduce
    return strategy
