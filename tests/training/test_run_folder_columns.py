"""A run folder compares the columns a run reads, not how the flags named them."""

import pytest

from keras_nmt.workshop.run.run_lifecycle import RunFolderError, check_run_folder
from keras_nmt.workshop.run.train_config import TrainConfig


def test_the_default_target_column_and_its_number_are_one_run(tmp_path):
    TrainConfig().to_json(tmp_path / "config.json")  # source 0, target: the other one
    check_run_folder(TrainConfig(target_column=1), tmp_path / "config.json")
    check_run_folder(TrainConfig(source_column=0, target_column=1), tmp_path / "config.json")


def test_other_columns_are_refused_naming_them(tmp_path):
    TrainConfig().to_json(tmp_path / "config.json")
    with pytest.raises(RunFolderError, match=r"source_column \(0 in the folder, 1 now\); "
                       r"target_column \(1 in the folder, 0 now\)"):
        check_run_folder(TrainConfig(source_column=1), tmp_path / "config.json")
