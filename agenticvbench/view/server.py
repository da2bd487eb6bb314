"""The local `avb view` server: the grading page's server pattern (standard library `ThreadingHTTPServer`,
127.0.0.1, a session token, range requests through `grade.server.send_file`).

Routes (all need the token; the first visit carries `?token=`, which the server trades for a `HttpOnly`,
`SameSite=Strict` cookie and a redirect to the same page without it, so relative links and `<video>` requests
carry it without putting it in every URL):

- `/` and `/index.html`: the overview; `/task-<run>-<task>.html`; `/stack-<stack>-<task>.html` (every rep of a
  stack); `/compare-<task>.html` (with `--compare`: every run against the first); `/defects.html`;
- `/files/<n>.<ext>`: file `n` of the model's registry (ranges answered 206), never a path the client names;
- `/thumbs/<sha256>-<ms>-w<width>.jpg`: a thumbnail this session rendered;
- `/static/view.css`, `/static/view.js`.

Every HTML answer carries a strict Content Security Policy (`default-src 'none'`, scripts, styles, images and
media from this origin only). Pages are rendered once and kept in memory (the last `MAX_CACHED_PAGES`); different
pages render at the same time (one slow page stalls no other request). Before a page is answered, the result files
are checked for changes (`reading.results_stamp`: names, sizes and mtimes); when they changed, the model is built
again and the kept pages are dropped, so results scored after start-up appear without a restart. Given the
session's `reading.RunReader`, that build reads again only the folders whose files changed. A kept task page is
also drawn again when the agent logs it drew or looked for changed (`pages.task_stamp`: their sizes, mtimes and
inodes, taken for the page asked for), so an edited log is refused and a restored one shown without a restart.
"""

from __future__ import annotations

import http.cookies
import re
import secrets
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from agenticvbench.grade.server import loopback_server, send_file, token_url
from agenticvbench.memo import Memo
from agenticvbench.runs.pinned import PinError
from agenticvbench.view.model import ViewModel
from agenticvbench.view.pages import (
    CSP,
    Site,
    compare_page,
    defects_page,
    overview,
    stack_page,
    task_page,
    task_stamp,
)
from agenticvbench.view.reading import results_stamp
from agenticvbench.view.thumbs import Thumbnailer

COOKIE = "avb_view"
STATIC = {
    "view.css": "text/css; charset=utf-8",
    "timeline.css": "text/css; charset=utf-8",
    "view.js": "text/javascript; charset=utf-8",
    "favicon.svg": "image/svg+xml",
}
_TASK = re.compile(r"/task-([0-9]{1,4})-([0-9]{1,6})\.html")
_COMPARE = re.compile(r"/compare-([0-9]{1,6})\.html")
_STACK = re.compile(r"/stack-([0-9]{1,4})-([0-9]{1,6})\.html")
#: Rendered pages kept in memory (least recently used dropped first): a task page is tens of kB, so a few MB.
MAX_CACHED_PAGES = 256
_FILE = re.compile(r"/files/([0-9]{1,7})\.[a-z0-9]{1,5}")
_THUMB = re.compile(r"/thumbs/([^/]{1,120})")


def static_bytes(name: str) -> bytes:
    """A file of `agenticvbench/view/static` (package data)."""
    return resources.files("agenticvbench.view").joinpath("static").joinpath(name).read_bytes()


class PageCache:
    """Rendered pages, each rendered once at a time (a second request for a page being rendered waits for that
    one only, `memo.Memo`'s per-key lock), the last `limit` kept. A failure is not kept. A page is kept with the
    `version` it was rendered at (a task page's: the stamp of its logs, `pages.task_stamp`); asked for at another
    version, it is rendered again."""

    def __init__(self, limit: int = MAX_CACHED_PAGES) -> None:
        self.limit = limit
        self._pages: OrderedDict[str, tuple[Any, bytes]] = OrderedDict()
        self._locks = Memo(memoise_failures=False)  # only its per-key locks
        self._guard = threading.Lock()

    def _kept(self, key: str, version: Any) -> bytes | None:
        with self._guard:
            kept = self._pages.get(key)
            if kept is None or kept[0] != version:
                return None
            self._pages.move_to_end(key)
            return kept[1]

    def get(self, key: str, render: Callable[[], bytes], version: Any = None) -> bytes:
        """The page at `key`, rendered by `render` unless kept at `version`."""
        if (body := self._kept(key, version)) is not None:
            return body
        with self._locks.lock(key):
            if (body := self._kept(key, version)) is not None:
                return body
            body = render()
            with self._guard:
                self._pages[key] = (version, body)
                self._pages.move_to_end(key)
                while len(self._pages) > self.limit:
                    self._pages.popitem(last=False)
            return body

    def __len__(self) -> int:
        return len(self._pages)


