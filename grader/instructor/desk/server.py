"""The desk's HTTP server: the standard library's ThreadingHTTPServer, one request per thread.

Every request needs a TA's token (``?token=`` once, then a cookie the browser sends back to this
origin only); a POST must carry it in its form too (a cross-site page cannot read it) and, where the
browser says, come from this origin.  Responses forbid inline scripts and framing.
"""

from __future__ import annotations

import hmac
import json
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

from grader.instructor.desk.actions import Sent, record
from grader.instructor.desk.queue import Filters
from grader.instructor.desk.views import (
    HERE,
    Page,
    pygments_css,
    render_queue,
    render_refused,
    render_student,
    version,
)
from grader.instructor.term.decide import Stale
from grader.instructor.term.errors import TermError
from grader.instructor.term.model import load_class

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
MAX_BODY = 64 * 1024
STATIC = {"desk.css": "text/css", "desk.js": "text/javascript"}


@dataclass
class Desk:
    """What the server's threads share: the folder, the tokens, who reads whom."""

    out: Path
    tokens: dict[str, str]  # token -> the TA it names
    port: int = 0
    reading: dict[str, tuple[str, float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def cookie(self) -> str:
        return f"grade-desk-{self.port}"  # one per desk: two desks on one host keep their own

    def ta_of(self, token: str | None) -> str | None:
        if not token:
            return None
        for known, ta in self.tokens.items():
            if hmac.compare_digest(known.encode(), token.encode()):
                return ta
        return None


class Handler(BaseHTTPRequestHandler):
    server_version = "grade-desk"
    desk: Desk  # set on the subclass make_server builds

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass  # the token travels in the first URL: the log would print it

    # -- answering ---------------------------------------------------------------------------------

    def _send(self, status: int, body: str | bytes, ctype: str = "text/html; charset=utf-8",
              headers: dict[str, str] | None = None) -> None:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        extra = dict(headers or {})
        self.send_header("Content-Security-Policy", extra.pop("Content-Security-Policy", CSP))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        for k, v in extra.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, data: dict) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False), "application/json; charset=utf-8")

    def _refuse(self, status: int, why: str) -> None:
        if "application/json" in (self.headers.get("Accept") or ""):
            self._json(status, {"ok": False, "error": why})
        else:
            self._send(status, render_refused(why))

    # -- who asks ----------------------------------------------------------------------------------

    def _cookie_token(self) -> str | None:
        jar = SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie") or "")
        except Exception:  # a malformed cookie header is no token
            return None
        morsel = jar.get(self.desk.cookie)
        return morsel.value if morsel is not None else None

    def _same_origin(self) -> bool:
        origin = self.headers.get("Origin")
        return origin is None or origin == f"http://{self.headers.get('Host', '')}"

    # -- GET ---------------------------------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        token = query.get("token") or self._cookie_token()
        ta = self.desk.ta_of(token)
        if ta is None:
            self._refuse(HTTPStatus.FORBIDDEN, "This desk needs the token in the URL `grade desk` printed / "
                                               "grade desk가 출력한 URL의 토큰이 필요합니다")
            return
        assert token is not None
        if "token" in query:  # the first visit: the token moves into a cookie, the URL loses it
            rest = "&".join(f"{quote(k)}={quote(v)}" for k, v in query.items() if k != "token")
            self._send(HTTPStatus.SEE_OTHER, "", headers={
                "Location": url.path + (f"?{rest}" if rest else ""),
                "Set-Cookie": f"{self.desk.cookie}={token}; HttpOnly; SameSite=Strict; Path=/"})
            return
        page = Page(ta, token, self.desk.out, self.desk.reading)
        try:
            self._route_get(url.path, query, page)
        except TermError as exc:
            self._refuse(HTTPStatus.CONFLICT, str(exc))

    def _route_get(self, path: str, query: dict[str, str], page: Page) -> None:
        out = self.desk.out
        if path == "/":
            filters = Filters(*(query.get(k, "") for k in ("state", "kind", "task", "student", "ta")))
            self._send(HTTPStatus.OK, render_queue(load_class(out), page, filters, query.get("said", "")))
        elif path == "/student":
            model = load_class(out)
            row = model.row(query.get("id", ""))
            if row is None:
                self._refuse(HTTPStatus.NOT_FOUND, "no such student / 그런 학생이 없습니다")
                return
            html = render_student(model, row, page, query.get("said", ""))
            with self.desk.lock:
                self.desk.reading[row.id] = (page.ta, time.time())
            self._send(HTTPStatus.OK, html)
        elif path == "/state":
            now = time.time()
            with self.desk.lock:
                open_ = {k: ta for k, (ta, when) in self.desk.reading.items() if now - when < 120}
            self._json(HTTPStatus.OK, {"version": version(out), "reading": open_})
        elif path == "/static/pygments.css":
            self._send(HTTPStatus.OK, pygments_css(), "text/css; charset=utf-8")
        elif path == "/similarity.html" and (out / "similarity.html").is_file():
            # `grade similarity`'s own page (escaped by its templates): its inline style, never a script
            self._send(HTTPStatus.OK, (out / "similarity.html").read_bytes(), headers={
                "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:"})
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        elif path.startswith("/static/") and path[8:] in STATIC:
            name = path[8:]
            self._send(HTTPStatus.OK, (HERE / "static" / name).read_bytes(), f"{STATIC[name]}; charset=utf-8")
        else:
            self._refuse(HTTPStatus.NOT_FOUND, "no such page / 그런 페이지가 없습니다")

    # -- POST --------------------------------------------------------------------------------------

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "too large / 너무 큽니다")
            return
        fields = parse_qs(self.rfile.read(length).decode("utf-8", "replace"), keep_blank_values=True)
        form = {k: v[-1] for k, v in fields.items()}
        ta = self.desk.ta_of(form.get("token"))  # in the form, not only the cookie: no cross-site POST
        if ta is None or not self._same_origin():
            self._refuse(HTTPStatus.FORBIDDEN, "a decision needs this desk's token, sent from its own page / "
                                               "결정은 이 데스크의 페이지에서 토큰과 함께 보내야 합니다")
            return
        if url.path != "/decide":
            self._refuse(HTTPStatus.NOT_FOUND, "no such action / 그런 동작이 없습니다")
            return
        try:
            seen = int(form.get("seen", ""))
        except ValueError:
            self._refuse(HTTPStatus.BAD_REQUEST, "the form lacks what it showed (seen) / "
                                                 "양식이 잘못되었습니다")
            return
        try:  # "also": the students who wrote the same text, each as "seen:id"
            also = tuple((who, int(n)) for n, _, who in (x.partition(":") for x in fields.get("also", [])))
        except ValueError:
            self._refuse(HTTPStatus.BAD_REQUEST, "the form is malformed (also) / 양식이 잘못되었습니다")
            return
        sent = Sent(form.get("kind", ""), form.get("id", ""), form.get("check", ""), form.get("verb", ""),
                    form.get("reason", ""), form.get("note", ""), seen, form.get("value", ""), also)
        try:
            row, written = record(self.desk.out, sent, ta)
        except Stale as exc:
            self._refuse(HTTPStatus.CONFLICT, str(exc))
            return
        except TermError as exc:
            self._refuse(HTTPStatus.BAD_REQUEST, str(exc))
            return
        said = (f"{row.id}: {sent.verb} recorded by {ta} / 기록됨" if written else
                f"{row.id}: {sent.verb} recorded by {ta}; a batch is writing the folder, it renders the "
                "pages when it ends / 기록됨(채점 중이라 끝날 때 페이지를 씁니다)")
        if "application/json" in (self.headers.get("Accept") or ""):
            self._json(HTTPStatus.OK, {"ok": True, "message": said, "id": row.id})
            return
        back = form.get("next", "/")
        back = back if back.startswith("/") and not back.startswith("//") and "\\" not in back else "/"
        self._send(HTTPStatus.SEE_OTHER, "", headers={
            "Location": back + ("&" if "?" in back else "?") + "said=" + quote(said)})


def make_server(desk: Desk, host: str, port: int) -> ThreadingHTTPServer:
    handler = type("DeskHandler", (Handler,), {"desk": desk})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    desk.port = server.server_address[1]
    return server


__all__ = ["Desk", "make_server"]
