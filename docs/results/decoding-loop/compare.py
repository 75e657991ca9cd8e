"""python compare_runs.py BEFORE.npz AFTER.npz: arrays that differ (shape, dtype or any bit)."""
import sys

import numpy as np

before, after = np.load(sys.argv[1]), np.load(sys.argv[2])
assert sorted(before.files) == sorted(after.files), set(before.files) ^ set(after.files)
differ = []
for key in before.files:
    x, y = before[key], after[key]
    same = x.shape == y.shape and x.dtype == y.dtype and (
        np.array_equal(x, y) if x.dtype.kind in "USO" else
        np.array_equal(x.view(np.uint8), y.view(np.uint8)))
    if not same:
        differ.append(key)
runs = sorted({key.split("/")[0] for key in before.files})
print(f"{len(before.files)} arrays from {len(runs)} runs ({', '.join(runs)}): {len(differ)} differ")
for key in differ:
    print("  ", key)
sys.exit(1 if differ else 0)
