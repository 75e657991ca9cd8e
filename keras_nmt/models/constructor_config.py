"""`get_config` / `from_config` for models whose config is their constructor arguments."""

from keras_nmt.models.registry import card


class ConstructorConfig:
    """Mixin: the config is the constructor arguments, stored on the model under their own names.

    Each model class names its model (`model_name`, a registered card's name), so the two twins
    of a model return the same config, and `from_config` rebuilds the model (for a functional
    twin, its whole graph and inference models) from it.
    """

    model_name = None

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
