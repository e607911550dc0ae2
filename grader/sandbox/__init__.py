"""The trusted side of the sandbox boundary: launch the worker isolated, limit it, talk to it, reap it."""
