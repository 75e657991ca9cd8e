"""What the machine is and how fast it multiplies: the facts precision choice and benchmarks share.

* `machine`: the CPU model, its relevant ISA flags (AVX2, AVX-512, AVX512_BF16, AMX) and the GPUs.
* `peak`: the measured matmul FLOP/s in a given dtype (the MFU denominator), and how much faster
  bf16 multiplies given shapes than float32 (`--precision auto`), timed by
  `keras_nmt.workshop.timing`.
* `cudnn`: why an LSTM layer could not run on cuDNN (`cudnn_ineligibility`; none of ours).
"""
