"""`grade desk DIR`: a local web page over a batch folder where TAs decide the review queue.

It shows one queue of everything a person decides (grader/instructor/desk/queue.py) with the student's
log section and code beside each item, and records each decision through the writer `grade review`
and `grade adjust` use (grader/instructor/term/decide.py), in the same files: what one shows, the other
shows.  Bound to 127.0.0.1 with a random token per TA in the printed URL, like Jupyter.  Instructor
only (`grade release` leaves grader/instructor out); it never imports or runs a student's code.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path

from grader.instructor.desk.server import Desk, make_server
from grader.instructor.term.errors import TermError
from grader.instructor.term.model import load_class
from grader.instructor.term.store import require_batch_folder

__all__ = ["main"]


def _tokens(names: list[str]) -> dict[str, str]:
    """A fresh token for each TA named (the one TA ``instructor`` when none is)."""
    seen: list[str] = []
    for name in names or ["instructor"]:
        name = " ".join(name.split())
        if name and name not in seen:
            seen.append(name)
    return {secrets.token_urlsafe(24): name for name in seen}


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="grade desk", description=(
        "A local web page over a batch folder for TAs: one queue of everything a person decides "
        "(flagged submissions, log parts a TA reads, crashes and timeouts, students with nothing "
        "submitted, adjustments made on an earlier version), with the log and the code beside each, "
        "decided in one click into the same reviews.csv and adjustments.csv `grade review` and `grade "
        "adjust` write. Each TA gets a URL with a token of their own. / 조교용 로컬 웹 페이지: 결정할 "
        "항목을 한 대기열로 보이고 grade review와 같은 기록에 결정을 씁니다."))
    p.add_argument("dir", type=Path, help="the folder `grade batch` or `grade merge` wrote")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 on a "
                        "shared machine the TAs reach)")
    p.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    p.add_argument("--ta", action="append", default=[], metavar="NAME",
                   help="a TA who decides (repeat for each): each gets a URL with a token of their own, and "
                        "their decisions record the name (default: one token for 'instructor')")
    args = p.parse_args(argv)
    try:
        require_batch_folder(args.dir)
        load_class(args.dir)  # a malformed term file is said now, not on the first page
    except TermError as exc:
        print(f"grade desk: {exc}", file=sys.stderr)
        return 2
    desk = Desk(args.dir.resolve(), _tokens(args.ta))
    try:
        server = make_server(desk, args.host, args.port)
    except OSError as exc:
        print(f"grade desk: cannot listen on {args.host}:{args.port} ({exc}) / 열 수 없습니다",
              file=sys.stderr)
        return 2
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    host = f"[{shown}]" if ":" in shown else shown
    print(f"grade desk: {desk.out} / 데스크를 엽니다 (Ctrl-C to stop / 멈추려면 Ctrl-C)")
    for token, ta in desk.tokens.items():
        print(f"  {ta}: http://{host}:{desk.port}/?token={token}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
