"""End to end on the embedded demo: `avb demo` scores all families, and recap goes through the loopback judge.

These are the acceptance checks of the verify, repair and recap issues: the perfect run gets 1.0 everywhere, the
broken run gets 0 with a reason for every task, nothing ends in `error`, and a recap run rescored in replay mode
gives identical results without one request to the endpoint.
"""

from __future__ import annotations

import shutil

import openai_server
import pytest

from agenticvbench.cli.main import main
from agenticvbench.judge import JudgeSettings
from agenticvbench.results.model import iter_results
from agenticvbench.scoring.engine import verify_run


@pytest.fixture(scope="module")
def demo_copy(demo, tmp_path_factory):
    """A private copy of the session demo, so results written here do not leak into other tests."""
    root = tmp_path_factory.mktemp("demo-e2e") / "demo"
    shutil.copytree(demo.root, root)
    return root


@pytest.mark.slow
def test_avb_demo_scores_every_family_and_prints_the_report(demo_copy, capsys, monkeypatch):
    """`avb demo` (no network, no judge): perfect = 1.0 per family, broken = 0 with reasons, no errors."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AVB_JUDGE_MODE", raising=False)
    assert main(["demo", "--dest", str(demo_copy), "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "| demo | perfect |" in out and "Status counts" in out and "next commands to try" in out
    # regression: the demo printed the whole 392-line report, so the headline scrolled away
    assert "# AgenticVBench report" not in out and len(out.splitlines()) < 60, len(out.splitlines())
    full = (demo_copy / "report.md").read_text(encoding="utf-8")
    assert (
        full.startswith("# AgenticVBench report")
        and f"full report (per task, why tasks lost points, provenance): {demo_copy / 'report.md'}" in out
        and "## Per-task headline scores" in full
    )
    runs = demo_copy / "runs"
    perfect = iter_results(runs / "perfect")
    assert {r.family for r in perfect} == {"recap", "sequencing", "repair", "assembly"}
    assert all(r.status == "scored" for r in perfect)
    for r in perfect:
        if r.family == "repair":
            assert r.final_score > 0.99, (r.task_id, r.final_score)
        else:
            assert r.headline_score == 1.0, (r.task_id, r.headline_score)
    broken = iter_results(runs / "broken")
    assert broken and all(r.status != "error" for r in broken)
    for r in broken:
        assert r.headline_score < 0.05 and (r.reason or r.warnings), (r.task_id, r.reason)
    partial = {r.task_id: r for r in iter_results(runs / "partial")}
    assert all(0.0 < r.headline_score < 1.0 for r in partial.values() if r.family != "recap")
    repair_broken_as_is = [r for r in partial.values() if r.family == "repair"]
    assert repair_broken_as_is and max(r.final_score for r in repair_broken_as_is) < 0.9


@pytest.mark.slow
def test_recap_through_loopback_judge_then_replay_is_identical(demo_copy, tmp_path, monkeypatch):
    """Recap llm items are judged by the OpenAI-compatible loopback server, then replayed from the cache with
    identical results and no request at all."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fake = openai_server
    run = tmp_path / "run"
    shutil.copytree(demo_copy / "runs" / "perfect", run, ignore=shutil.ignore_patterns("avb-results"))
    cache = tmp_path / "cache"
    with fake.FakeOpenAIServer() as server:
        judge = JudgeSettings(
            base_url=server.base_url,
            model="gpt-4o-mini",
            max_frames=4,
            max_side=64,
            backoff_s=0.01,
            max_retries=1,
        )
        first = verify_run(
            run, dataset=demo_copy / "mirror", family="recap", judge=judge, jobs=1, cache_dir=cache
        )
        calls = server.calls
        assert calls > 0
        replay = verify_run(
            run,
            dataset=demo_copy / "mirror",
            family="recap",
            judge=judge.with_(mode="replay"),
            jobs=1,
            cache_dir=cache,
            force=True,
        )
        assert server.calls == calls, "replay must not call the endpoint"
    a = {r.task_id: r for r in first.results}
    b = {r.task_id: r for r in replay.results}
    assert set(a) == {1, 2}
    for tid in a:
        assert a[tid].status == "scored" and a[tid].components["unscored"] == 0
        assert a[tid].final_score == b[tid].final_score == 1.0
        assert [i["passed"] for i in a[tid].official["items"]] == [
            i["passed"] for i in b[tid].official["items"]
        ]
    assert first.unscored_items == 0
