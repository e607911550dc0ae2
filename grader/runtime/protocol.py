"""Wire format between the trusted grader and the untrusted worker.

A message is a 4-byte big-endian header length, a UTF-8 JSON header, then the
raw bytes of every tensor it carries.  Values are a small JSON tree: plain
scalars, lists, tuples, string-keyed dicts, tensors (dtype, shape, a blob index)
and handles to objects that stay in the worker.  Nothing is pickled and no code
crosses the boundary, so a hostile worker can only send wrong *data*, which the
grader then checks like any other answer.

This module is imported by the worker too, so it depends on the standard
library only; torch is imported lazily where tensors are (de)serialised.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import Any, BinaryIO

MAX_HEADER = 4 * 1024 * 1024
MAX_BLOBS_BYTES = 512 * 1024 * 1024
MAX_DEPTH = 32

# Dtypes a tensor may carry across; anything else is refused by the grader.
DTYPES = (
    "float16", "bfloat16", "float32", "float64",
    "int8", "int16", "int32", "int64", "uint8", "bool",
    "complex64", "complex128",
)

class ProtocolError(Exception):
    """The other side sent something that is not a valid message."""


@dataclass(frozen=True)
class Handle:
    """A reference to an object that lives in the worker (a module, a model...)."""

    id: int
    type_name: str


@dataclass(frozen=True)
class MetaTensor:
    """A tensor with no data (device 'meta', or fake): only its description."""

    dtype: str
    shape: tuple[int, ...]
    device: str


def _dtype_name(t: Any) -> str:
    return str(t.dtype).removeprefix("torch.")


def encode(value: Any, blobs: list[bytes], depth: int = 0, fallback: Any = None) -> Any:
    """Turn a value into its JSON tree, appending raw tensor bytes to ``blobs``.

    ``fallback`` turns any other object into a Handle (the worker keeps the
    object); without it such a value is an error.
    """
    if depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**63 else {"__bigint__": str(value)}
    if isinstance(value, float):
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, Handle):
        return {"__handle__": value.id, "type": value.type_name}
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, blobs, depth + 1, fallback) for v in value]}
    if isinstance(value, list):
        return [encode(v, blobs, depth + 1, fallback) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, blobs, depth + 1, fallback), encode(v, blobs, depth + 1, fallback)]
                             for k, v in value.items()]}
    if isinstance(value, MetaTensor):
        return {"__tensor__": {"dtype": value.dtype, "shape": list(value.shape), "device": value.device,
                               "blob": None}}
    if type(value).__name__ == "device" and type(value).__module__ == "torch":
        return {"__device__": str(value)}
    if type(value).__name__ == "dtype" and type(value).__module__ == "torch":
        return {"__dtype__": str(value).removeprefix("torch.")}
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return _encode_tensor(value, blobs)
    if fallback is not None:
        return encode(fallback(value), blobs, depth, None)
    raise ProtocolError(f"cannot send a value of type {type(value).__name__}")


def _encode_tensor(t: Any, blobs: list[bytes]) -> dict:
    torch = _torch()
    # torch.Tensor methods called on the base class, so a subclass's overrides
    # cannot change what is serialised.
    base = torch.Tensor
    with torch._C.DisableTorchFunction():
        t = base.detach(t)
        device = str(t.device)
        info: dict[str, Any] = {
            "dtype": _dtype_name(t),
            "shape": list(t.shape),
            "device": device,
            "subclass": type(t).__name__ if type(t) is not base else None,
        }
        if t.device.type == "meta" or _is_fake(t):
            info["blob"] = None
            return {"__tensor__": info}
        t = base.contiguous(base.cpu(t))
        if t.dtype == torch.bfloat16:
            raw = t.view(torch.int16).numpy().tobytes()
        else:
            raw = t.numpy().tobytes()
    info["blob"] = len(blobs)
    blobs.append(raw)
    return {"__tensor__": info}


def _is_fake(t: Any) -> bool:
    return type(t).__name__ in ("FakeTensor", "FunctionalTensor")


def decode(tree: Any, blobs: list[bytes], make_handle: Any = Handle, depth: int = 0) -> Any:
    """Rebuild a value from its JSON tree.  Tensors come back as plain torch.Tensor."""
    if depth > MAX_DEPTH:
        raise ProtocolError("value nested too deeply")
    if tree is None or isinstance(tree, (bool, int, float, str)):
        return tree
    if isinstance(tree, list):
        return [decode(v, blobs, make_handle, depth + 1) for v in tree]
    if not isinstance(tree, dict) or len(tree) == 0:
        raise ProtocolError("malformed value")
    if "__tuple__" in tree:
        return tuple(decode(v, blobs, make_handle, depth + 1) for v in tree["__tuple__"])
    if "__dict__" in tree:
        return {decode(k, blobs, make_handle, depth + 1): decode(v, blobs, make_handle, depth + 1)
                for k, v in tree["__dict__"]}
    if "__float__" in tree:
        return float(tree["__float__"])
    if "__bigint__" in tree:
        return int(tree["__bigint__"])
    if "__handle__" in tree:
        return make_handle(int(tree["__handle__"]), str(tree.get("type", "?")))
    if "__device__" in tree:
        return _torch().device(str(tree["__device__"]))
    if "__dtype__" in tree:
        name = str(tree["__dtype__"])
        if name not in DTYPES:
            raise ProtocolError(f"unknown dtype {name!r}")
        return getattr(_torch(), name)
    if "__tensor__" in tree:
        return _decode_tensor(tree["__tensor__"], blobs)
    raise ProtocolError("malformed value")


def _decode_tensor(info: dict, blobs: list[bytes]) -> Any:
    torch = _torch()
    dtype_name = info.get("dtype")
    if dtype_name not in DTYPES:
        raise ProtocolError(f"unknown dtype {dtype_name!r}")
    shape = info.get("shape")
    if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise ProtocolError("malformed tensor shape")
    if info.get("blob") is None:
        return MetaTensor(dtype_name, tuple(shape), str(info.get("device", "meta")))
    raw = blobs[int(info["blob"])]
    dtype = getattr(torch, dtype_name)
    numel = math.prod(shape)
    itemsize = torch.empty((), dtype=dtype).element_size()
    if len(raw) != numel * itemsize:
        raise ProtocolError(f"tensor of shape {shape} and dtype {dtype_name} cannot hold {len(raw)} bytes")
    if numel == 0:
        return torch.empty(shape, dtype=dtype)
    if dtype == torch.bfloat16:
        flat = torch.frombuffer(bytearray(raw), dtype=torch.int16).view(torch.bfloat16)
    else:
        flat = torch.frombuffer(bytearray(raw), dtype=dtype)
    # frombuffer gives a plain torch.Tensor; clone so it owns its memory.
    return flat.reshape(shape).clone()


def write_message(stream: BinaryIO, header: dict, blobs: list[bytes]) -> None:
    header = dict(header, blobs=[len(b) for b in blobs])
    data = json.dumps(header, ensure_ascii=False, allow_nan=False).encode("utf-8")
    stream.write(struct.pack(">I", len(data)))
    stream.write(data)
    for b in blobs:
        stream.write(b)
    stream.flush()


def read_message(stream: BinaryIO) -> tuple[dict, list[bytes]]:
    head = _read_exact(stream, 4)
    (n,) = struct.unpack(">I", head)
    if n > MAX_HEADER:
        raise ProtocolError(f"header of {n} bytes is too large")
    try:
        header = json.loads(_read_exact(stream, n).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise ProtocolError("header is not an object")
    sizes = header.pop("blobs", [])
    if not isinstance(sizes, list) or not all(isinstance(s, int) and s >= 0 for s in sizes):
        raise ProtocolError("malformed blob sizes")
    if sum(sizes) > MAX_BLOBS_BYTES:
        raise ProtocolError("message too large")
    return header, [_read_exact(stream, s) for s in sizes]


def _read_exact(stream: BinaryIO, n: int) -> bytes:
    chunks = []
    while n:
        chunk = stream.read(n)
        if not chunk:
            raise EOFError("the other side closed the connection")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _torch() -> Any:
    import torch

    return torch
