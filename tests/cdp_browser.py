"""Drive Debian's headless Chromium over the DevTools protocol, with no extra package.

Chromium's ``--remote-debugging-pipe`` speaks CDP on file descriptors 3
(commands in) and 4 (answers and events out), one JSON message per NUL byte.
That is all a test needs to open a page, record every network request and
console message, read the DOM and take a full-page screenshot: no Selenium,
no chromedriver, no browser download.

    python tests/cdp_browser.py reports/feedback.html docs/report-buggy.png
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run", "--no-default-browser-check",
         "--disable-extensions", "--disable-sync", "--hide-scrollbars")
LOCAL_SCHEMES = ("file:", "data:", "about:")


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


# What visit() awaits before it measures: the fonts, every image, then two drawn frames.
SETTLED = """Promise.all([document.fonts.ready,
  ...[...document.images].map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; }))])
  .then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))))"""


@dataclass
class PageVisit:
    """What happened while a page loaded."""

    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    console_errors: list[str] = field(default_factory=list)  # console.error, exceptions, CSP and load errors
    values: dict[str, Any] = field(default_factory=dict)  # results of the expressions asked for
    screenshot: bytes = b""

    @property
    def network_requests(self) -> list[str]:
        return [u for u in self.requests if not u.startswith(LOCAL_SCHEMES)]


class Chromium:
    def __init__(self, binary: str, profile: Path, width: int = 1100, height: int = 900) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds() -> None:  # runs in the child: commands on fd 3, answers on fd 4
            a, b = os.dup(to_child_r), os.dup(from_child_w)  # out of the way of 3 and 4 first
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire_fds, close_fds=False,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self.width = width
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def _read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium sent nothing in time")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise EOFError(f"Chromium closed the DevTools pipe (exit {self.proc.poll()})")
                self._buf += chunk
        message, _, self._buf = self._buf.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 30) -> dict:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read(timeout)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        checked = 0
        while True:
            if any(e.get("method") == method for e in self.events[checked:]):
                return
            checked = len(self.events)
            self.events.append(self._read(max(0.01, deadline - time.monotonic())))

    def settle(self, seconds: float) -> None:
        """Collect late events (a lazy image, a deferred error) for a while."""
        deadline = time.monotonic() + seconds
        try:
            while time.monotonic() < deadline:
                self.events.append(self._read(deadline - time.monotonic()))
        except TimeoutError:
            pass

    def visit(self, path: Path, expressions: dict[str, str] | None = None,
              width: int | None = None, max_height: int = 16000) -> PageVisit:
        """Load ``path``; ``width`` emulates a phone's viewport (CSS pixels, mobile layout); the screenshot
        is the page's top ``max_height`` pixels."""
        self.events.clear()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        if width:
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": 844, "deviceScaleFactor": 1,
                                                             "mobile": True}, session=session)
        self.send("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=session)
        self.wait_for("Page.loadEventFired")
        # The layout is final once the fonts and every image are in and two frames have been drawn: a
        # fixed pause was too short on a busy machine (a table measured before its font was swapped in).
        self.send("Runtime.evaluate", {"expression": SETTLED, "awaitPromise": True, "timeout": 60_000},
                  session=session)
        self.settle(0.2)
        visit = PageVisit()
        for name, expr in (expressions or {}).items():
            result = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True},
                               session=session)
            visit.values[name] = result.get("result", {}).get("value")
        height = int(self.send("Page.getLayoutMetrics", session=session)["cssContentSize"]["height"])
        shot = self.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width or self.width, "height": min(height, max_height),
                     "scale": 1},
        }, session=session)
        visit.screenshot = base64.b64decode(shot["data"])
        self.settle(0.2)
        for e in self.events:
            method, params = e.get("method", ""), e.get("params", {})
            if method == "Network.requestWillBeSent":
                visit.requests.append(params["request"]["url"])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                visit.console_errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                                     for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                visit.console_errors.append(str(params.get("exceptionDetails", {}).get("text")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                visit.console_errors.append(str(params["entry"].get("text")))
        self.send("Target.closeTarget", {"targetId": target})
        return visit

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (OSError, RuntimeError, TimeoutError, EOFError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main(argv: list[str]) -> int:
    page, png = Path(argv[0]), Path(argv[1])
    binary = find_chromium()
    if binary is None:
        print("no chromium binary: apt-get install -y chromium", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as profile, Chromium(binary, Path(profile)) as browser:
        visit = browser.visit(page)
    png.parent.mkdir(parents=True, exist_ok=True)
    png.write_bytes(visit.screenshot)
    print(f"{png}: {len(visit.screenshot)} bytes; network requests: {visit.network_requests}; "
          f"console errors: {visit.console_errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
