import dataclasses

import pytest

from keras_nmt.workshop.comparison import preset_registry as presets_module
from keras_nmt.workshop.comparison.configuration import Configuration
from keras_nmt.workshop.comparison.preset import Preset, decoding_name
from keras_nmt.workshop.comparison.preset_registry import get_preset, preset_names, register_preset
from keras_nmt.workshop.run.train_config import teacher_forcing_values


def test_every_preset_is_registered():
    assert preset_names()[:7] == [
        "api", "attention", "granularity", "teacher-forcing", "decoding", "spa-eng", "tiny",
    ]


@pytest.mark.parametrize(
    "name, configurations",
    [
        ("attention", ["lstm", "luong-dot", "luong-general", "luong-concat", "bahdanau",
                       "transformer", "convs2s"]),
        ("granularity", ["char", "word", "subword"]),
        ("teacher-forcing", ["teacher-forcing", "linear", "exponential", "inverse-sigmoid"]),
        ("decoding", ["luong"]),
        ("spa-eng", ["lstm", "luong", "bahdanau", "transformer", "convs2s", "lstm-2layer",
                     "lstm-dropout",
                     "luong-2layer", "luong-dropout", "luong-general-dropout",
                     "bahdanau-dropout",
                     "bahdanau-tokens", "transformer-dropout", "transformer-tokens",
                     "transformer-warmup", "lstm-lr", "transformer-tied",
                     "transformer-last", "lstm-average"]),
        ("tiny", ["lstm", "luong"]),
        ("api", [f"{model}-{kind}"
                 for model in ("lstm", "luong", "bahdanau", "transformer", "convs2s")
                 for kind in ("functional", "subclassed", "subclassed-eager")]),
    ],
)
def test_configuration_names(name, configurations):
    assert get_preset(name).names == configurations


def test_configurations_resolve_to_what_they_compare():
    configs = {c.name: c.resolve() for c in get_preset("attention").configurations}
    assert configs["luong-concat"].model == "luong"
    assert configs["luong-concat"].attention_score == "concat"
    assert configs["transformer"].model == "transformer"
    api = {c.name: c.resolve() for c in get_preset("api").configurations}
    assert (api["bahdanau-subclassed-eager"].api, api["bahdanau-subclassed-eager"].run_eagerly) \
        == ("subclassed", True)
    assert api["bahdanau-functional"].run_eagerly is False
    preset = get_preset("teacher-forcing")
    for configuration in preset.configurations:
        config = configuration.resolve(preset.defaults)
        assert config.api == "subclassed"
        teacher_forcing_values(config.teacher_forcing)  # valid specs
    preset = get_preset("granularity")
    assert [c.resolve(preset.defaults).tokenizer for c in preset.configurations] == [
        "char", "word", "subword"]


def test_decoding_preset_trains_once_and_decodes_seven_ways():
    preset = get_preset("decoding")
    assert len(preset.configurations) == 1
    assert [(d.beam_size, d.length_penalty) for d in preset.decodings] == [
        (1, 0.0), (2, 0.0), (4, 0.0), (8, 0.0), (2, 0.6), (4, 0.6), (8, 0.6)]
    assert decoding_name(preset.decodings[-1]) == "beam 8, alpha 0.6"


