"""`--judge human`: llm items scored from stored human verdicts, majority across graders, ties unscored."""

from __future__ import annotations

from pathlib import Path

import openai_server
import pytest

from agenticvbench.fsutil import file_sha256
from agenticvbench.grade.store import HumanVerdict, VerdictStore
from agenticvbench.judge import JudgeSettings
from agenticvbench.verifiers.recap import score_recap

ITEMS = [
    {
        "id": "F-01",
        "dispatch": "python",
        "kind": "ffprobe_duration_range",
        "params": {"min": 1, "max": 3},
        "weight": 1,
        "pillar": 0,
    },
    {"id": "N-01", "dispatch": "llm", "prompt": "Opens on a test pattern.", "weight": 1, "pillar": 2},
    {"id": "N-02", "dispatch": "llm", "prompt": "Tells the story in order.", "weight": 1, "pillar": 2},
]


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2 s generated clip standing in for a recap's final.mp4."""
    return openai_server.make_clip(tmp_path_factory.mktemp("human") / "final.mp4")


def put(store: VerdictStore, grader: str, item: str, verdict: str, sha: str) -> None:
    store.append(HumanVerdict(grader=grader, task_id=9, item_id=item, video_sha256=sha, verdict=verdict))  # type: ignore[arg-type]


def test_majority_tie_and_grader_selection(clip: Path, tmp_path: Path) -> None:
    """N-01: two of three graders pass -> pass; N-02: one pass, one fail (carol skipped) -> unscored.
    With --graders alice only, both follow alice. Provenance names the graders; no endpoint is ever needed."""
    store = VerdictStore(tmp_path / "grades")
    sha = file_sha256(clip)
    for g, n1, n2 in (("alice", "pass", "fail"), ("bob", "pass", "pass"), ("carol", "fail", "skip")):
        put(store, g, "N-01", n1, sha)
        put(store, g, "N-02", n2, sha)
    out = score_recap(clip, ITEMS, judge_settings=JudgeSettings(mode="human"), cache_dir=tmp_path, task_id=9)
    by_id = {i["item_id"]: i for i in out.detail["items"]}
    assert by_id["N-01"]["outcome"] == "pass" and "2 pass, 1 fail" in by_id["N-01"]["reason"]
    assert by_id["N-02"]["outcome"] == "unscored" and "tie" in by_id["N-02"]["reason"]
    assert out.provenance["judge_graders"] == "all"
    only = score_recap(
        clip,
        ITEMS,
        judge_settings=JudgeSettings(mode="human", graders=("alice",)),
        cache_dir=tmp_path,
        task_id=9,
    )
    assert [i["outcome"] for i in only.detail["items"]][1:] == ["pass", "fail"]
    assert only.provenance["judge_graders"] == ["alice"] and only.final_score == pytest.approx(2 / 3)


def test_verdicts_for_another_video_do_not_count(clip: Path, tmp_path: Path) -> None:
    """A verdict given to another file (another SHA-256) is not applied: the item is unscored."""
    put(VerdictStore(tmp_path / "grades"), "alice", "N-01", "pass", "0" * 64)
    out = score_recap(clip, ITEMS, judge_settings=JudgeSettings(mode="human"), cache_dir=tmp_path, task_id=9)
    assert {i["item_id"]: i["outcome"] for i in out.detail["items"]}["N-01"] == "unscored"


def test_new_verdict_rescores_without_force(setup, capsys) -> None:
    """`avb verify --judge human` fingerprints the verdict files: with every item graded, an unchanged store
    reuses the result, and a changed verdict makes the next run rescore the task (no stale reuse)."""
    import json

    from agenticvbench.cli.main import main
    from agenticvbench.results.model import iter_results

    args = [
        "verify",
        str(setup.run),
        "--dataset",
        str(setup.mirror),
        "--tasks",
        "2",
        "--cache-dir",
        str(setup.cache),
        "--jobs",
        "1",
        "--judge",
        "human",
        "--json",
    ]
    video = next(p for p in (setup.run / "2").rglob("final.mp4"))
    store = VerdictStore(setup.cache / "grades")

    def grade(story: str) -> None:
        others = ("nar_length_fit", "pol_music_bed", "nar_closing_sound")
        for item, verdict in (("nar_story", story), *((o, "pass") for o in others)):
            store.append(
                HumanVerdict(
                    grader="alice", task_id=2, item_id=item, video_sha256=file_sha256(video), verdict=verdict
                )
            )  # type: ignore[arg-type]

    def verify() -> dict:
        capsys.readouterr()
        assert main(args) == 0
        return json.loads(capsys.readouterr().out)

    grade("fail")
    assert verify()["n_resumed"] == 0
    first = iter_results(setup.run)[0]
    assert first.components["unscored"] == 0
    assert verify()["n_resumed"] == 1
    grade("pass")
    assert verify()["n_resumed"] == 0
    second = iter_results(setup.run)[0]
    story = {i["item_id"]: i["outcome"] for i in second.detail["items"]}["nar_story"]
    assert story == "pass" and second.final_score > first.final_score
