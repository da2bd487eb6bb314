"""`FrameWindow`'s decoding thread: hand-off through the bounded queue, and shutdown while it is blocked."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agenticvbench.media.chunks import FrameWindow

SOURCE = Path(__file__).resolve().parents[1] / "data" / "repair-edit" / "source.mp4"


def test_close_stops_a_producer_blocked_on_a_full_queue() -> None:
    """The one `_put` helper (it replaced two copies of the put-with-timeout loop) must give up once `close()`
    is called: a producer waiting on a full queue for a consumer that left would otherwise never end."""
    win = FrameWindow(SOURCE, lambda i: True, 200, lambda vf: vf.index, prefetch=1, threaded=True)
    assert win.get(0) == 0
    deadline = time.monotonic() + 10
    while not win._queue.full() and time.monotonic() < deadline:  # the producer is now waiting in _put
        time.sleep(0.01)
    assert win._queue.full()
    t0 = time.monotonic()
    win.close()
    assert win._thread is not None and not win._thread.is_alive() and time.monotonic() - t0 < 5
    assert win._put("late") is False  # stopped: nothing more is queued


def test_transform_error_reaches_the_consumer_through_the_queue() -> None:
    """An exception in the decoding thread travels through `_put` and is re-raised by the consumer's `get`."""

    def transform(vf):  # type: ignore[no-untyped-def]
        if vf.index == 3:
            raise RuntimeError("transform broke")
        return vf.index

    with FrameWindow(SOURCE, lambda i: True, 10, transform, prefetch=2, threaded=True) as win:
        assert win.get(2) == 2
        with pytest.raises(RuntimeError, match="transform broke"):
            win.get(3)
    assert win._thread is not None and not win._thread.is_alive()


def test_threaded_stream_ends_with_the_end_marker() -> None:
    """The last `_put` delivers the end marker: the consumer sees every frame up to `last`, then the end."""
    with FrameWindow(SOURCE, lambda i: i % 5 == 0, 20, lambda vf: vf.index, prefetch=2, threaded=True) as win:
        assert [win.get(i) for i in (0, 5, 10, 15, 20)] == [0, 5, 10, 15, 20]
        assert win.get(21) is None and win.ended and win.error is None
