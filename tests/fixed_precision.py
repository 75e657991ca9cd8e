"""The precision of the tests whose subject is not precision: float32, whatever the CPU.

`--precision auto` picks mixed_bfloat16 on a CPU with AMX, and a mixed-precision run then loads
its saved model again in float32 and traces its decoder again to score it: about 2 CPU-seconds
of a tiny run's 6-8, a quarter of a fine-tuning's. Fixing float32 also makes these tests behave
alike on every CPU. What bf16 changes has tests of its own: the faked-bf16 run in
`tests/training/test_trainer.py`, `tests/training/test_precision.py`, and the two that keep the
CPU's own choice, `tests/training/test_exact_resume.py` and the end-to-end comparison in
`tests/apps/test_compare_app.py`.
"""

FLOAT32 = "float32"
FLOAT32_FLAGS = ["--precision", FLOAT32]
