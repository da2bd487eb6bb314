"""Helpers of the `avb view` tests (a module with a unique name: `conftest` is ambiguous across test folders)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from loopback import serving

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
    url = url_of(httpd, app)
    with serving(httpd):
        yield Served(app, url, url.split("/?")[0])