def test_spa_eng_reference_run():
    preset = get_preset("spa-eng")
    assert preset.evaluation_split == "test"
    assert [decoding_name(d) for d in preset.decodings] == ["greedy", "beam 5"]
    config = preset.configurations[3].resolve(preset.defaults)
    assert config.data.endswith("shared/data/spa-eng.{split}.tsv")
    assert (config.source_column, config.tokenizer, config.vocab_size) == (1, "subword", 8000)
    assert config.time_budget == 45.0 and config.label_smoothing == 0.1
    assert (config.average_checkpoints, config.average_every) == (5, 250)
    configs = {c.name: c.resolve(preset.defaults)
               for c in (*preset.configurations, *preset.variants)}
    assert [configs[model].dropout for model in ("lstm", "luong", "bahdanau", "transformer")] \
        == [0.0] * 4
    assert configs["luong"].attention_score == "concat"
    # Each variant differs from its model's reference only in the fields it names.
    for name, model, changes in (
        ("lstm-2layer", "lstm", {"num_layers": 2}),
        ("lstm-dropout", "lstm", {"num_layers": 2, "dropout": 0.2}),
        ("luong-2layer", "luong", {"num_layers": 2}),
        ("luong-dropout", "luong", {"num_layers": 2, "dropout": 0.2}),
        ("luong-general-dropout", "luong",
         {"num_layers": 2, "dropout": 0.2, "attention_score": "general"}),
        ("bahdanau-dropout", "bahdanau", {"dropout": 0.2}),
        ("bahdanau-tokens", "bahdanau",
         {"dropout": 0.2, "batch_tokens": 4096, "learning_rate": 2e-3}),
        ("transformer-dropout", "transformer", {"dropout": 0.1, "average_checkpoints": 1}),
        ("transformer-tokens", "transformer",
         {"dropout": 0.1, "batch_tokens": 4096, "warmup_steps": 1000, "average_checkpoints": 1}),
        ("transformer-warmup", "transformer",
         {"dropout": 0.1, "warmup_steps": 2000, "average_checkpoints": 1}),
        ("lstm-lr", "lstm", {"num_layers": 2, "learning_rate": 3e-3}),
        ("transformer-tied", "transformer", {"tied_output": True, "average_checkpoints": 1}),
        ("transformer-last", "transformer", {"average_checkpoints": 1}),
        ("lstm-average", "lstm",
         {"num_layers": 2, "average_checkpoints": 5, "average_every": 250}),
    ):
        assert configs[name] == dataclasses.replace(configs[model], **changes), name
        assert all(getattr(configs[model], key) != value for key, value in changes.items())


def test_resolution_order():
    configuration = Configuration("c", overrides={"model": "luong"},
                                  defaults={"units": 512, "embedding_dim": 64})
    config = configuration.resolve({"units": 8, "dropout": 0.5}, {"units": 32, "model": "lstm"},
                                   output="runs/c")
    # preset < configuration defaults < user < overrides < fixed
    assert (config.units, config.embedding_dim, config.dropout) == (32, 64, 0.5)
    assert config.model == "luong" and config.output == "runs/c"
    with pytest.raises(ValueError, match="unknown TrainConfig fields"):
        Configuration("c", {"no_such_option": 1}).resolve()


def test_select_and_errors():
    preset = get_preset("attention").select(["bahdanau", "lstm"])
    assert preset.names == ["lstm", "bahdanau"]  # preset order
    # Variants run only when named.
    spa_eng = get_preset("spa-eng")
    assert spa_eng.select([]).names == ["lstm", "luong", "bahdanau", "transformer", "convs2s"]
    selected = spa_eng.select(["transformer-warmup", "luong"])
    assert [c.name for c in selected.configurations] == ["luong", "transformer-warmup"]
    assert selected.variants == ()
    with pytest.raises(ValueError, match="repeat"):
        Preset("p", "", (Configuration("a"),), variants=(Configuration("a"),))
    with pytest.raises(ValueError, match="choose from lstm, luong-dot"):
        get_preset("attention").select(["gru"])
    with pytest.raises(ValueError, match="unknown comparison preset"):
        get_preset("nope")
    with pytest.raises(ValueError, match="repeat"):
        Preset("p", "", (Configuration("a"), Configuration("a")))


def test_other_modules_can_register_presets(monkeypatch):
    monkeypatch.setattr(presets_module, "_PRESETS", dict(presets_module._PRESETS))

    @register_preset("extra")
    def extra():
        return Preset("extra", "an extra preset", (Configuration("one"),))

    assert get_preset("extra").names == ["one"] and "extra" in preset_names()
    with pytest.raises(ValueError, match="already registered"):
        register_preset("extra", extra)
    monkeypatch.setitem(presets_module.LAZY_PRESETS, "lazy",
                        "keras_nmt.workshop.comparison.preset_registry:tiny_preset")
    with pytest.raises(ValueError, match="calls itself 'tiny'"):
        get_preset("lazy")
    monkeypatch.setitem(presets_module.LAZY_PRESETS, "tiny-lazy",
                        "tests.comparison.test_presets:_renamed_tiny")
    assert get_preset("tiny-lazy").names == ["lstm", "luong"]


def _renamed_tiny():
    return dataclasses.replace(presets_module.tiny_preset(), name="tiny-lazy")