@dataclass(kw_only=True)
class ViewApp:
    """The state behind the server: the model, the thumbnailer, the comparisons (each run against the first, if
    any) and the token.

    Pages render concurrently (the server is threaded): one slow page, a hostile video being thumbnailed, never
    holds up another page, a file or a thumbnail. Each page is rendered once (`PageCache`). The model's file
    registry (look up, append, index) is the one shared step that must not interleave; `ViewModel.lock`
    serialises it. `reload` (given by `avb view`) reads the runs again: `refresh` calls it when the result files
    changed, and swaps the model, the comparisons (`compare`), the site and the kept pages at once."""

    model: ViewModel
    thumbs: Thumbnailer
    comparisons: Sequence[Any] = ()
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    site: Site = field(default_factory=Site)
    pages: PageCache = field(default_factory=PageCache)
    reload: Callable[[], ViewModel] | None = None
    compare: Callable[[ViewModel], Sequence[Any]] | None = None
    _refreshing: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.site.compare = bool(self.comparisons)

    def refresh(self) -> bool:
        """Read the runs again when their result files changed since the model was built; True when it did. A
        reload that fails keeps the current model (and says why on stderr); the next request tries again."""
        if self.reload is None or results_stamp(self.model.sources) == self.model.stamp:
            return False
        with self._refreshing:
            if results_stamp(self.model.sources) == self.model.stamp:
                return False  # another request reloaded meanwhile
            try:
                model = self.reload()
                comparisons = self.compare(model) if self.compare is not None else self.comparisons
            except Exception as exc:  # a result being written, a folder gone: keep what is shown
                print(f"avb view: results changed but could not be read again: {exc}", file=sys.stderr)
                return False
            site = Site(public=self.site.public, media=self.site.media, policy=self.site.policy)
            site.compare = bool(comparisons)
            # One assignment each; a request already rendering keeps the objects it started with.
            self.model, self.comparisons, self.site, self.pages = model, comparisons, site, PageCache()
            return True

    def page(self, path: str) -> bytes | None:
        """The HTML of a page route (rendered once, then from memory); None when no such page. A page that fails
        to render raises, and the next request tries again."""
        if path == "/":
            path = "/index.html"
        self.refresh()
        m, site, pages, comparisons = self.model, self.site, self.pages, self.comparisons  # one generation
        render = self._renderer(path, m, site, comparisons)
        if render is None:  # not a page: nothing is kept (any number of such paths can be asked for)
            return None
        # A task page draws the agent's logs, which change without the results changing: taken before rendering,
        # so a log written while the page renders makes the next request render it again.
        t = _TASK.fullmatch(path)
        version = task_stamp(m, int(t.group(1)), int(t.group(2))) if t else None
        return pages.get(path, lambda: render().encode("utf-8"), version)

    def _renderer(
        self, path: str, m: ViewModel, site: Site, comparisons: Sequence[Any]
    ) -> Callable[[], str] | None:
        """What renders the page at `path` (cheap: no rendering yet), or None when there is no such page."""
        if path == "/index.html":
            return lambda: overview(m, site, comparisons)
        if path == "/defects.html":
            return lambda: defects_page(site)
        if t := _TASK.fullmatch(path):
            run, tid = int(t.group(1)), int(t.group(2))
            return (lambda: task_page(m, site, self.thumbs, run, tid)) if m.cell(run, tid) else None
        if st := _STACK.fullmatch(path):
            stack, tid = int(st.group(1)), int(st.group(2))
            stacks = m.stacks
            ok = stack < len(stacks) and len(stacks[stack].runs) > 1 and m.cell(stacks[stack].runs[0], tid)
            return (lambda: stack_page(m, site, self.thumbs, stack, tid)) if ok else None
        if (c := _COMPARE.fullmatch(path)) and site.compare:
            tid = int(c.group(1))
            return (lambda: compare_page(m, site, self.thumbs, tid)) if m.cell(0, tid) else None
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
