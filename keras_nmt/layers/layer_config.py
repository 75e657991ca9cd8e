"""`get_config` for layers whose config is their constructor arguments."""


class ArgumentsConfig:
    """Mixin before `keras.layers.Layer`: the config adds the constructor arguments named in
    `config_arguments`, each stored on the layer under its own name, so that Keras'
    `from_config` (`cls(**config)`) rebuilds the layer."""

    config_arguments = ()

    def get_config(self):
        return {**super().get_config(),
                **{name: getattr(self, name) for name in self.config_arguments}}
