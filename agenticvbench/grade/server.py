"""The local grading web server (standard library `ThreadingHTTPServer`).

Routes (every one needs the session token, as `?token=` or the `X-AVB-Token` header; compared in constant time):

- `GET /` the page (`page.html`, shipped as package data);
- `GET /api/state` the submissions (brief, items, reference results), this grader's current verdicts, progress;
- `POST /api/verdict` `{"index", "item_id", "verdict": pass|fail|skip, "notes"}` stores one verdict at once
  (`store.VerdictStore.append`) and answers with the new progress;
- `GET /video/<index>` the submission's `final.mp4`, with HTTP range requests (206 + `Content-Range`) so the
  player can seek;
- `GET /material/<index>/<n>` the n-th input file of the submission's task (same range support).

The client never names a file: videos are addressed by their index in the session, whose paths were checked
when the session was built (`Submission.file`, as for the verifiers), so a `../` path or any other file is simply not a route (404).
A missing or wrong token is 403. The server binds 127.0.0.1 unless told otherwise; the token comes from
`secrets.token_urlsafe`.
"""

from __future__ import annotations

import json
import mimetypes
import re
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agenticvbench.grade.session import GradeSubmission
from agenticvbench.grade.store import VERDICTS, HumanVerdict, VerdictStore

MAX_BODY = 64 * 1024
CHUNK = 256 * 1024
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


@dataclass(kw_only=True)
class GradingApp:
    """The state behind the server: the submissions, the store, the grader and the token."""

    submissions: list[GradeSubmission]
    store: VerdictStore
    grader: str
    blind: bool = False
    seed: int | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def current(self) -> dict[str, dict[str, Any]]:
        """`"<index>/<item_id>"` -> this grader's current verdict on this very video."""
        latest = self.store.latest(self.grader)
        return {
            f"{s.index}/{it.item_id}": {"verdict": v.verdict, "notes": v.notes, "time": v.time}
            for s in self.submissions
            for it in s.items
            if (v := latest.get((s.task_id, it.item_id, s.video_sha256))) is not None
        }

    def progress(self, current: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
        """Graded / total items, overall and per task."""
        current = self.current() if current is None else current
        per_task: dict[int, list[int]] = {}
        for s in self.submissions:
            acc = per_task.setdefault(s.task_id, [0, 0])
            acc[0] += sum(f"{s.index}/{it.item_id}" in current for it in s.items)
            acc[1] += len(s.items)
        graded = sum(v[0] for v in per_task.values())
        total = sum(v[1] for v in per_task.values())
        return {
            "graded": graded,
            "total": total,
            "tasks": {str(k): {"graded": v[0], "total": v[1]} for k, v in sorted(per_task.items())},
        }

    def state(self) -> dict[str, Any]:
        """Everything the page needs at load time (and after a reload)."""
        current = self.current()
        return {
            "grader": self.grader,
            "blind": self.blind,
            "seed": self.seed,
            "submissions": [s.public(self.blind) for s in self.submissions],
            "verdicts": current,
            "progress": self.progress(current),
        }

    def record(self, body: Any) -> dict[str, Any]:
        """Store one verdict from a POST body; ValueError says what is wrong with the body."""
        if not isinstance(body, dict):
            raise ValueError("body must be a JSON object")
        index, item_id, verdict = body.get("index"), body.get("item_id"), body.get("verdict")
        notes = body.get("notes", "")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.submissions):
            raise ValueError("index: no such submission")
        sub = self.submissions[index]
        item = next((it for it in sub.items if it.item_id == item_id), None)
        if item is None:
            raise ValueError("item_id: no such item in this submission")
        if verdict not in VERDICTS:
            raise ValueError(f"verdict: one of {', '.join(VERDICTS)}")
        if not isinstance(notes, str):
            raise ValueError("notes: must be a string")
        with self.lock:
            v = self.store.append(
                HumanVerdict(
                    grader=self.grader,
                    task_id=sub.task_id,
                    item_id=item.item_id,
                    video_sha256=sub.video_sha256,
                    verdict=verdict,
                    notes=notes,
                    pillar=item.pillar,
                    run="" if self.blind else sub.run_label,
                )
            )
        return {
            "saved": {"verdict": v.verdict, "notes": v.notes, "time": v.time},
            "progress": self.progress(),
        }


