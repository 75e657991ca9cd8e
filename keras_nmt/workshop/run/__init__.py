"""A training run and its folder: `train` (the driver around `keras.Model.fit`), the folder's
format (`run_folder`), its lock and life cycle, exact backups and resumption, the time
budget, the dtype policy, distribution over devices, provenance.
"""
