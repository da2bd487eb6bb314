"""Judge endpoints are untrusted: silent, trickling and garbage-speaking endpoints must cost bounded time and only
the items they touch. Each test pins one of those guarantees."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from agenticvbench.judge import JudgeCache, JudgeRequest, JudgeSettings, VideoJudge
from agenticvbench.judge.breaker import CircuitBreaker, breaker_for
from agenticvbench.judge.options import add_judge_args, settings_from_args

REQS = [JudgeRequest(f"L-{i:02d}", f"Criterion number {i} holds.") for i in range(8)]


@pytest.mark.slow
def test_silent_endpoint_costs_about_one_deadline_for_all_items(clip, fake, make_settings, tmp_path) -> None:
    """An endpoint that accepts connections and never answers: the per-request deadline fires, three consecutive
    timeouts open the breaker, and the other items (and retries) are skipped, so 8 items with 3 retries each
    finish in well under 3 deadlines instead of 8 x 4 x timeout."""
    with fake.FakeOpenAIServer() as srv:
        srv.hang = True
        s = make_settings(srv.base_url, timeout=2.0, max_retries=3, max_concurrency=4)
        judge = VideoJudge(s, clip, cache=JudgeCache(tmp_path / "judge"))
        judge.media.frames()  # sample the frames first: only the endpoint's cost is timed
        t0 = time.monotonic()
        calls = judge.judge_many(REQS)
        elapsed = time.monotonic() - t0
    assert elapsed < 3 * s.timeout, elapsed
    assert all(c.outcome == "unscored" for c in calls)
    assert any("circuit breaker open" in c.reason for c in calls)
    # the first wave of 4 concurrent requests and at most a retry or two racing the third failure; without the
    # breaker it would be 8 items x 4 attempts
    assert srv.calls <= 8, srv.calls


def test_trickling_endpoint_hits_the_wall_clock_deadline(clip, fake, make_settings, tmp_path) -> None:
    """A server that sends one byte every 0.3 s resets a per-read timeout forever; the wall-clock deadline
    (1 s) still ends the request, with a reason naming the deadline."""
    with fake.FakeOpenAIServer() as srv:
        srv.trickle_s = 0.3
        s = make_settings(srv.base_url, timeout=1.0, max_retries=0, max_concurrency=1, breaker_threshold=0)
        judge = VideoJudge(s, clip, cache=None)
        judge.media.frames()  # sample the frames first: only the endpoint's cost is timed
        t0 = time.monotonic()
        call = judge.judge(REQS[0])
        elapsed = time.monotonic() - t0
    assert call.outcome == "unscored" and "request deadline" in call.reason
    assert elapsed < 2.0, elapsed


@pytest.mark.parametrize(
    "body",
    [
        b"<html>not json</html>",
        b'{"choices": [{"message": 7}]}',
        b"[1, 2, 3]",
        b'{"choices": [{"message": {"content": ["a", "b"]}}]}',
    ],
)
def test_unexpected_payload_is_unscored_for_that_item_only(clip, fake, make_settings, body: bytes) -> None:
    """A 200 whose body is not JSON or has the wrong shape makes that one item `unscored`; the next items are
    judged normally (nothing raises, nothing is cached)."""
    with fake.FakeOpenAIServer() as srv:
        srv.raw_next(1, body)
        s = make_settings(srv.base_url, max_concurrency=1, max_retries=0)
        judge = VideoJudge(s, clip, cache=None)
        calls = judge.judge_many(REQS[:3])
    assert calls[0].outcome == "unscored", calls[0]
    assert [c.outcome for c in calls[1:]] == ["pass", "pass"]


def test_non_json_reply_keeps_python_items_of_the_task(clip, fake, make_settings, tmp_path) -> None:
    """Through the recap verifier: garbage from the judge leaves the task `scored`, python items keep their
    verdicts and only the affected llm item is unscored."""
    from agenticvbench.verifiers.recap import score_recap

    items = [
        {
            "id": "F-01",
            "dispatch": "python",
            "kind": "ffprobe_duration_range",
            "params": {"min": 1, "max": 3},
            "weight": 1,
            "pillar": 0,
        },
        {"id": "N-01", "dispatch": "llm", "prompt": "A colourful pattern.", "weight": 1, "pillar": 2},
    ]
    with fake.FakeOpenAIServer() as srv:
        srv.raw_next(5, b"\x00\xffgarbage", "application/json")
        out = score_recap(
            clip,
            items,
            judge_settings=make_settings(srv.base_url, max_retries=0),
            cache_dir=tmp_path / "c",
            task_id=3,
        )
    assert out.status == "scored"
    by_id = {i["item_id"]: i for i in out.official["items"]}
    assert by_id["F-01"]["passed"] is True and by_id["N-01"]["passed"] is None
    assert out.final_score == 1.0  # the python item alone: the unscored llm item is excluded


def test_breaker_marker_is_seen_by_another_process(tmp_path: Path) -> None:
    """The breaker is shared across the process pool through a marker file: a breaker tripped in a child
    process is open in this one (and a breaker of another run is not)."""
    code = (
        "from pathlib import Path; from agenticvbench.judge.breaker import breaker_for; "
        f"b = breaker_for('run-x', Path({str(tmp_path)!r}), 2); b.failure('t1'); print(b.failure('t2'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
    here = CircuitBreaker("run-x", tmp_path, 2)
    assert here.open_reason() is not None and "2 consecutive" in here.open_reason()
    assert CircuitBreaker("run-y", tmp_path, 2).open_reason() is None


def test_success_resets_the_consecutive_count(tmp_path: Path) -> None:
    """Only consecutive failures open the breaker: a success in between starts the count again."""
    b = breaker_for("reset-run", tmp_path, 3)
    assert not b.failure("a") and not b.failure("b")
    b.success()
    assert not b.failure("c") and not b.failure("d") and b.open_reason() is None
    assert b.failure("e") and b.open_reason() is not None


def test_timeout_and_retries_from_options_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--judge-timeout` / `--judge-retries` win over `$AVB_JUDGE_TIMEOUT` / `$AVB_JUDGE_RETRIES`, which win over
    the defaults; a non-numeric variable is refused."""
    import argparse

    p = argparse.ArgumentParser()
    add_judge_args(p)
    monkeypatch.setenv("AVB_JUDGE_TIMEOUT", "7.5")
    monkeypatch.setenv("AVB_JUDGE_RETRIES", "1")
    s = settings_from_args(p.parse_args(["--judge", "cache"]))
    assert (s.timeout, s.max_retries) == (7.5, 1)
    s = settings_from_args(p.parse_args(["--judge", "cache", "--judge-timeout", "2", "--judge-retries", "0"]))
    assert (s.timeout, s.max_retries) == (2.0, 0)
    monkeypatch.setenv("AVB_JUDGE_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="AVB_JUDGE_TIMEOUT"):
        settings_from_args(p.parse_args(["--judge", "cache"]))
    with pytest.raises(ValueError):
        JudgeSettings(timeout=0)


@pytest.mark.slow
def test_demo_recap_against_silent_endpoint_costs_under_three_deadlines(
    demo, fake, tmp_path, monkeypatch
) -> None:
    """The demo's recap tasks scored by two worker processes against an endpoint that never answers: compared with
    the judge off, the judge adds less than 3 deadlines in total (typically 1-1.6: the first wave of requests
    times out once, the breaker's marker stops every process), every llm item is unscored saying why, and the
    python items keep their scores."""
    import shutil

    from agenticvbench.scoring.engine import verify_run

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = tmp_path / "run"
    shutil.copytree(demo.runs["perfect"], run, ignore=shutil.ignore_patterns("avb-results"))
    t0 = time.monotonic()
    off = verify_run(
        run,
        dataset=demo.mirror,
        family="recap",
        judge=JudgeSettings(mode="off"),
        jobs=2,
        cache_dir=tmp_path / "c-off",
        force=True,
    )
    base = time.monotonic() - t0
    with fake.FakeOpenAIServer() as srv:
        srv.hang = True
        s = JudgeSettings(base_url=srv.base_url, timeout=5.0, max_retries=3, max_frames=4, max_side=64)
        t0 = time.monotonic()
        hung = verify_run(
            run, dataset=demo.mirror, family="recap", judge=s, jobs=2, cache_dir=tmp_path / "c", force=True
        )
        elapsed = time.monotonic() - t0
    assert elapsed - base < 3 * s.timeout, (elapsed, base)
    assert [r.status for r in hung.results] == ["scored"] * len(hung.results) and len(hung.results) == 2
    for r, r_off in zip(
        sorted(hung.results, key=lambda r: r.task_id),
        sorted(off.results, key=lambda r: r.task_id),
        strict=True,
    ):
        reasons = [i["reason"] for i in r.detail["items"] if i["outcome"] == "unscored"]
        assert reasons and all("deadline" in x or "circuit breaker" in x for x in reasons), reasons
        assert (
            r.final_score == r_off.final_score
        )  # same items unscored as with the judge off; python items kept
    assert (tmp_path / "c" / "judge" / "breaker" / f"breaker-{s.run_id}.json").is_file()


def test_deadline_refuses_an_http_stack_without_a_pluggable_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """If the HTTP stack ever stops exposing the pool's network backend, the judge must fail loudly rather than
    silently fall back to per-read timeouts (which a trickling endpoint defeats)."""
    from agenticvbench.judge import deadline

    class Bare:
        pass

    monkeypatch.setattr(deadline.httpx, "HTTPTransport", Bare)
    with pytest.raises(RuntimeError, match="cannot enforce the judge deadline"):
        deadline.deadline_http_client(5.0)


def test_ensemble_and_human_options_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--judge-model a,b`, `--judge-samples`, `--judge human --graders` reach the settings and the provenance."""
    import argparse

    for var in ("AVB_JUDGE_TIMEOUT", "AVB_JUDGE_RETRIES", "AVB_JUDGE_MODEL", "AVB_JUDGE_MODE"):
        monkeypatch.delenv(var, raising=False)
    p = argparse.ArgumentParser()
    add_judge_args(p)
    s = settings_from_args(
        p.parse_args(["--judge", "cache", "--judge-model", "a, b", "--judge-samples", "3"])
    )
    assert (
        s.models == ("a", "b") and s.samples == 3 and s.provenance()["judge_ensemble"]["models"] == ["a", "b"]
    )
    h = settings_from_args(p.parse_args(["--judge", "human", "--graders", "ann,bo"]))
    assert h.graders == ("ann", "bo") and h.provenance()["judge_graders"] == ["ann", "bo"]
    with pytest.raises(ValueError):
        settings_from_args(p.parse_args(["--judge", "cache", "--judge-samples", "0"]))
