"""The `avb view` server over HTTP: token and cookie, pages for every cell, files by index only, range requests,
the Content Security Policy, and agent text escaped."""

from __future__ import annotations

import re
import urllib.error
import urllib.request

import pytest


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """GET without following redirects; (status, headers, body)."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):  # noqa: ANN002, ANN003
            return None

    opener = urllib.request.build_opener(NoRedirect)
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with opener.open(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def auth(served) -> dict[str, str]:
    """The header a page's requests carry (the cookie the first visit sets)."""
    return {"Cookie": f"avb_view={served.app.token}"}


def test_token_is_traded_for_a_cookie_and_required(served) -> None:
    """Without the token every route is 403; the printed URL sets an HttpOnly SameSite cookie and redirects to
    the page without the token, so it does not stay in the address bar or in links."""
    assert get(served.base + "/")[0] == 403
    assert get(served.base + "/?token=wrong")[0] == 403
    assert get(served.base + "/", {"Cookie": "avb_view=wrong"})[0] == 403
    status, headers, _ = get(served.url)
    assert status == 303 and headers["Location"] == "/"
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
    status, headers, body = get(served.base + "/", auth(served))
    assert status == 200 and b'id="grid"' in body


def test_overview_links_every_cell_and_sets_a_strict_csp(served) -> None:
    """The grid has one link per run x task; the policy allows nothing from another host and no inline script."""
    status, headers, body = get(served.base + "/index.html", auth(served))
    csp = headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
    links = set(re.findall(rb'href="(task-\d+-\d+\.html)"', body))
    model = served.app.model
    n_tasks = sum(len(model.task_ids(f)) for f in model.families)
    assert len(links) == n_tasks * len(model.runs) == 18
    assert b"http://" not in body and b"https://" not in body  # no other host anywhere on the page
    for link in sorted(links):
        assert get(f"{served.base}/{link.decode()}", auth(served))[0] == 200


def test_agent_text_is_escaped(served) -> None:
    """The agent's report.md carries markup; the page shows it as text (autoescaped), never as elements."""
    page = get(served.base + "/task-0-65.html", auth(served))[2].decode()
    assert "&lt;script&gt;alert(" in page and "<script>alert" not in page and "<img src=x" not in page


def test_files_by_index_only_with_checked_ranges(served) -> None:
    """A file is served only after a page offered it, by its index; ranges get 206 with Content-Range, an
    unsatisfiable or malformed range 416, and a client path (`..`, absolute) is simply not a route."""
    page = get(served.base + "/task-0-65.html", auth(served))[2].decode()
    urls = re.findall(r'src="(files/\d+\.mp4)"', page)
    assert len(urls) == 2  # the fixed video and, served locally, the verifier-only source
    url = f"{served.base}/{urls[0]}"
    size = served.app.model.files[int(urls[0].split("/")[1].split(".")[0])].size
    status, headers, body = get(url, {**auth(served), "Range": "bytes=10-19"})
    assert status == 206 and headers["Content-Range"] == f"bytes 10-19/{size}" and len(body) == 10
    assert get(url, {**auth(served), "Range": "bytes=-5"})[2] == get(url, auth(served))[2][-5:]
    assert get(url, {**auth(served), "Range": f"bytes={size}-"})[0] == 416
    assert get(url, {**auth(served), "Range": "bytes=a-b"})[0] == 416
    never_offered = len(served.app.model.files) + 5
    for bad in (
        f"/files/{never_offered}.mp4",
        "/files/../run.json",
        "/files/%2e%2e/etc/passwd",
        "/etc/passwd",
    ):
        assert get(served.base + bad, auth(served))[0] == 404, bad


@pytest.mark.parametrize("path", ["/task-9-65.html", "/task-0-999.html", "/compare-65.html", "/thumbs/x.jpg"])
def test_unknown_routes_are_404(served, path: str) -> None:
    """Pages of unknown cells, compare pages without --compare, and thumbnails never rendered are 404."""
    assert get(served.base + path, auth(served))[0] == 404


