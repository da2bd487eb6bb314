"""The local `avb view` server: the grading page's server pattern (standard library `ThreadingHTTPServer`,
127.0.0.1, a session token, range requests through `grade.server.send_file`).

Routes (all need the token; the first visit carries `?token=`, which the server trades for a `HttpOnly`,
`SameSite=Strict` cookie and a redirect to the same page without it, so relative links and `<video>` requests
carry it without putting it in every URL):

- `/` and `/index.html`: the overview; `/task-<run>-<task>.html`; `/compare-<task>.html` (two runs);
- `/files/<n>.<ext>`: file `n` of the model's registry (ranges answered 206), never a path the client names;
- `/thumbs/<sha256>-<ms>-w<width>.jpg`: a thumbnail this session rendered;
- `/static/view.css`, `/static/view.js`.

Every HTML answer carries a strict Content Security Policy (`default-src 'none'`, scripts, styles, images and
media from this origin only). Pages are rendered once and kept in memory; different pages render at the same
time (one slow page stalls no other request).
"""

from __future__ import annotations

import http.cookies
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agenticvbench.grade.server import loopback_server, send_file, token_url
from agenticvbench.memo import Memo
from agenticvbench.runs.pinned import PinError
from agenticvbench.view.model import ViewModel
from agenticvbench.view.pages import CSP, Site, compare_page, overview, task_page
from agenticvbench.view.thumbs import Thumbnailer

COOKIE = "avb_view"
STATIC = {
    "view.css": "text/css; charset=utf-8",
    "view.js": "text/javascript; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}
_TASK = re.compile(r"/task-([0-9]{1,4})-([0-9]{1,6})\.html")
_COMPARE = re.compile(r"/compare-([0-9]{1,6})\.html")
_FILE = re.compile(r"/files/([0-9]{1,7})\.[a-z0-9]{1,5}")
_THUMB = re.compile(r"/thumbs/([^/]{1,120})")


def static_bytes(name: str) -> bytes:
    """A file of `agenticvbench/view/static` (package data)."""
    return resources.files("agenticvbench.view").joinpath("static").joinpath(name).read_bytes()


@dataclass(kw_only=True)
class ViewApp:
    """The state behind the server: the model, the thumbnailer, the comparison (if any) and the token.

    Pages render concurrently (the server is threaded): one slow page, a hostile video being thumbnailed, never
    holds up another page, a file or a thumbnail. Each page is rendered once: `pages` has one lock per page, so
    a second request for a page being rendered waits for that one only. The model's file registry (look up,
    append, index) is the one shared step that must not interleave; `ViewModel.lock` serialises it."""

    model: ViewModel
    thumbs: Thumbnailer
    comparison: Any = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    site: Site = field(default_factory=Site)
    pages: Memo = field(default_factory=lambda: Memo(memoise_failures=False))

    def page(self, path: str) -> bytes | None:
        """The HTML of a page route (rendered once, then from memory); None when no such page. A page that fails
        to render raises, and the next request tries again."""
        if path == "/":
            path = "/index.html"
        render = self._renderer(path)
        if render is None:  # not a page: nothing is memoised (any number of such paths can be asked for)
            return None
        return self.pages.get(path, lambda: render().encode("utf-8"))

    def _renderer(self, path: str) -> Callable[[], str] | None:
        """What renders the page at `path` (cheap: no rendering yet), or None when there is no such page."""
        m = self.model
        if path == "/index.html":
            return lambda: overview(m, self.site, self.comparison)
        if t := _TASK.fullmatch(path):
            run, tid = int(t.group(1)), int(t.group(2))
            return (lambda: task_page(m, self.site, self.thumbs, run, tid)) if m.cell(run, tid) else None
        if (c := _COMPARE.fullmatch(path)) and self.comparison is not None and len(m.runs) == 2:
            tid = int(c.group(1))
            return (lambda: compare_page(m, self.site, self.thumbs, tid)) if m.cell(0, tid) else None
        return None


def _handler(app: ViewApp) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "avb-view"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
            pass

        def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Content-Security-Policy", CSP + "; frame-ancestors 'none'")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _token_ok(self, given: str) -> bool:
            return secrets.compare_digest(given.encode("utf-8", "replace"), app.token.encode())

        def _cookie(self) -> str:
            jar = http.cookies.SimpleCookie()
            try:
                jar.load(self.headers.get("Cookie") or "")
            except http.cookies.CookieError:
                return ""
            return jar[COOKIE].value if COOKIE in jar else ""

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            url = urlsplit(self.path)
            query = parse_qs(url.query)
            if "token" in query:
                if not self._token_ok(query["token"][0]):
                    self._send(403, b"wrong token", "text/plain; charset=utf-8")
                    return
                cookie = f"{COOKIE}={app.token}; HttpOnly; SameSite=Strict; Path=/"
                self._send(303, b"", "text/plain", {"Location": url.path or "/", "Set-Cookie": cookie})
                return
            if not self._token_ok(self.headers.get("X-AVB-Token") or self._cookie()):
                self._send(403, b"missing or wrong token: open the URL avb view printed", "text/plain")
                return
            self._route(url.path)

        do_HEAD = do_GET  # noqa: N815 - stdlib name

        def _route(self, path: str) -> None:
            if path.startswith("/static/") and path[8:] in STATIC:
                self._send(200, static_bytes(path[8:]), STATIC[path[8:]])
            elif m := _FILE.fullmatch(path):
                n = int(m.group(1))
                if n >= len(app.model.files) or n not in app.site.files:  # only files a page offered
                    self._send(404, b"no such file", "text/plain")
                else:
                    ref = app.model.files[n]
                    try:  # the checked bytes only (`ViewModel.opened`); a file changed since is gone
                        with app.model.opened(n) as source:
                            send_file(self, source, ref.size, ref.ctype)
                    except PinError as exc:
                        self._send(410, str(exc).encode(), "text/plain; charset=utf-8")
            elif m := _THUMB.fullmatch(path):
                p = app.thumbs.path_of(m.group(1)) if m.group(1) in app.site.thumbs else None
                if p is None:
                    self._send(404, b"no such thumbnail", "text/plain")
                else:
                    send_file(self, p, p.stat().st_size, "image/jpeg")
            else:
                try:
                    body = app.page(path)
                except Exception as exc:  # a page that cannot be drawn says so, not a dropped connection
                    self._send(500, f"page failed: {type(exc).__name__}: {exc}"[:500].encode(), "text/plain")
                    return
                if body is None:
                    self._send(404, b"not found", "text/plain")
                else:
                    self._send(200, body, "text/html; charset=utf-8")

    return Handler


def make_server(app: ViewApp, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server for `app` (not started); `port` 0 picks a free one."""
    return loopback_server(_handler(app), host, port)


def url_of(httpd: ThreadingHTTPServer, app: ViewApp) -> str:
    """The overview's URL, token included (the first visit trades it for a cookie)."""
    return token_url(httpd, app.token)
