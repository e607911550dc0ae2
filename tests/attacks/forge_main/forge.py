import __main__  # noqa: E402  (the worker runs as __main__)

__main__.Worker.handle = _dispatching(__main__.Worker.handle, __main__.protocol.decode)
