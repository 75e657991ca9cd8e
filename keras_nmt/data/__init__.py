"""The tf.data pipeline (`pipeline.make_dataset`): string pairs in, teacher-forcing batches out.

The pairs come from the workshop's `keras_nmt.workshop.corpora` (the built-in dates, corpus files).
"""
