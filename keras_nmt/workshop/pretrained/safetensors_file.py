"""Reads a `.safetensors` file into NumPy arrays, without torch or the `safetensors` package.

The format (https://huggingface.co/docs/safetensors): 8 bytes, the little-endian length N of a
JSON header; the header, `{name: {"dtype", "shape", "data_offsets": [begin, end]}}` plus an
optional `"__metadata__"`; then the tensors' bytes, row-major, little-endian, offsets counted
from the end of the header.
"""

import json
import struct
from pathlib import Path

import numpy as np

# safetensors' dtype names -> NumPy's (BF16 is widened to float32 below).
_DTYPES = {
    "F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
    "I8": "i1", "U8": "u1", "BOOL": "?",
}


class SafetensorsError(ValueError):
    """The file is not a readable `.safetensors` file (the message names it)."""


def read_safetensors(path):
    """All tensors of a `.safetensors` file.

    Args:
        path: the file.

    Returns:
        `{name: np.ndarray}`; float16 stays float16, bfloat16 becomes float32.

    Raises:
        SafetensorsError: a truncated file, a damaged header or an unknown dtype.

    Example:
        >>> weights = read_safetensors("opus-mt-es-en/model.safetensors")
        >>> weights["model.shared.weight"].shape
        (65001, 512)
    """
    path = Path(path)
    data = path.read_bytes()
    if len(data) < 8:
        raise SafetensorsError(f"{path}: too short for a safetensors file ({len(data)} bytes)")
    (header_length,) = struct.unpack("<Q", data[:8])
    if 8 + header_length > len(data):
        raise SafetensorsError(f"{path}: truncated (header of {header_length} bytes announced)")
    try:
        header = json.loads(data[8:8 + header_length])
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SafetensorsError(f"{path}: damaged safetensors header ({error})") from None
    if not isinstance(header, dict):
        raise SafetensorsError(f"{path}: damaged safetensors header (not a JSON object)")
    body = memoryview(data)[8 + header_length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype, shape, (begin, end) = entry["dtype"], entry["shape"], entry["data_offsets"]
        except (TypeError, KeyError, ValueError):
            raise SafetensorsError(f"{path}: damaged entry for tensor {name!r}") from None
        if end > len(body) or begin > end:
            raise SafetensorsError(f"{path}: tensor {name!r} lies past the end of the file")
        raw = body[begin:end]
        if dtype == "BF16":
            # bfloat16 is the top half of a float32: widen by shifting the bits up.
            array = (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
        elif dtype in _DTYPES:
            array = np.frombuffer(raw, _DTYPES[dtype])
        else:
            raise SafetensorsError(f"{path}: tensor {name!r} has unsupported dtype {dtype}")
        if array.size != int(np.prod(shape, dtype=np.int64)):
            raise SafetensorsError(f"{path}: tensor {name!r} has {array.size} values for shape "
                                   f"{shape}")
        tensors[name] = array.reshape(shape)
    return tensors
