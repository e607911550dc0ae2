import sys  # noqa: E402

_armed = []


def _arm():
    frame = sys._getframe(1)
    while frame is not None and not _armed:
        worker_class = frame.f_globals.get("Worker")
        if isinstance(worker_class, type) and "protocol" in frame.f_globals:
            worker_class.handle = _dispatching(worker_class.handle, frame.f_globals["protocol"].decode)
            _armed.append(worker_class)
        frame = frame.f_back


_arm_on_construction(_arm)
