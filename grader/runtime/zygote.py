"""The zygote: a template worker that has imported torch and loaded the runtime, and forks workers.

Copied into a runtime folder as ``gk_zygote.py`` and started by the grader (as root,
with a scrubbed environment and no student code anywhere near it) as
``python -I gk_zygote.py --fd N``.  Each ``spawn`` request on the control socket
carries a worker's sandbox configuration (the same one gk_init.py reads) and three
file descriptors: the worker's end of its connection, its stdout and its stderr.

For each one the zygote forks a launcher, which does what ``unshare --fork
--kill-child`` and gk_init.py do for a freshly executed worker: joins the cgroup,
takes its own session, enters new mount, network, PID, IPC and UTS namespaces and
forks PID 1 of the new PID namespace; PID 1 builds the filesystem view and forks
the worker, which drops to its unprivileged uid with its rlimits and then, instead
of executing a new Python that imports torch again, serves from the runtime the
zygote already holds (hiding it, installing the audit hook, then the student's
files).  The zygote reports each launcher's exit status back on the control socket.

A ``host`` request (grader/sandbox/host.py) forks a *grader* instead: the `grade`
command that started the zygote has it fork the process that does the grading,
so the grader, the zygote and every worker share one copy of torch.  The request
itself carries nothing but file descriptors (stdin, stdout, stderr and a socket);
the fork reads the grader's command line and environment from that socket, so the
zygote, which later forks student code, never holds them.

Standard library only, besides what gk_worker.py's ``prepare`` imports (torch).
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
from typing import Any

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
PR_SET_PDEATHSIG = 1
MADV_DONTNEED = 4


def _load(path: str, name: str) -> dict:
    ns: dict[str, Any] = {"__name__": name, "__builtins__": __builtins__, "__file__": path}
    with open(path, encoding="utf-8") as fh:
        exec(compile(fh.read(), path, "exec", dont_inherit=True), ns)
    return ns


def send(ctl: socket.socket, message: dict) -> None:
    ctl.send(json.dumps(message).encode())  # a SOCK_SEQPACKET socket: one message per packet


def launcher(cfg: dict, fds: list[int], boot: dict, init: dict, runtime: dict) -> int:
    """The forked launcher: cgroup, session, namespaces; returns PID 1's exit status."""
    libc = init["_libc"]
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    os.setsid()
    for procs in cfg.get("cgroup_procs", []):
        with open(procs, "w") as fh:
            fh.write(str(os.getpid()))
    conn, out, err = fds
    target = int(cfg["fd"])
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    if conn != target:
        os.dup2(conn, target)
    os.set_inheritable(target, True)
    os.closerange(3, target)
    os.closerange(target + 1, 65536)
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
    init["_check"](libc.unshare(flags), "unshare")
    child = os.fork()
    if child == 0:  # PID 1 of the new namespace: gk_init.run, serving instead of exec'ing
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        try:
            code = init["run"](cfg, start=lambda: serve(cfg, boot, runtime))
        except BaseException as exc:  # noqa: BLE001
            print(f"gk_zygote: cannot start the worker: {exc}", file=sys.stderr)
            code = 122
        os._exit(code)
    os.close(target)
    while True:
        pid, status = os.waitpid(child, 0)
        if pid == child:
            return 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def serve(cfg: dict, boot: dict, runtime: dict) -> None:
    """In the worker (unprivileged by now): the environment, then the bootstrap's own steps."""
    os.environ.clear()
    os.environ.update(cfg["env"])
    try:
        import torch

        torch.set_num_threads(int(cfg["env"].get("GK_THREADS", "1")))
    except BaseException:
        pass
    sub_dir = cfg["cwd"]
    # The graded lesson's probes: this worker's own runtime folder has them (gk_init binds it at /runtime),
    # the zygote's, made before any lesson was known, does not.
    boot["load_lesson_probes"](runtime, "/runtime")
    begin, take = runtime["server"]["make_server"](runtime, sub_dir + os.sep)
    boot["hide_runtime"]()
    boot["undumpable"]()  # the uid change made it so already; said, not assumed
    sys.path.insert(0, sub_dir)
    os.chdir(sub_dir)
    holder = [take]
    begin(socket.socket(fileno=int(cfg["fd"])))
    # What lies below student frames on the main thread from here: this frame and the
    # zygote's; the runtime dict is empty now (begin cleared it), the control socket closed.
    del begin, take, runtime, boot
    import collections
    import operator

    collections.deque(map(operator.methodcaller("__call__"), iter(holder.pop(), None)), maxlen=0)
    sys.stdout.flush()
    os._exit(0)


def host(fds: list[int]) -> int:
    """The forked grader: the caller's stdio, then grader.sandbox.host runs the command it reads."""
    import importlib

    stdin, out, err, sock = fds
    for fd, target in ((stdin, 0), (out, 1), (err, 2)):
        os.dup2(fd, target)
        os.close(fd)
    channel = socket.socket(fileno=sock)
    with channel.makefile("rb") as fh:
        payload = json.loads(fh.readline())
    sys.path[:] = payload["sys_path"]
    return int(importlib.import_module(payload["module"]).hosted(payload, channel))


