"""Helpers of the `avb view` tests (a module with a unique name: `conftest` is ambiguous across test folders)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

from agenticvbench.view import ViewApp, make_server, url_of


@dataclass
class Served:
    """A running view server."""

    app: ViewApp
    url: str
    base: str


def serve(app: ViewApp) -> Iterator[Served]:
    """Run `app` on 127.0.0.1 until the generator is closed."""
    httpd = make_server(app)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    url = url_of(httpd, app)
    try:
        yield Served(app, url, url.split("/?")[0])
    finally:
        httpd.shutdown()
        httpd.server_close()
