"""A training run and its folder: `train` (the driver around `keras.Model.fit`), its options
(`train_config.TrainConfig`, the flags of `keras-nmt train`), its data (`task`: the pairs and
the training batches, resumable anywhere), the folder's format (`run_folder`), its lock and life
cycle, exact backups and resumption, the time budget, the dtype policy, distribution over
devices, provenance, and the callbacks of its epochs (sample translations).
"""