def send_file(handler: BaseHTTPRequestHandler, path: str | Path, size: int, ctype: str) -> None:
    """Answer a GET/HEAD for the file at `path` (`size` bytes, checked by the caller) with HTTP range support:
    one `bytes=a-b`, `bytes=a-` or suffix `bytes=-n` range gets 206 + `Content-Range`; a malformed or
    unsatisfiable one 416; no range 200. Streams in chunks; a client that hangs up (a seeking player) is normal.
    Shared by the grading page and `avb view`."""
    start, end = 0, size - 1
    status = 200
    rng = handler.headers.get("Range")
    if rng:
        m = _RANGE.match(rng.strip())
        if m is None or (not m.group(1) and not m.group(2)):
            _refuse_range(handler, size)
            return
        if m.group(1):
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        else:  # suffix range: the last N bytes
            start = max(0, size - int(m.group(2)))
        if start >= size or end < start:
            _refuse_range(handler, size)
            return
        status = 206
    length = end - start + 1
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Accept-Ranges", "bytes")
    handler.send_header("X-Content-Type-Options", "nosniff")
    handler.send_header("Content-Security-Policy", "sandbox")
    handler.send_header("Content-Length", str(length))
    if status == 206:
        handler.send_header("Content-Range", f"bytes {start}-{end}/{size}")
    handler.end_headers()
    if handler.command == "HEAD":
        return
    try:
        with open(path, "rb") as f:
            f.seek(start)
            left = length
            while left > 0:
                chunk = f.read(min(CHUNK, left))
                if not chunk:
                    break
                handler.wfile.write(chunk)
                left -= len(chunk)
    except (BrokenPipeError, ConnectionResetError):  # the player moved on (seeking): normal
        pass


def _refuse_range(handler: BaseHTTPRequestHandler, size: int) -> None:
    handler.send_response(416)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "0")
    handler.send_header("Content-Range", f"bytes */{size}")
    handler.end_headers()


def _handler(app: GradingApp) -> type[BaseHTTPRequestHandler]:
    page = resources.files("agenticvbench.grade").joinpath("page.html").read_bytes()

    class Handler(BaseHTTPRequestHandler):
        server_version = "avb-grade"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def _send(
            self,
            status: int,
            body: bytes,
            ctype: str = "application/json",
            headers: dict[str, str] | None = None,
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, obj: Any) -> None:
            self._send(status, json.dumps(obj).encode("utf-8"))

        def _route(self) -> str | None:
            """The request's path once its token checks out (None, after a 403, when it does not)."""
            url = urlsplit(self.path)
            given = self.headers.get("X-AVB-Token") or (parse_qs(url.query).get("token") or [""])[0]
            if secrets.compare_digest(given.encode("utf-8", "replace"), app.token.encode()):
                return url.path
            self._json(403, {"error": "missing or wrong token"})
            return None

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            path = self._route()
            if path is None:
                return
            if path in ("/", "/index.html"):
                self._send(200, page, "text/html; charset=utf-8")
            elif path == "/api/state":
                self._json(200, app.state())
            elif m := re.fullmatch(r"/video/(\d{1,6})", path):
                index = int(m.group(1))
                if index >= len(app.submissions):
                    self._json(404, {"error": "no such video"})
                else:
                    sub = app.submissions[index]
                    send_file(self, sub.video, sub.size, "video/mp4")
            elif m := re.fullmatch(r"/material/(\d{1,6})/(\d{1,4})", path):
                index, n = int(m.group(1)), int(m.group(2))
                mats = app.submissions[index].materials if index < len(app.submissions) else []
                if n >= len(mats):
                    self._json(404, {"error": "no such material"})
                else:
                    name, real, size = mats[n]
                    send_file(self, real, size, mimetypes.guess_type(name)[0] or "application/octet-stream")
            else:
                self._json(404, {"error": "not found"})

        do_HEAD = do_GET  # noqa: N815 - stdlib name

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            path = self._route()
            if path is None:
                return
            if path != "/api/verdict":
                self._json(404, {"error": "not found"})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 < length <= MAX_BODY:
                self._json(413 if length > MAX_BODY else 400, {"error": "body missing or too large"})
                return
            try:
                result = app.record(json.loads(self.rfile.read(length)))
            except (ValueError, RecursionError) as exc:
                self._json(400, {"error": str(exc)[:300]})
                return
            self._json(200, result)

    return Handler


def loopback_server(
    handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1", port: int = 0
) -> ThreadingHTTPServer:
    """A threading server for `handler` (not started, daemon threads); `port` 0 picks a free one. The grading
    page and `avb view` both start theirs here."""
    httpd = ThreadingHTTPServer((host, port), handler)
    httpd.daemon_threads = True
    return httpd


def token_url(httpd: ThreadingHTTPServer, token: str) -> str:
    """The server's first page, with the session token the page trades for its access."""
    host, port = httpd.server_address[:2]
    host_text = host.decode() if isinstance(host, bytes) else str(host)
    return f"http://{host_text}:{port}/?token={token}"


def make_server(app: GradingApp, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """The grading page's server for `app` (not started)."""
    return loopback_server(_handler(app), host, port)


def url_of(httpd: ThreadingHTTPServer, app: GradingApp) -> str:
    """The page's URL, token included."""
    return token_url(httpd, app.token)
