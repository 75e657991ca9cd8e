"""The adversarial suite: what a stranger may feed keras_nmt, and what must come out."""
