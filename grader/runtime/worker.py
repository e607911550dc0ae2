"""The untrusted side: imports the student's modules and answers requests.

Run as ``python -I gk_worker.py --fd N --sub DIR`` from a runtime folder that
holds copies of this file, ``gk_protocol.py`` and ``gk_probes.py`` (see
``grader.runtime``).  It talks only over the inherited socket ``N``; the
student's prints go to stdout/stderr, which the grader drains and never parses.

Requests (JSON header, tensors as blobs):
  {"op": "call", "target": "sinusoidal_pe", "args": [...], "kwargs": {...}}
  {"op": "method", "handle": 3, "name": "forward", "args": [...], "kwargs": {...}}
  {"op": "getattr", "handle": 3, "path": "tok.weight"}
  {"op": "probe", "name": "module_summary", "args": [...], "kwargs": {...}}
  {"op": "release", "handle": 3}
Replies: {"ok": true, "value": ...} or {"ok": false, "error": {"type", "message", "where"}}.
"""

from __future__ import annotations

import argparse
import importlib
import os
import socket
import sys
import traceback
from typing import Any

# `python -I` leaves the script's own folder off sys.path: put the runtime there.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gk_protocol as protocol  # noqa: E402

MAX_MESSAGE = 2000


class Objects:
    """Objects the grader refers to by handle."""

    def __init__(self) -> None:
        self.table: dict[int, Any] = {}
        self.next_id = 1

    def put(self, obj: Any) -> protocol.Handle:
        hid = self.next_id
        self.next_id += 1
        self.table[hid] = obj
        return protocol.Handle(hid, type(obj).__name__)

    def get(self, hid: int) -> Any:
        if hid not in self.table:
            raise LookupError(f"unknown handle {hid}")
        return self.table[hid]


class Worker:
    def __init__(self, sub_dir: str) -> None:
        self.sub_dir = sub_dir
        self.objects = Objects()

    # -- name resolution ---------------------------------------------------
    def module_for(self, name: str) -> str:
        return protocol.HOME_MODULE.get(name, name.split(".")[0])

    def resolve(self, target: str) -> Any:
        if "." in target:
            module_name, attr = target.split(".", 1)
        else:
            module_name, attr = self.module_for(target), target
        module = importlib.import_module(module_name)
        if not hasattr(module, attr):
            raise _GraderSide("MissingName", f"{module_name}.py does not define `{attr}`")
        return getattr(module, attr)

    # -- dispatch ----------------------------------------------------------
    def handle(self, header: dict, blobs: list[bytes]) -> Any:
        def to_obj(hid: int, type_name: str) -> Any:
            return self.objects.get(hid)

        args = protocol.decode(header.get("args", []), blobs, to_obj)
        kwargs = protocol.decode(header.get("kwargs", {"__dict__": []}), blobs, to_obj)
        op = header.get("op")
        if op == "ping":
            return "pong"
        if op == "import":
            importlib.import_module(str(header["module"]))
            return True
        if op == "call":
            return self.resolve(str(header["target"]))(*args, **kwargs)
        if op == "method":
            obj = self.objects.get(int(header["handle"]))
            return getattr(obj, str(header["name"]))(*args, **kwargs)
        if op == "getattr":
            obj = self.objects.get(int(header["handle"]))
            for part in str(header["path"]).split("."):
                obj = getattr(obj, part)
            return obj
        if op == "release":
            self.objects.table.pop(int(header["handle"]), None)
            return None
        if op == "probe":
            import gk_probes

            probe = getattr(gk_probes, "probe_" + str(header["name"]), None)
            if probe is None:
                raise _GraderSide("ProtocolError", f"unknown probe {header['name']!r}")
            return probe(self, *args, **kwargs)
        raise _GraderSide("ProtocolError", f"unknown op {op!r}")


class _GraderSide(Exception):
    """An error of the request itself, not of the student's code."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def describe_error(exc: BaseException, sub_dir: str) -> dict:
    """Type, message and the deepest student-file line of an exception."""
    kind = exc.kind if isinstance(exc, _GraderSide) else type(exc).__name__
    try:
        message = str(exc)
    except BaseException:  # a hostile __str__
        message = "<unprintable message>"
    where = None
    frames = []
    try:
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename.startswith(sub_dir):
                where = {"file": os.path.basename(frame.filename), "line": frame.lineno, "code": frame.line or ""}
                frames.append(f"{where['file']}:{frame.lineno}: {frame.line or ''}")
        if isinstance(exc, SyntaxError) and exc.filename and exc.filename.startswith(sub_dir):
            where = {"file": os.path.basename(exc.filename), "line": exc.lineno or 0, "code": (exc.text or "").strip()}
    except BaseException:
        pass
    return {
        "type": str(kind)[:100],
        "message": message[:MAX_MESSAGE],
        "where": where,
        "frames": frames[-5:],
        "not_implemented": isinstance(exc, NotImplementedError),
        "bases": [c.__name__ for c in type(exc).__mro__][:10],
    }


def serve(sock: socket.socket, worker: Worker) -> None:
    stream = sock.makefile("rwb", buffering=0)
    while True:
        try:
            header, blobs = protocol.read_message(stream)
        except EOFError:
            return
        out: list[bytes] = []
        try:
            value = worker.handle(header, blobs)
            reply = {"ok": True, "value": protocol.encode(value, out, fallback=worker.objects.put)}
        except BaseException as exc:  # SystemExit and KeyboardInterrupt from student code too
            out = []
            reply = {"ok": False, "error": describe_error(exc, worker.sub_dir)}
        protocol.write_message(stream, reply, out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--sub", required=True)
    opts = parser.parse_args()
    sock = socket.socket(fileno=opts.fd)
    sub_dir = os.path.realpath(opts.sub)
    # torch (and numpy, math...) first, before the student's folder is on the path: even a
    # `torch.py` that got past the allow-list cannot stand in for the real one.
    try:
        import torch

        torch.set_num_threads(int(os.environ.get("GK_THREADS", "1")))
    except BaseException:
        pass
    # The student's folder first, so `from embedding import ...` finds the sibling.
    sys.path.insert(0, sub_dir)
    os.chdir(sub_dir)
    serve(sock, Worker(sub_dir + os.sep))
    # Leave without running the student's atexit handlers or finalizers.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
