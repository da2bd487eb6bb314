"""`avb view` in a real browser (Playwright driving the system Chromium), as the grading page is tested:
overview -> task -> back, a video that plays and seeks (a 206 answered), the repair timeline and the recap item
frames, compare mode, and a bundle served by a plain static file server; no console error anywhere.

Screenshots for docs/guide/look-at-a-run.md are taken here and copied to docs/img/ when missing or when
AVB_UPDATE_DOC_IMAGES=1 (so an ordinary test run leaves the tree clean)."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from loopback import CHROMIUM, CHROMIUM_ARGS
from view_fixtures import serve

from agenticvbench.cli.view import comparisons
from agenticvbench.view import Thumbnailer, ViewApp, build_model, write_bundle

ARGS = [*CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"]
DOC_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = [
    pytest.mark.slow,  # a real browser
    pytest.mark.skipif(
        shutil.which(CHROMIUM) is None, reason="needs the chromium package (.ci/run installs it)"
    ),
]


class Browser:
    """A Chromium page that records console errors, page errors and every response."""

    def __init__(self, pg) -> None:
        self.pg = pg
        self.errors: list[str] = []
        self.responses: list[tuple[int, str]] = []
        pg.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        pg.on("pageerror", lambda e: self.errors.append(str(e)))
        pg.on("response", lambda r: self.responses.append((r.status, r.url)))

    def open(self, url: str) -> None:
        """Go to `url` and wait for the page's script."""
        self.pg.goto(url)
        self.ready()

    def ready(self) -> None:
        """Wait for the page's script (it marks <html>; a selector, so it works under the page's CSP)."""
        self.pg.wait_for_selector("html[data-avb-ready='1']", state="attached", timeout=20_000)

    def shot(self, tmp: Path, name: str, doc_image: bool = True) -> None:
        """Screenshot the page into tmp, and (a guide image) into docs/img when asked to update, or missing."""
        path = tmp / name
        self.pg.screenshot(path=str(path), full_page=True)
        doc = DOC_IMG / name
        if doc_image and os.environ.get("AVB_UPDATE_DOC_IMAGES") == "1" or not doc.exists():
            DOC_IMG.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, doc)


def launch(bypass_csp: bool) -> Iterator[Browser]:
    """A fresh Chromium page; `bypass_csp` lets the test's own probes (`evaluate`, `wait_for_function`, which
    evaluate strings) run; `test_pages_obey_their_csp` drives the pages with the policy enforced."""
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            ctx = b.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=bypass_csp)
            yield Browser(ctx.new_page())
        finally:
            b.close()


@pytest.fixture
def browser() -> Iterator[Browser]:
    """A page for the probing tests."""
    yield from launch(bypass_csp=True)


@pytest.fixture
def strict_browser() -> Iterator[Browser]:
    """A page with the pages' Content Security Policy enforced."""
    yield from launch(bypass_csp=False)


def test_pages_obey_their_csp(served, strict_browser) -> None:
    """With the policy enforced, the overview, a repair page and a recap page load their script, style and
    thumbnails without one violation (a violation is a console error), and the recap frames are drawn."""
    b, pg = strict_browser, strict_browser.pg
    b.open(served.url)
    pg.click("a[href='task-0-65.html']")
    b.ready()
    pg.wait_for_selector("svg.timeline")
    pg.goto(served.base + "/task-0-1.html")
    b.ready()
    pg.wait_for_selector(".item-frames img")
    assert b.errors == []
    assert not [r for r in b.responses if r[0] >= 400]


def plays_and_seeks(b: Browser, selector: str) -> None:
    """The video starts, its currentTime advances, and a seek lands (the file answered with 206)."""
    pg = b.pg
    pg.wait_for_function(f"document.querySelector('{selector}').readyState >= 1", timeout=20_000)
    pg.evaluate(
        f"document.querySelector('{selector}').muted = true; document.querySelector('{selector}').play()"
    )
    pg.wait_for_function(f"document.querySelector('{selector}').currentTime > 0.2", timeout=20_000)
    pg.evaluate(
        f"document.querySelector('{selector}').pause(); document.querySelector('{selector}').currentTime = 3"
    )
    pg.wait_for_function(
        f"Math.abs(document.querySelector('{selector}').currentTime - 3) < 0.05", timeout=20_000
    )
    assert any(s == 206 and "/files/" in u for s, u in b.responses), b.responses


