"""How fast `grade desk` answers on a class of 200: the queue, a student's view, a decision.

    python bench/bench_desk.py [--students 200] [--runs 5]

The class is tests/decisions_class.py's (already-graded results as a batch writes them, every fifth
student flagged, each with its feedback pages written as the term writes them), so no grading runs.
The desk is served from a thread of this process and asked over real HTTP; a decision's round trip is
the POST until its answer: the record written under the lock, then the gradebook, class.json, the
summary and that student's pages rendered again. Writes bench/results/desk.json (docs/performance.md).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.record import write_record  # noqa: E402
from grader.instructor.desk.server import Desk, make_server  # noqa: E402
from grader.instructor.term.model import render_class  # noqa: E402
from grader.report import write_reports  # noqa: E402
from tests.decisions_class import FINDING_SIGNAL, Student, results_of, write_class  # noqa: E402

TOKEN = "bench-" + "t" * 30


def _class(root: Path, n: int) -> Path:
    students = [Student(f"s{i:03d}", flagged=i % 5 == 0, findings=(FINDING_SIGNAL,) if i % 5 == 0 else ())
                for i in range(n)]
    out = write_class(root / "out", students)
    for s in students:  # the student's pages, so that a decision renders them again as in a real batch
        results = {**results_of(s), "suites": ["public"]}  # what the pages read of a real results.json
        (out / s.name / "results.json").write_text(json.dumps(results), encoding="utf-8")
        write_reports(results, out / s.name, "en", "", for_student=True)
    render_class(out)
    return out


def _ask(port: int, method: str, path: str, body: str | None = None) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Cookie": f"grade-desk-{port}={TOKEN}", "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    took = time.perf_counter() - start
    conn.close()
    if response.status != 200:
        raise SystemExit(f"{method} {path}: HTTP {response.status}")
    return took


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=200)
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-desk-") as tmp:
        out = _class(Path(tmp), args.students)
        desk = Desk(out, {TOKEN: "bench"})
        server = make_server(desk, "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        flagged = [f"s{i:03d}" for i in range(0, args.students, 5)][: args.runs]
        queue = [_ask(desk.port, "GET", "/") for _ in range(args.runs)]
        student = [_ask(desk.port, "GET", f"/student?id={who}") for who in flagged]
        decide = [_ask(desk.port, "POST", "/decide", f"token={TOKEN}&kind=flag&id={who}&verb=accept&seen=0"
                       "&reason=&note=") for who in flagged]
        server.shutdown()
        server.server_close()
    load_after = os.getloadavg()[0]
    rows = [(f"the queue ({args.students} students, {args.students // 5} flagged)",
             f"{1000 * statistics.median(queue):.0f} ms"),
            ("a student's view (log, code, items)", f"{1000 * statistics.median(student):.0f} ms"),
            ("a decision's round trip (recorded, that student's pages and the class files rendered)",
             f"{1000 * statistics.median(decide):.0f} ms")]
    for what, ms in rows:
        print(f"{what}: {ms}")
    write_record("desk", command=f"python bench/bench_desk.py --students {args.students} --runs {args.runs}",
                 runs=args.runs, load=(load_before, load_after), columns=["request", "median"], rows=rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
