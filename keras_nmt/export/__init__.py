"""Export: the `Translator` as a SavedModel (`saved_model.write_saved_model`)."""
