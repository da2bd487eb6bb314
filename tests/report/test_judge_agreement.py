"""The report's "Agreement between judges" section: model judge vs human graders on the report's recap videos."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agenticvbench.cli.main import main
from agenticvbench.fsutil import atomic_write_json
from agenticvbench.grade.agreement import agreement_report
from agenticvbench.grade.store import HumanVerdict, VerdictStore
from agenticvbench.judge.cache import CACHE_SCHEMA
from agenticvbench.report import build_report, load_comparison, render_html, render_markdown
from agenticvbench.results.model import write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME

TASKS = (1, 2, 3, 4)
ITEMS = 12


def _sha(task_id: int, salt: str = "") -> str:
    import hashlib

    return hashlib.sha256(f"video {task_id} {salt}".encode()).hexdigest()


def _run(tmp_path: Path, mk, *, mode: str = "cache", model: str = "m1", salt: str = "") -> Path:
    """A run whose recap tasks 1-4 were scored by `model` (judge mode `mode`) on the videos `_sha(task, salt)`."""
    run = tmp_path / "run"
    for tid in TASKS:
        r = mk(tid, "recap", 0.5, path=str(run))
        r.provenance = {
            **r.provenance,
            "judge_mode": mode,
            "judge_model": model if mode != "off" else None,
            "input_hashes": {"final.mp4": _sha(tid, salt)},
        }
        write_result(run / RESULTS_DIRNAME, r)
    return run


def _judge_entry(cache: Path, n: int, model: str, key: tuple[int, str, str], outcome: str) -> None:
    atomic_write_json(
        cache / "judge" / f"{n % 256:02x}" / f"{model}-{n}.json",
        {
            "schema": CACHE_SCHEMA,
            "key": f"{model}-{n}",
            "model": model,
            "outcome": outcome,
            "item_id": key[1],
            "task_id": key[0],
            "video_sha256": key[2],
        },
    )


def _verdicts(cache: Path, seed: int = 3) -> None:
    """Graders alice (10% noise) and bob (25%) and model m1 on every item of the run's videos."""
    store = VerdictStore(cache / "grades")
    rng = random.Random(seed)
    n = 0
    for tid in TASKS:
        for i in range(ITEMS):
            key = (tid, f"R-{i}", _sha(tid))
            truth = "pass" if rng.random() < 0.55 else "fail"
            for g, noise in (("alice", 0.1), ("bob", 0.25)):
                v = truth if rng.random() > noise else ("fail" if truth == "pass" else "pass")
                store.append(
                    HumanVerdict(grader=g, task_id=tid, item_id=key[1], video_sha256=key[2], verdict=v)
                )
            _judge_entry(cache, n, "m1", key, truth)
            n += 1


def _distractors(cache: Path) -> None:
    """Verdicts that must not count: alice on another video of task 1, and model m2 (not this report's judge)."""
    store = VerdictStore(cache / "grades")
    for i in range(ITEMS):
        other = (1, f"R-{i}", _sha(1, "edited"))
        store.append(
            HumanVerdict(grader="alice", task_id=1, item_id=other[1], video_sha256=other[2], verdict="fail")
        )
        _judge_entry(cache, 1000 + i, "m1", other, "pass")
        _judge_entry(cache, 2000 + i, "m2", (1, f"R-{i}", _sha(1)), "pass")


