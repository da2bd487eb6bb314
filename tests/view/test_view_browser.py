"""`avb view` in a real browser (Playwright driving the system Chromium), as the grading page is tested:
overview -> task -> back, a video that plays and seeks (a 206 answered), the repair timeline and the recap item
frames, compare mode, and a bundle served by a plain static file server; no console error anywhere.

Screenshots for docs/guide/look-at-a-run.md are taken here and copied to docs/img/ when missing or when
AVB_UPDATE_DOC_IMAGES=1 (so an ordinary test run leaves the tree clean)."""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from loopback import CHROMIUM, CHROMIUM_ARGS
from view_fixtures import serve

from agenticvbench.cli.view import comparisons
from agenticvbench.results.signatures import reader_key
from agenticvbench.view import Thumbnailer, ViewApp, build_model, write_bundle

ARGS = [*CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"]
DOC_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
#: Where the result key of a user named "you" lives by default on Linux (the platform's user cache folder): the
#: guide's screenshots name it, not this test session's temporary folder.
USER_KEY_PATH = "/home/you/.cache/agenticvbench/result-key"

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

    def shot(self, tmp: Path, name: str, doc_image: bool = True, selector: str = "") -> None:
        """Screenshot the page (or the element `selector` names) into tmp, and (a guide image) into docs/img
        when asked to update, or missing. What a guide image shows names no path of the test's machine (its
        temporary folders)."""
        if doc_image:
            text = self.pg.locator(selector).inner_text() if selector else self.pg.inner_text("body")
            assert "pytest-of" not in text and "/tmp/" not in text, f"{name} shows a temporary path"
        path = tmp / name
        if selector:
            self.pg.locator(selector).screenshot(path=str(path))
        else:
            self.pg.screenshot(path=str(path), full_page=True)
        doc = DOC_IMG / name
        if doc_image and os.environ.get("AVB_UPDATE_DOC_IMAGES") == "1" or not doc.exists():
            DOC_IMG.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, doc)


#: Run before any page script: reading `window.sessionStorage` throws, as in browsers that block storage for
#: file:// pages (Safari, Chromium with some settings).
NO_STORAGE = (
    "Object.defineProperty(window, 'sessionStorage', {configurable: true, get: function () {"
    " throw new DOMException('storage is blocked', 'SecurityError'); }});"
)


def launch(bypass_csp: bool, init_script: str | None = None) -> Iterator[Browser]:
    """A fresh Chromium page; `bypass_csp` lets the test's own probes (`evaluate`, `wait_for_function`, which
    evaluate strings) run; `test_pages_obey_their_csp` drives the pages with the policy enforced. `init_script`
    runs in every page before its own scripts."""
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            ctx = b.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=bypass_csp)
            if init_script is not None:
                ctx.add_init_script(init_script)
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


@pytest.fixture
def doc_served(demo, runs, tmp_path: Path) -> Iterator[Any]:
    """The `served` view server for the guide's screenshots: the result key that checked the signatures is this
    session's, named by the path a user's own key has (`USER_KEY_PATH`; its caption names the key file)."""
    key, _ = reader_key(None)
    assert key is not None
    model = build_model(runs, dataset=demo.mirror, key=dataclasses.replace(key, path=USER_KEY_PATH))
    yield from serve(ViewApp(model=model, thumbs=Thumbnailer(tmp_path / "cache", progress=False)))


def test_overview_task_back_play_seek_timeline_and_items(doc_served, browser, tmp_path) -> None:
    """The local server: overview grid -> repair cell (timeline with the gold and predicted windows, fixed and
    source players kept in sync) -> back -> recap cell (item frames; clicking one seeks the player). The
    overview's caption names the key as a user's page does (`USER_KEY_PATH`)."""
    b, pg, served = browser, browser.pg, doc_served
    b.open(served.url)
    assert pg.locator("#grid a.cell-link").count() == 18
    assert f"the result key {USER_KEY_PATH} (id " in pg.inner_text("body")
    assert pg.inner_text("#signatures").count("valid 9") == 2  # the same secret: every signature verifies
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
    pg.click("#nav-home")
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


