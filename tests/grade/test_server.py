"""The grading server's security and protocol: tokens, no file outside the session, range requests, verdicts."""

from __future__ import annotations

import http.client
import json
import os
from urllib.parse import urlsplit

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.grade import build_submissions


def request(
    base: str,
    path: str,
    *,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """Send one raw request (the path is sent verbatim, `..` included)."""
    u = urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request(method, path, body=body, headers=headers or {})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data


def test_binds_loopback_with_a_long_random_token(served) -> None:
    """Default bind is 127.0.0.1, and the token is long enough not to be guessed."""
    assert served.base.startswith("http://127.0.0.1:")
    assert len(served.app.token) >= 32


def test_no_token_or_wrong_token_is_403(served) -> None:
    """Every route needs the token: the page, the state, a video and posting a verdict."""
    for path in ("/", "/api/state", "/video/0"):
        assert request(served.base, path)[0] == 403
        assert request(served.base, path + "?token=wrong")[0] == 403
    assert request(served.base, "/api/verdict?token=x", method="POST", body=b"{}")[0] == 403
    assert request(served.base, f"/api/state?token={served.app.token}")[0] == 200


def test_traversal_and_other_files_are_not_served(served, setup) -> None:
    """The client can only name a video by its index: `../` paths, absolute paths, the run's other files and
    indexes past the session are 404, never a file."""
    t = served.app.token
    outside = setup.run / "run.json"
    for path in (
        f"/../../etc/passwd?token={t}",
        f"/video/../../run.json?token={t}",
        f"/video/0/../1?token={t}",
        f"{outside}?token={t}",
        f"/video/99?token={t}",
        "/%2e%2e/%2e%2e/etc/passwd?token=" + t,
    ):
        status, _, body = request(served.base, path, headers={"X-AVB-Token": t})
        assert status == 404, (path, status)
        assert b"root:" not in body and b"harness" not in body


def test_range_requests_return_206_with_the_right_bytes(served) -> None:
    """Seeking needs ranges: 206 with exact bytes and Content-Range; open-ended and suffix ranges too; an
    unsatisfiable range is 416."""
    sub = served.app.submissions[0]
    data = sub.video.read_bytes()
    h = {"X-AVB-Token": served.app.token}
    status, headers, body = request(served.base, "/video/0", headers={**h, "Range": "bytes=100-199"})
    assert status == 206 and body == data[100:200]
    assert headers["content-range"] == f"bytes 100-199/{len(data)}" and headers["accept-ranges"] == "bytes"
    status, _, body = request(served.base, "/video/0", headers={**h, "Range": "bytes=1000-"})
    assert status == 206 and body == data[1000:]
    status, _, body = request(served.base, "/video/0", headers={**h, "Range": "bytes=-50"})
    assert status == 206 and body == data[-50:]
    assert request(served.base, "/video/0", headers=h)[2] == data
    assert request(served.base, "/video/0", headers={**h, "Range": f"bytes={len(data)}-"})[0] == 416


def test_task_materials_are_served_by_position_only(served) -> None:
    """The task's own input files are offered by position (with ranges); positions past the list are 404."""
    sub = served.app.submissions[0]
    assert sub.materials, "the demo's recap task has an input film"
    name, real, size = sub.materials[0]
    h = {"X-AVB-Token": served.app.token}
    status, headers, body = request(served.base, "/material/0/0", headers={**h, "Range": "bytes=0-99"})
    assert status == 206 and body == real.read_bytes()[:100] and headers["content-range"].endswith(f"/{size}")
    assert request(served.base, f"/material/0/{len(sub.materials)}", headers=h)[0] == 404
    assert request(served.base, "/material/0/../../run.json", headers=h)[0] == 404
    assert served.app.state()["submissions"][0]["materials"][0] == name


def test_verdict_is_saved_at_once_and_reload_restores_it(served) -> None:
    """A posted verdict is on disk when the answer arrives, and a fresh state (a reloaded page) shows it."""
    sub = served.app.submissions[0]
    item = sub.items[0].item_id
    h = {"X-AVB-Token": served.app.token, "Content-Type": "application/json"}
    body = json.dumps({"index": 0, "item_id": item, "verdict": "fail", "notes": "no title card"}).encode()
    status, _, data = request(served.base, "/api/verdict", method="POST", body=body, headers=h)
    assert status == 200 and json.loads(data)["progress"]["graded"] == 1
    lines = served.app.store.path("alice").read_text().splitlines()
    rec = json.loads(lines[-1])
    assert rec["verdict"] == "fail" and rec["video_sha256"] == sub.video_sha256 and rec["grader"] == "alice"
    state = json.loads(request(served.base, "/api/state", headers=h)[2])
    assert state["verdicts"][f"0/{item}"]["notes"] == "no title card"


def test_bad_verdict_bodies_are_400(served) -> None:
    """Unknown submission, unknown item, a verdict outside pass/fail/skip, or non-JSON: 400, nothing stored."""
    h = {"X-AVB-Token": served.app.token, "Content-Type": "application/json"}
    item = served.app.submissions[0].items[0].item_id
    for body in (
        {"index": 99, "item_id": item, "verdict": "pass"},
        {"index": 0, "item_id": "nope", "verdict": "pass"},
        {"index": 0, "item_id": item, "verdict": "maybe"},
        "[" * 5000,
    ):
        raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        assert request(served.base, "/api/verdict", method="POST", body=raw, headers=h)[0] == 400
    assert not served.app.store.path("alice").exists()


def test_symlinked_video_out_of_the_run_is_skipped(setup, tmp_path) -> None:
    """A `final.mp4` that is a symlink to a file outside its task folder is never offered (it is named in a
    note), so the server cannot be made to stream an arbitrary file."""
    secret = tmp_path / "secret.mp4"
    secret.write_bytes(b"not yours")
    target = setup.run / "1" / "output" / "final.mp4"
    if not target.exists():
        target = setup.run / "1" / "final.mp4"
    os.remove(target)
    os.symlink(secret, target)
    subs, notes, _ = build_submissions([setup.run], load_tasks("recap", dataset=setup.mirror))
    assert [s.task_id for s in subs] == [2]
    assert any("outside the task folder" in n and "secret.mp4" in n for n in notes)


def test_fifo_and_dangling_videos_are_skipped_with_a_note(setup) -> None:
    """A FIFO or a dangling symlink named final.mp4 never hangs or crashes the session: skipped and named."""
    videos = {tid: next((setup.run / str(tid)).rglob("final.mp4")) for tid in (1, 2)}
    os.remove(videos[1])
    os.mkfifo(videos[1])
    os.remove(videos[2])
    os.symlink(videos[2].parent / "gone.mp4", videos[2])
    subs, notes, _ = build_submissions([setup.run], load_tasks("recap", dataset=setup.mirror))
    assert subs == []
    assert any("is a FIFO" in n or "not a regular file" in n for n in notes)
    assert any("broken symlink" in n for n in notes)


def test_blind_hides_run_and_model_and_records_the_seed(blind_served) -> None:
    """--blind: no run, harness or model in what the page gets; the shuffle seed is recorded."""
    state = blind_served.app.state()
    assert state["seed"] == 7 and state["blind"] is True
    assert all("run" not in s and "model" not in s for s in state["submissions"])
