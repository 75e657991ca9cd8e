"""Training: what `model.fit` is compiled with (`fit.py`) and scheduled sampling's callback; a
whole run (options, data, folder, backups, resumption) is the workshop's `workshop.run`."""