def _grid_bundle(tmp_path: Path) -> tuple[Path, dict[int, list[float]]]:
    """A bundle of three synthetic runs (two reps of one stack, one of another; no dataset) compared with the
    first; per task, the three runs' scores."""
    from test_view_leaderboard import SCORES, write_run

    scores = {
        0: {1: 0.5, 2: 0.25, 37: 0.75, 38: 1.0, 65: 0.4, 83: 0.6},
        1: {1: 0.9, 2: 0.1, 37: "malformed", 38: 0.2, 65: 0.3, 83: 0.6},
        2: {1: 0.2, 2: 0.8, 37: 0.5, 38: 0.5, 65: 0.9, 83: 0.1},
    }
    meta = {"harbor": {"outcomes": {"65": {"outcome": "agent_timeout", "reason": "AgentTimeoutError"}}}}
    runs = [
        write_run(tmp_path, "a1", scores[0], harness="alpha", rep=1),
        write_run(tmp_path, "a2", scores[1], harness="alpha", rep=2, meta=meta),
        write_run(tmp_path, "b1", scores[2], harness="beta", rep=1),
    ]
    assert set(scores[0]) == set(SCORES)
    model = build_model(runs, local=False, resamples=50)
    out = tmp_path / "bundle"
    write_bundle(
        model, out, Thumbnailer(tmp_path / "c", progress=False), media="none", comparisons=comparisons(model)
    )
    values = {
        t: [s if isinstance(s, float) else 0.0 for s in (scores[k][t] for k in range(3))] for t in SCORES
    }
    return out, values