def test_result_files_of_odd_shapes_still_render(demo, runs, tmp_path) -> None:
    """A result file is schema-valid with any `detail` object: clip lists that are not lists, chunks that are a
    string, items that are numbers. The task pages still render (200, no traceback) with what can be read."""
    import json

    from view_fixtures import serve

    from agenticvbench.results.model import canonical_sha256
    from agenticvbench.view import Thumbnailer, ViewApp, build_model

    odd = {
        37: {"pred": {"a": 1}, "correct": 5},
        65: {"edit": {"chunks": "x"}, "localization": []},
        1: {"items": [1, {"reason": 5, "weight": "heavy"}]},
        83: {"picks": None, "correct": [[1], {}]},
    }
    for tid, detail in odd.items():
        path = runs[0] / "avb-results" / f"{tid}.json"
        data = json.loads(path.read_text())
        data["detail"] = detail
        data.pop("signature", None)
        data["result_sha256"] = canonical_sha256(data)
        path.write_text(json.dumps(data))
    model = build_model([runs[0]], dataset=demo.mirror, resamples=50)
    assert all(model.cell(0, tid).result.detail == d for tid, d in odd.items())
    gen = serve(ViewApp(model=model, thumbs=Thumbnailer(tmp_path / "c", progress=False)))
    served = next(gen)
    try:
        for tid in odd:
            status, _, body = get(f"{served.base}/task-0-{tid}.html", auth(served))
            assert status == 200 and b"Traceback" not in body, (tid, body[:300])
    finally:
        gen.close()


def test_outputs_follow_the_scoring_rules(demo, runs, tmp_path, monkeypatch) -> None:
    """An output that scoring would refuse is not offered, and the page says why: a symlink out of the task
    folder (to a file the agent wants served), and a video over `$AVB_MAX_MEDIA_MB`."""
    from view_fixtures import serve

    from agenticvbench.view import Thumbnailer, ViewApp, build_model

    secret = tmp_path / "secret.mp4"
    secret.write_bytes(b"private bytes")
    final = runs[0] / "2" / "final.mp4"
    final.unlink()
    final.symlink_to(secret)
    monkeypatch.setenv("AVB_MAX_MEDIA_MB", "1")
    big = runs[0] / "1" / "final.mp4"
    big.write_bytes(b"\0" * (2 << 20))
    model = build_model([runs[0]], dataset=demo.mirror, resamples=50)
    gen = serve(ViewApp(model=model, thumbs=Thumbnailer(tmp_path / "c", progress=False)))
    served = next(gen)
    try:
        for tid, why in ((2, "outside the task folder"), (1, "over the 1048576 byte limit")):
            page = get(f"{served.base}/task-0-{tid}.html", auth(served))[2].decode()
            assert "final.mp4 not offered" in page and why in page, (tid, page[-2000:])
            assert "<video" not in page
        assert not any(f.path in (secret.resolve(), big.resolve()) for f in model.files)
    finally:
        gen.close()


def test_a_kept_task_page_follows_its_agent_log(demo, traj_runs, tmp_path) -> None:
    """A task page is kept in memory, but its trajectory reads the agent's log, which can change while the
    server runs and no result does: a line appended must turn the steps into "changed since scoring" at once,
    the original bytes put back must show the steps again, and a log added later must be named, all without a
    restart. A page whose logs did not change is answered from memory (rendered once)."""
    import shutil

    from view_fixtures import serve

    from agenticvbench.view import Thumbnailer, ViewApp, build_model, pages

    run = tmp_path / "partial"
    shutil.copytree(traj_runs["partial"], run)
    log = run / "38" / "agent" / "claude-code.txt"
    original = log.read_bytes()
    model = build_model([run], dataset=demo.mirror, resamples=0)
    gen = serve(ViewApp(model=model, thumbs=Thumbnailer(tmp_path / "c", progress=False)))
    served = next(gen)
    renders: list[int] = []
    real = pages.task_context

    def counted(*a, **k):  # noqa: ANN002, ANN003, ANN202
        renders.append(1)
        return real(*a, **k)

    def page() -> str:
        status, _, body = get(f"{served.base}/task-0-38.html", auth(served))
        assert status == 200
        return body.decode()

    try:
        pages.task_context = counted
        assert '<tr id="step-' in page() and '<tr id="step-' in page() and len(renders) == 1
        log.write_bytes(original + b'{"type": "assistant"}\n')
        changed = page()
        assert "the log changed since scoring" in changed and '<tr id="step-' not in changed
        log.write_bytes(original)
        restored = page()
        assert '<tr id="step-' in restored and "changed since scoring" not in restored
        (run / "38" / "later.jsonl").write_bytes(original)
        assert "added since scoring: not audited" in page()
        assert len(renders) == 4
    finally:
        pages.task_context = real
        gen.close()
