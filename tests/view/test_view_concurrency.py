"""The `avb view` server renders pages concurrently: one slow page stalls no other request."""

from __future__ import annotations

import re
import threading
import urllib.request

from agenticvbench.view import server

QUICK_S = 10  # a request the slow page must not hold up is answered well within this


def _get(url: str, served, timeout: float = QUICK_S) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"Cookie": f"avb_view={served.app.token}"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, resp.read()


def _block_one_page(monkeypatch, run: int, tid: int) -> tuple[threading.Event, threading.Event, list]:
    """`task_page` of (run, tid) waits for `release` (a hostile video being thumbnailed); calls are counted."""
    started, release, calls = threading.Event(), threading.Event(), []
    real = server.task_page

    def task_page(model, site, thumbs, r, t):
        calls.append((r, t))
        if (r, t) == (run, tid):
            started.set()
            assert release.wait(60)
        return real(model, site, thumbs, r, t)

    monkeypatch.setattr(server, "task_page", task_page)
    return started, release, calls


def test_a_slow_page_does_not_stall_other_pages_or_files(served, monkeypatch) -> None:
    """Every page rendered under one lock, so while one task page was slow (its video being thumbnailed) every
    other page waited behind it. Now another page, the overview and a file it offers are answered while the slow
    page is still rendering, and the slow page is answered once it is done."""
    model = served.app.model
    family = model.families[0]
    slow_tid, other_tid = model.task_ids(family)[:2]
    started, release, _ = _block_one_page(monkeypatch, 0, slow_tid)
    slow: dict[str, tuple[int, bytes]] = {}
    worker = threading.Thread(
        target=lambda: slow.update(r=_get(f"{served.base}/task-0-{slow_tid}.html", served, 60)), daemon=True
    )
    worker.start()
    try:
        assert started.wait(QUICK_S)
        status, body = _get(f"{served.base}/task-1-{other_tid}.html", served)
        assert status == 200 and b"<html" in body.lower()
        assert _get(f"{served.base}/index.html", served)[0] == 200
        files = re.findall(rb'"(files/\d+\.[a-z0-9]+)"', body)
        assert files, body[:500]
        assert _get(f"{served.base}/{files[0].decode()}", served)[0] == 200
        assert worker.is_alive() and "r" not in slow  # the slow page is still being rendered
    finally:
        release.set()
        worker.join(60)
    assert slow["r"][0] == 200


def test_a_page_asked_for_at_once_is_rendered_once(served, monkeypatch) -> None:
    """Rendering without the global lock must not render a page once per request: requests for a page being
    rendered wait for that render (one lock per page) and all get its HTML."""
    model = served.app.model
    tid = model.task_ids(model.families[0])[0]
    started, release, calls = _block_one_page(monkeypatch, 0, tid)
    out: list[tuple[int, bytes]] = []
    threads = [
        threading.Thread(target=lambda: out.append(_get(f"{served.base}/task-0-{tid}.html", served, 60)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    assert started.wait(QUICK_S)
    release.set()
    for t in threads:
        t.join(60)
    assert len(out) == 4 and {s for s, _ in out} == {200} and len({b for _, b in out}) == 1
    assert calls == [(0, tid)]


def test_the_file_registry_is_serialised(served, tmp_path) -> None:
    """Pages registering files at the same time could interleave the model's look up, append and index, giving
    a file the index of another; registration now holds the model's lock."""
    app = served.app
    model = app.model
    path = tmp_path / "x.bin"
    path.write_bytes(b"x")
    done = threading.Event()
    with model.lock:
        t = threading.Thread(target=lambda: (model.add_file("x.bin", path), done.set()), daemon=True)
        t.start()
        assert not done.wait(0.3)  # waits for the lock
    assert done.wait(QUICK_S) and model.files[-1].path == path.resolve()