def _static(folder: Path) -> tuple[ThreadingHTTPServer, str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"


def test_filter_sort_search_and_keys_in_a_bundle(strict_browser, tmp_path) -> None:
    """In a static bundle, with the pages' CSP enforced: filter by family, status and Harbor outcome, search by
    task id, sort by score and by the difference of two runs; j/k and Enter open a task, and on the task page
    j/n/s/u follow the filtered order, the next run, the stack page and the overview."""
    out, values = _grid_bundle(tmp_path)
    httpd, base = _static(out)
    b, pg = strict_browser, strict_browser.pg

    def shown() -> list[int]:
        rows = pg.locator("#grid tr.task-row:not(.hidden)")
        return [int(rows.nth(k).get_attribute("data-task")) for k in range(rows.count())]

    try:
        b.open(base + "/index.html")
        assert shown() == [1, 2, 37, 38, 65, 83] and pg.inner_text("#f-count") == "6 of 6 tasks"
        pg.select_option("#f-family", "sequencing")
        assert shown() == [37, 38]
        pg.select_option("#f-family", "")
        pg.select_option("#f-status", "!scored")
        assert shown() == [37]  # run 2's malformed cell
        pg.select_option("#f-status", "")
        pg.select_option("#f-flag", "outcome")
        assert shown() == [65]
        pg.select_option("#f-flag", "")
        pg.fill("#f-search", "3")
        assert shown() == [37, 38]
        pg.fill("#f-search", "")
        pg.select_option("#f-run", "0")
        pg.select_option("#f-sort", "score-desc")
        by_a = sorted(values, key=lambda t: (-values[t][0], list(values).index(t)))
        assert shown() == by_a
        pg.select_option("#f-sort", "diff-asc")
        pg.select_option("#f-a", "0")
        pg.select_option("#f-b", "2")
        by_diff = sorted(values, key=lambda t: (values[t][0] - values[t][2], list(values).index(t)))
        assert shown() == by_diff
        pg.select_option("#f-sort", "score-desc")
        pg.keyboard.press("Escape")  # out of the control (keys typed into a control are its own)
        pg.keyboard.press("j")
        pg.keyboard.press("Enter")
        b.ready()
        assert pg.url.split("#")[0].endswith(f"/task-0-{by_a[1]}.html")
        pg.keyboard.press("j")  # the next task in the overview's order, not in the universe's
        b.ready()
        assert pg.url.split("#")[0].endswith(f"/task-0-{by_a[2]}.html")
        pg.keyboard.press("k")
        b.ready()
        pg.keyboard.press("n")
        b.ready()
        assert pg.url.split("#")[0].endswith(f"/task-1-{by_a[1]}.html")
        pg.keyboard.press("s")
        b.ready()
        assert pg.url.split("#")[0].endswith(f"/stack-0-{by_a[1]}.html") and pg.locator(".side").count() == 2
        pg.keyboard.press("u")
        b.ready()
        assert pg.url.split("#")[0].endswith("/index.html") and "sort=score-desc" in pg.url
        assert shown() == by_a and pg.input_value("#f-sort") == "score-desc"  # back to the same filters
        pg.click("a[href^='compare-37.html']")  # the filtered order in its fragment
        b.ready()
        assert pg.locator(".side").count() == 3 and "a malformed cell counts 0" in pg.inner_text("#paired")
        assert b.errors == []
        assert all(s < 400 for s, _ in b.responses), [r for r in b.responses if r[0] >= 400]
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("storage", ["allowed", "blocked"])
def test_next_and_previous_follow_the_filtered_order_from_file_urls(storage, tmp_path) -> None:
    """A bundle opened from disk (file://, the pages' CSP enforced), with sessionStorage allowed and with every
    access to it throwing: next/previous task follow the overview's filtered order through task, run and stack
    pages (the order travels in the links' fragment), `u` goes back to the same filters, and no page reports an
    error. Opened without the fragment, a task page follows the stored order when storage is allowed, and the
    grid's own order (its static links) when it is not."""
    out, values = _grid_bundle(tmp_path)
    gen = launch(bypass_csp=False, init_script=NO_STORAGE if storage == "blocked" else None)
    b = next(gen)
    pg = b.pg
    base = out.resolve().as_uri()

    def at(page: str) -> bool:
        return pg.url.split("#")[0] == f"{base}/{page}"

    try:
        b.open(base + "/index.html")
        pg.select_option("#f-run", "0")
        pg.select_option("#f-sort", "score-desc")
        by_a = sorted(values, key=lambda t: (-values[t][0], list(values).index(t)))
        assert by_a != sorted(values)  # the filtered order differs from the grid's
        pg.click(f"#grid tr[data-task='{by_a[1]}'] td.cell[data-run='0'] a")
        b.ready()
        assert at(f"task-0-{by_a[1]}.html") and "#order=" in pg.url
        for key, page in (
            ("j", f"task-0-{by_a[2]}.html"),
            ("k", f"task-0-{by_a[1]}.html"),
            ("n", f"task-1-{by_a[1]}.html"),  # another run: the order comes along
            ("j", f"task-1-{by_a[2]}.html"),
            ("s", f"stack-0-{by_a[2]}.html"),
            ("j", f"stack-0-{by_a[3]}.html"),
        ):
            pg.keyboard.press(key)
            b.ready()
            assert at(page), (key, page, pg.url)
        pg.keyboard.press("u")
        b.ready()
        assert at("index.html") and "sort=score-desc" in pg.url and pg.input_value("#f-sort") == "score-desc"
        rows = pg.locator("#grid tr.task-row:not(.hidden)")
        assert [int(rows.nth(k).get_attribute("data-task")) for k in range(rows.count())] == by_a
        b.open(f"{base}/task-0-{by_a[1]}.html")  # no fragment: the stored order, or the grid's
        pg.keyboard.press("j")
        b.ready()
        grid_next = sorted(values)[sorted(values).index(by_a[1]) + 1]
        assert at(f"task-0-{by_a[2] if storage == 'allowed' else grid_next}.html"), pg.url
        assert b.errors == []
    finally:
        gen.close()


def test_intervals_and_the_recap_strip_do_not_wrap(served, browser) -> None:
    """At 1024 and 1400 px no interval of the leaderboard breaks across lines (a score may sit above its
    interval, but "[0.20," never ends a line), the board fits the page, and the recap's eight frames stay on
    one row."""
    b, pg = browser, browser.pg
    for width in (1024, 1400):
        pg.set_viewport_size({"width": width, "height": 900})
        b.open(served.url)
        rects = pg.locator("table.board .ci").evaluate_all("cis => cis.map(c => c.getClientRects().length)")
        assert rects and set(rects) == {1}, (width, rects)
        assert pg.locator("html").evaluate("h => h.scrollWidth <= h.clientWidth"), width
        pg.goto(served.base + "/task-0-1.html")
        b.ready()
        tops = pg.locator(".ev-recap .strip .thumb").evaluate_all("fs => fs.map(f => f.offsetTop)")
        assert len(tops) == 8 and len(set(tops)) == 1, (width, tops)


def test_trajectory_flag_scrolls_to_its_step(demo, traj_runs, strict_browser, tmp_path) -> None:
    """With the pages' policy enforced: the flag at the top of a task page jumps to the flagged step of the
    timeline (the row in view, the address naming its anchor), a folded call opens, the timeline's own style
    file loads, and nothing errs."""
    model = build_model([traj_runs["partial"]], dataset=demo.mirror, resamples=0)
    running = serve(ViewApp(model=model, thumbs=Thumbnailer(tmp_path / "cache", progress=False)))
    served = next(running)
    try:
        b, pg = strict_browser, strict_browser.pg
        b.open(served.url)  # the session token, traded for the cookie
        b.open(served.base + "/task-0-37.html")
        pg.click("section.summary a.flag")
        assert pg.url.endswith("#step-4")
        box = pg.locator("tr#step-4.flagged").bounding_box()
        assert box is not None and 0 <= box["y"] < 900
        pg.click("tr#step-1 details.args summary")
        assert pg.locator("tr#step-1 details.args").get_attribute("open") is not None
        b.shot(tmp_path, "view-trajectory.png", selector="section.trajectory")
        assert any(s == 200 and u.endswith("/static/timeline.css") for s, u in b.responses)
        assert b.errors == [] and not [r for r in b.responses if r[0] >= 400]
    finally:
        running.close()