def test_section_numbers_equal_the_agreement_module(tmp_path: Path, mk) -> None:
    """Per (grader, model) pair the report shows exactly the n, raw agreement, kappa and bootstrap interval that
    `grade.agreement` computes, counting only this report's videos and judge model, in Markdown, HTML and JSON."""
    cache = tmp_path / "cache"
    _verdicts(cache)
    expected = {
        g: agreement_report([f"human:{g}", "model:m1"], cache)["pairs"][0]["overall"]
        for g in ("alice", "bob")
    }
    _distractors(cache)
    run = _run(tmp_path, mk)
    report = build_report(load_comparison([run]), resamples=0, cache_dir=cache)
    section = report.judge_agreement
    assert section is not None and [p["grader"] for p in section["pairs"]] == ["alice", "bob"]
    for pair in section["pairs"]:
        want = expected[pair["grader"]]
        assert pair["model"] == "m1" and pair["n"] == len(TASKS) * ITEMS == want["n"]
        for k in ("agreement", "kappa", "kappa_ci95", "confusion", "prevalence"):
            assert pair[k] == want[k], k
    assert 0.5 < section["pairs"][0]["agreement"] <= 1.0 and section["pairs"][0]["kappa"] is not None
    md = render_markdown(report)
    alice = section["pairs"][0]
    lo, hi = alice["kappa_ci95"]
    assert "## Agreement between judges" in md
    assert (
        f"| alice | m1 | {alice['n']} | {alice['agreement']:.3f} | {alice['kappa']:.3f} [{lo:.3f}, {hi:.3f}] |"
        in md
    )
    assert "Agreement between judges" in render_html(report)
    assert json.loads(json.dumps(report.to_dict()))["judge_agreement"]["pairs"][1]["grader"] == "bob"


def test_cli_report_reads_its_cache_dir(tmp_path: Path, mk, capsys) -> None:
    """`avb report --cache-dir` is where the verdicts are read; report.json carries the section."""
    cache = tmp_path / "cache"
    _verdicts(cache)
    run = _run(tmp_path, mk)
    assert main(["report", str(run), "--resamples", "0", "--cache-dir", str(cache), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(p["a"], p["b"], p["n"]) for p in out["judge_agreement"]["pairs"]] == [
        ("human:alice", "model:m1", 48),
        ("human:bob", "model:m1", 48),
    ]


@pytest.mark.parametrize("case", ["no verdicts", "judge off", "other videos"])
def test_section_absent_without_comparable_verdicts(tmp_path: Path, mk, case: str) -> None:
    """No section (and `judge_agreement` null in JSON) when no human verdict exists, when the recap results were
    not scored by a model judge, or when the verdicts are about other videos than the report's."""
    cache = tmp_path / "cache"
    if case != "no verdicts":
        _verdicts(cache)
    run = _run(
        tmp_path,
        mk,
        mode="off" if case == "judge off" else "cache",
        salt="another video" if case == "other videos" else "",
    )
    report = build_report(load_comparison([run]), resamples=0, cache_dir=cache)
    assert report.judge_agreement is None and report.to_dict()["judge_agreement"] is None
    assert "Agreement between judges" not in render_markdown(report)
    assert "Agreement between judges" not in render_html(report)


def test_unreadable_grades_file_is_named_not_fatal(tmp_path: Path, mk) -> None:
    """A grades file that is not a regular file (here a directory) is named in the section; others still count."""
    cache = tmp_path / "cache"
    _verdicts(cache)
    (cache / "grades" / "zed.jsonl").mkdir()
    report = build_report(load_comparison([_run(tmp_path, mk)]), resamples=0, cache_dir=cache)
    section = report.judge_agreement
    assert section is not None and [p["grader"] for p in section["pairs"]] == ["alice", "bob"]
    assert len(section["unreadable"]) == 1 and "zed.jsonl" in section["unreadable"][0]
    assert "not read:" in render_markdown(report)


def test_judged_videos_names_every_ensemble_member_and_skips_non_model_modes(mk) -> None:
    """An ensemble's results count for each of its models; `human`/`off` judging and results without a recorded
    video hash count for none (their verdicts are not a model's)."""
    from agenticvbench.report.judge_agreement import judged_videos

    def res(tid: int, prov: dict):
        r = mk(tid, "recap", 1.0)
        r.provenance = {**r.provenance, **prov}
        return r

    out = judged_videos(
        [
            res(
                1,
                {
                    "judge_mode": "replay",
                    "judge_model": "a",
                    "judge_ensemble": {"models": ["a", "b"]},
                    "input_hashes": {"final.mp4": _sha(1)},
                },
            ),
            res(2, {"judge_mode": "human", "judge_model": None, "input_hashes": {"final.mp4": _sha(2)}}),
            res(3, {"judge_mode": "cache", "judge_model": "a"}),
            res(4, {"judge_mode": "cache", "judge_model": "c", "input_hashes": {"final.mp4": "not a hash"}}),
        ]
    )
    assert out == {"a": {(1, _sha(1))}, "b": {(1, _sha(1))}}
