"""What every model's shared class (`<name>/model.py`) derives from: its twins' promise, and
`get_config` / `from_config` for a config that is the constructor arguments."""

from keras_nmt.models.registry import card


class ConstructorConfig:
    """Mixin of a model's shared class: the docstring, the constructor and the layers.

    The twins, `<Stem>Functional` (`functional.py`) and `<Stem>Subclassed` (`subclassed.py`),
    take its arguments, make its layers (the same names, so weights copy by name:
    `keras_nmt.workshop.copy_weights_by_layer_name`) and give the same numbers; they differ only
    in how the layers are wired. The defaults are the training defaults (the card's options), so
    the class built without arguments is the model `keras-nmt train --model <name>` trains. A
    twin is called on `{"encoder_tokens": (batch, source_len) int32, "decoder_tokens": (batch,
    target_len) int32}`, padded with 0, and returns logits `(batch, target_len,
    target_vocab_size)` float32.

    The config is the constructor arguments, stored on the model under their own names
    (`_store_arguments`). Each class names its model (`model_name`, a registered card's name),
    so the two twins of a model return the same config, and `from_config` rebuilds the model
    (for a functional twin, its whole graph and inference models) from it.
    """

    model_name = None

    def _store_arguments(self, arguments):
        """Sets each constructor argument of `arguments` (the constructor's `locals()`) that the
        config holds as an attribute of the same name."""
        for name in ("source_vocab_size", "target_vocab_size", *card(self.model_name).arguments):
            if name in arguments:
                setattr(self, name, arguments[name])

    def get_config(self):
        names = ("source_vocab_size", "target_vocab_size", *card(self.model_name).arguments)
        return {
            "name": self.name,
            "trainable": self.trainable,
            **{key: getattr(self, key) for key in names},
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)