def release_file_pages() -> int:
    """Unmap from this process the library pages it touched only while importing torch; the bytes of the
    mappings let go.

    Importing torch and the warm-up fault in about 300 MiB of its libraries' code and read-only data
    (libcublasLt, libnvrtc, libtriton...: mostly their initialisers), which then count in the zygote's
    RSS for as long as it lives, though the idle zygote only waits and forks.  Its forks never inherit
    those mappings' pages (the kernel does not copy page tables of file mappings no fork wrote to): a
    worker or grader maps each page it runs from the page cache again whether the zygote holds it or
    not.  Only mappings that can hold nothing of this process are let go: a private file mapping,
    not writable, with no page of its own (``Anonymous: 0``); MADV_DONTNEED there drops the mapping
    of clean file pages, which stay in the page cache and come back on the next touch."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        with open("/proc/self/smaps", encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except (OSError, AttributeError):
        return 0
    released = 0
    mapping: list | None = None  # [start, end, perms, path, anonymous kB]
    for line in [*text.splitlines(), "end-of-maps"]:
        head = line.split(None, 5)
        if head and head[0] == "Anonymous:" and mapping is not None:
            mapping[4] = int(head[1])
        elif head and (line == "end-of-maps" or ("-" in head[0] and not head[0].endswith(":"))):
            if mapping is not None:
                start, end, perms, path, anonymous = mapping
                if (path.startswith("/") and not path.endswith("(deleted)") and perms[1] == "-"
                        and perms[3] == "p" and anonymous == 0
                        and libc.madvise(start, end - start, MADV_DONTNEED) == 0):
                    released += end - start
            if line != "end-of-maps":
                low, high = (int(x, 16) for x in head[0].split("-"))
                mapping = [low, high, head[1], head[5].strip() if len(head) > 5 else "", None]
    return released


def _early_host(starter: socket.socket) -> int | None:
    """Fork the grader if the starter has asked for one already; its pid."""
    if not select.select([starter], [], [], 0)[0]:
        return None
    data, fds, _, _ = socket.recv_fds(starter, 1 << 20, 4)
    if not data or not json.loads(data).get("host"):  # only a host request can come before "ready"
        os._exit(0)
    pid = _fork(lambda: host(fds), "start the grader")
    for fd in fds:
        os.close(fd)
    send(starter, {"spawned": pid})
    return pid


def _fork(run: Any, what: str) -> int:
    """Fork a child that exits with ``run()``'s status (122 if it raises); its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            code = run()
        except BaseException as exc:  # noqa: BLE001
            print(f"gk_zygote: cannot {what}: {exc}", file=sys.stderr)
            code = 122
        os._exit(code)
    return pid


def main() -> None:
    """Serve spawn requests from the starter's connection and from graders that connect later
    (a batch's forked graders); exit when the starter hangs up."""
    here = os.path.dirname(os.path.abspath(__file__))
    starter = socket.socket(fileno=int(sys.argv[sys.argv.index("--fd") + 1]))
    listener = socket.socket(fileno=int(sys.argv[sys.argv.index("--listen") + 1]))
    boot = _load(os.path.join(here, "gk_worker.py"), "gk_boot")
    init = _load(os.path.join(here, "gk_init.py"), "gk_init_ns")
    boot["import_torch"]()
    # A grader asked for while torch was importing starts now: it needs torch, not the runtime
    # below, which it would only wait for (nor the warm-up, which waits for a worker that asks).
    early = _early_host(starter)
    runtime = boot["prepare"](here)
    # Everything loaded so far is shared with the workers: out of the collector's sight, whose
    # passes would otherwise write to every object's header and copy every page of it.
    import gc

    gc.collect()
    gc.freeze()
    send(starter, {"ready": os.getpid()})
    conns: list[socket.socket] = [starter]
    watching: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (launcher pid, its grader)
    if early is not None:
        watching[os.pidfd_open(early)] = (early, starter)
    released = warmed = False
    while True:
        waiting: list[socket.socket | int] = [listener, *conns, *watching]
        ready, _, _ = select.select(waiting, [], [], 5.0)
        if not ready and not released:  # idle a first time: a warm daemon's zygote, a long grade's
            release_file_pages()
            released = True
        for fd in [f for f in ready if isinstance(f, int)]:
            pid, conn = watching.pop(fd)
            os.close(fd)
            _, status = os.waitpid(pid, 0)
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            try:
                send(conn, {"exit": pid, "code": code})
            except OSError:
                pass
        if listener in ready:
            conn, _ = listener.accept()
            send(conn, {"ready": os.getpid()})
            conns.append(conn)
        for conn in [c for c in ready if isinstance(c, socket.socket) and c is not listener]:
            try:
                data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 4)
            except OSError:
                data, fds = b"", []
            if not data:
                if conn is starter:  # the grader that started us is gone: so are its workers
                    os._exit(0)
                conns.remove(conn)
                conn.close()
                continue
            cfg = json.loads(data)
            if not warmed and "--warm" in cfg.get("argv", ()):
                # the first worker that asks for torch warmed up (launch.SandboxPolicy.torch_warm_up): done
                # here, once, and shared like the rest with every worker forked after it
                boot["warm_up"]()
                gc.collect()
                gc.freeze()
                warmed = True

            def child(cfg: dict = cfg, fds: list[int] = fds) -> int:
                for other in (listener, *conns):
                    other.close()
                for fd in watching:
                    os.close(fd)
                return host(fds) if cfg.get("host") else launcher(cfg, fds, boot, init, runtime)

            pid = _fork(child, "start the grader" if cfg.get("host") else "launch the worker")
            for fd in fds:
                os.close(fd)
            watching[os.pidfd_open(pid)] = (pid, conn)
            send(conn, {"spawned": pid})


if __name__ == "__main__":
    main()
