"""The zygote lets go of the library pages it touched only while importing (issue 49: the warm grader's
idle memory): they leave its RSS, the process runs on from the page cache, and nothing it wrote is lost."""

from __future__ import annotations

import json
import subprocess
import sys

import pace
import pytest

from tests.conftest import ROOT

SCRIPT = r"""
import hashlib, json, re, ssl, sys
sys.path.insert(0, sys.argv[1])
from grader.runtime.zygote import release_file_pages

def rss():
    s = open("/proc/self/status").read()
    return {k: int(v) for k, v in re.findall(r"(RssAnon|RssFile):\s+(\d+)", s)}

data = bytearray(b"kept" * 4_000_000)  # 16 MB of the process's own: anonymous, written
digest = hashlib.sha256(data).hexdigest()
ssl.create_default_context()  # libssl and libcrypto's code and tables touched
before = rss()
released = release_file_pages()
after = rss()
print(json.dumps({"before": before, "after": after, "released": released,
                  "same": hashlib.sha256(data).hexdigest() == digest,
                  "again": len(ssl.create_default_context().get_ca_certs()) >= 0}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/smaps is Linux's")
def test_library_pages_leave_the_rss_and_the_process_runs_on():
    done = subprocess.run([sys.executable, "-I", "-c", SCRIPT, str(ROOT)], capture_output=True, text=True,
                          timeout=pace.seconds(120), check=True)
    out = json.loads(done.stdout)
    assert out["released"] > 0
    assert out["after"]["RssFile"] < out["before"]["RssFile"]  # mapped library pages let go
    assert out["after"]["RssAnon"] >= out["before"]["RssAnon"] - 64  # its own memory kept (kB)
    assert out["same"] and out["again"]  # what it wrote is intact; the libraries still run