def test_overview_task_back_play_seek_timeline_and_items(served, browser, tmp_path) -> None:
    """The local server: overview grid -> repair cell (timeline with the gold and predicted windows, fixed and
    source players kept in sync) -> back -> recap cell (item frames; clicking one seeks the player)."""
    b, pg = browser, browser.pg
    b.open(served.url)
    assert pg.locator("#grid a.cell-link").count() == 18
    b.shot(tmp_path, "view-overview.png")
    pg.click("a[href='task-0-65.html']")
    b.ready()
    assert pg.locator("svg.timeline line.series").count() >= 4
    assert (
        pg.locator("svg.timeline rect.gold").count() == 1
        and pg.locator("svg.timeline rect.pred").count() == 1
    )
    assert pg.locator("video[data-sync]").count() == 2
    plays_and_seeks(b, "#out-0")
    pg.wait_for_function("Math.abs(document.getElementById('src-0').currentTime - 3) < 0.1", timeout=20_000)
    head = "parseFloat(document.querySelector('svg.timeline .playhead').getAttribute('x1'))"
    pg.wait_for_function(f"{head} > parseFloat(document.querySelector('svg.timeline').dataset.x0)")
    pg.click("svg.timeline", position={"x": 600, "y": 60})  # near the end of the time axis: seeks there
    pg.wait_for_function("document.getElementById('out-0').currentTime > 8", timeout=20_000)
    b.shot(tmp_path, "view-repair.png")
    pg.click("#back")
    b.ready()
    pg.wait_for_selector("#grid")
    pg.click("a[href='task-0-1.html']")
    b.ready()
    frames = pg.locator(".item-frames img")
    assert frames.count() >= 1
    pg.wait_for_function("[...document.querySelectorAll('.item-frames img')].every(i => i.naturalWidth > 0)")
    t = float(frames.first.get_attribute("data-seek"))
    pg.wait_for_function("document.getElementById('out-0').readyState >= 1", timeout=20_000)
    frames.first.click()
    pg.wait_for_function(
        f"Math.abs(document.getElementById('out-0').currentTime - {t}) < 0.05", timeout=20_000
    )
    b.shot(tmp_path, "view-recap.png")
    assert b.errors == []


def test_compare_mode(demo, runs, browser, tmp_path) -> None:
    """`--compare A B`: the overview has the avb compare table and a compare link per task; a compare page shows
    both runs' outputs side by side with the paired difference A - B of this task."""
    model = build_model(runs, dataset=demo.mirror, resamples=100)
    app = ViewApp(
        model=model, thumbs=Thumbnailer(tmp_path / "cache", progress=False), comparisons=comparisons(model)
    )
    gen = serve(app)
    served = next(gen)
    try:
        b, pg = browser, browser.pg
        b.open(served.url)
        assert pg.locator("#comparison table").count() == 1
        pg.click("a[href='compare-37.html']")
        b.ready()
        a, bb = (model.cell(k, 37).score for k in (0, 1))
        assert f"{a - bb:+.4f}" in pg.inner_text("#paired")
        assert (
            pg.locator("#side-a .ev-sequencing").count() == 1
            and pg.locator("#side-b .ev-sequencing").count() == 1
        )
        assert b.errors == []
    finally:
        gen.close()


def test_bundle_from_a_static_file_server(demo, runs, browser, tmp_path) -> None:
    """A `--media full` bundle served by the standard library's static file server: pages navigate, a recap
    output plays and seeks (the static server answers ranges with 200 only, so no 206 is required here), every
    request stays on that server and none fails, and the repair page has no gold window."""
    model = build_model([runs[0]], dataset=demo.mirror, local=False, resamples=100)
    out = tmp_path / "bundle"
    write_bundle(model, out, Thumbnailer(tmp_path / "cache", progress=False), media="full")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        b, pg = browser, browser.pg
        b.open(base + "/index.html")
        pg.click("a[href='task-0-1.html']")
        b.ready()
        pg.wait_for_function("document.getElementById('out-0').readyState >= 1", timeout=20_000)
        pg.evaluate("const v = document.getElementById('out-0'); v.muted = true; v.play()")
        pg.wait_for_function("document.getElementById('out-0').currentTime > 0.2", timeout=20_000)
        pg.goto(base + "/task-0-65.html")
        b.ready()
        assert pg.locator("svg.timeline rect.gold").count() == 0 and pg.locator("video").count() == 0
        assert "withheld from this bundle" in pg.content()
        b.shot(tmp_path, "view-bundle-repair.png", doc_image=False)
        assert all(u.startswith(base) for _, u in b.responses)
        assert all(s < 400 for s, _ in b.responses), [r for r in b.responses if r[0] >= 400]
        assert b.errors == []
    finally:
        httpd.shutdown()
        httpd.server_close()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args) -> None:  # noqa: A002, ANN001, ANN002
        pass
