"""A wall-clock deadline for each judge HTTP request, enforced at the socket.

The HTTP stack's own `timeout` bounds each socket operation (one `recv`), so an endpoint that trickles one byte
every few seconds keeps a request alive forever, and one that accepts the connection and never answers costs the
full read timeout on every retry. Here every connect, write and read of a request gets
`min(its own timeout, time left before the request's deadline)`, and an operation that starts after the deadline
fails at once with the stack's read/connect timeout error, so the SDK reports an ordinary timeout
(`openai.APITimeoutError`) no later than the deadline, whatever the server does, including trickling the status
line or the headers.

How: the judge's HTTP client gets a transport whose connection pool uses `DeadlineBackend`, a wrapper of the
default network backend that hands out `DeadlineStream`s. The deadline of the request being sent by the current
thread lives in a thread-local (`request_deadline()`), because a pooled connection is reused by later requests
with their own deadlines. The pool's `_network_backend` attribute is the one private name used; if a future
version of the HTTP stack renames it, `deadline_http_client()` raises at once (a test covers it), it never
silently falls back to per-read timeouts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:  # the openai SDK ships on httpx2/httpcore2 here; older releases use httpx/httpcore
    import httpcore2 as httpcore  # type: ignore[import-not-found]
    import httpx2 as httpx  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - depends on the installed SDK generation
    import httpcore  # type: ignore[no-redef]
    import httpx  # type: ignore[no-redef]

_local = threading.local()


@contextmanager
def request_deadline(seconds: float) -> Iterator[float]:
    """Give every socket operation of this thread's HTTP request(s) inside the block `seconds` in total."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = time.monotonic() + seconds
    try:
        yield _local.deadline
    finally:
        _local.deadline = previous


def _budget(timeout: float | None, error: type[Exception]) -> float | None:
    """The timeout to use now: the operation's own, capped by what is left of the request's deadline."""
    deadline = getattr(_local, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("request deadline exceeded")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):  # type: ignore[misc]
    """A network stream whose reads and writes never outlive the current request's deadline."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        """Read with the timeout capped by the deadline."""
        return self._inner.read(max_bytes, _budget(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """Write with the timeout capped by the deadline."""
        self._inner.write(buffer, _budget(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        """Close the underlying stream."""
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> DeadlineStream:
        """TLS handshake within the deadline; the TLS stream is wrapped too."""
        return DeadlineStream(
            self._inner.start_tls(ssl_context, server_hostname, _budget(timeout, httpcore.ConnectTimeout))
        )

    def get_extra_info(self, info: str) -> Any:
        """Delegate (the pool asks whether the socket is still readable, etc.)."""
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):  # type: ignore[misc]
    """The default network backend, with connects capped by the deadline and streams wrapped."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> DeadlineStream:
        """Connect within the deadline."""
        return DeadlineStream(
            self._inner.connect_tcp(
                host,
                port,
                _budget(timeout, httpcore.ConnectTimeout),
                local_address=local_address,
                socket_options=socket_options,
            )
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> DeadlineStream:  # pragma: no cover - no UDS judge
        """Connect within the deadline."""
        return DeadlineStream(
            self._inner.connect_unix_socket(
                path, _budget(timeout, httpcore.ConnectTimeout), socket_options=socket_options
            )
        )

    def sleep(self, seconds: float) -> None:
        """Delegate."""
        self._inner.sleep(seconds)


def deadline_http_client(timeout: float) -> Any:
    """An HTTP client for the openai SDK whose requests obey `request_deadline()` (see the module docstring).

    Proxies from the environment are not used (the transport is explicit), like the SDK's own behaviour when it
    is given a transport."""
    transport = httpx.HTTPTransport()
    pool = getattr(transport, "_pool", None)
    if pool is None or not hasattr(pool, "_network_backend"):
        raise RuntimeError(
            "the installed HTTP stack has no pluggable network backend: cannot enforce the judge deadline"
        )
    pool._network_backend = DeadlineBackend(pool._network_backend)
    return httpx.Client(transport=transport, timeout=timeout, follow_redirects=True)
