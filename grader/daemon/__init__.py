"""The warm grader: one daemon per user holding the zygote, so that a re-grade skips
starting Python, importing torch and warming it.  place.py names its socket, client.py is `grade`'s
side, server.py the daemon.  It sits between the front end and the sandbox: it imports only the
sandbox (the zygote's host) and the standard library."""
