"""Markdown and HTML reports from synthetic results: content, labels, plots, problems, CLI."""

from __future__ import annotations

import base64
import json
import re

import pytest

from agenticvbench.cli.main import main
from agenticvbench.report import build_report, load_comparison, render_html, render_markdown
from agenticvbench.report.plots import repair_chunks, sequencing_order

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
REPAIR_DETAIL = {
    "edit": {
        "score": 42.0,
        "max": 60,
        "window_s": [4.0, 9.0],
        "chunks": [
            {
                "start_s": 0.0,
                "end_s": 10.0,
                "video_ssim_in": 0.4,
                "video_ssim_out": 0.95,
                "audio_xcorr_in": 0.5,
                "audio_xcorr_out": 0.99,
            },
            {
                "start_s": 10.0,
                "end_s": 14.0,
                "video_ssim_in": None,
                "video_ssim_out": 0.9,
                "audio_xcorr_in": None,
                "audio_xcorr_out": 0.97,
            },
        ],
    }
}
SEQ_DETAIL = {"pred_order": ["2", "1", "3", "9"], "correct_order": ["1", "2", "3", "4"]}


@pytest.fixture
def two_runs(make_run):
    """Two runs of one (harness, model): every status appears once, one task has no result in run b."""
    a = make_run(
        "a",
        {
            1: ("recap", 0.8),
            2: ("recap", 0.6),
            37: ("sequencing", 0.5),
            65: ("repair", 0.7),
            83: ("assembly", 1.0),
        },
        rep=1,
        detail=None,
    )
    b = make_run(
        "b",
        {
            1: ("recap", 0.4),
            37: ("sequencing", 0.0, "malformed"),
            65: ("repair", 0.0, "error"),
            83: ("assembly", 0.0, "missing"),
        },
        rep=2,
        warnings=["truncated fixed.mp4: tail not penalised"],
    )
    return [a, b]


def test_markdown_numbers_labels_and_problems(two_runs) -> None:
    """The headline numbers, the aggregation statement, status counts and every problem with its reason."""
    report = build_report(load_comparison(two_runs), resamples=100)
    md = render_markdown(report)
    g = report.groups[0]
    assert g.families["recap"].mean == pytest.approx((0.8 + 0.6 + 0.4 + 0) / 4)
    assert g.families["assembly"].mean == pytest.approx(0.5)
    assert f"{g.families['recap'].mean:.4f}" in md and f"{g.macro:.4f}" in md and f"{g.micro:.4f}" in md
    assert "macro: unweighted mean of the 4 family headlines" in md and "micro: mean over all" in md
    assert "every task that has a result in at least one run" in md
    assert "100 resamples, seed 0" in md
    assert "human reference" in md and "assembly 0.81" in md
    assert "1 task result(s) have status ERROR" in md
    for needle in (
        "| ERROR | 65 | repair |",
        "| malformed | 37 | sequencing |",
        "| missing | 83 | assembly |",
        "| no result | 2 | recap |",
        "error reason 65",
        "no result file for this task",
    ):
        assert needle in md, needle
    assert "(4x) truncated fixed.mp4: tail not penalised" in md
    counts = report.status_counts
    assert counts["recap"] == {
        "scored": 3,
        "missing": 0,
        "malformed": 0,
        "error": 0,
        "excluded": 0,
        "invalid": 0,
        "no_result": 1,
    }
    assert "dataset: demo @ main (resolved local)" in md


def test_html_is_self_contained_with_plots(two_runs) -> None:
    """One file: no external references, PNG plots inline, the same numbers and problems as the Markdown."""
    results = load_comparison(two_runs)
    for r in results:
        if r.family == "repair" and r.status == "scored":
            r.detail = REPAIR_DETAIL
        if r.family == "sequencing" and r.status == "scored":
            r.detail = SEQ_DETAIL
    report = build_report(results, resamples=50)
    page = render_html(report)
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"""(src|href)=["'](?!data:)""", page), "external reference in the HTML"
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    # family bars + task grid + one repair chunk plot + one sequencing order plot
    assert len(images) == 4
    for b64 in images:
        png = base64.b64decode(b64)
        assert png.startswith(PNG_MAGIC) and len(png) > 5000
    assert f"{report.groups[0].macro:.4f}" in page
    assert "status-error" in page and "error reason 65" in page
    assert "Repair: edit signals per chunk" in page and "Sequencing: predicted vs true order" in page


def test_detail_plots_need_their_data(mk) -> None:
    """No chunk list / no orders -> no plot (None), rather than an empty figure."""
    assert repair_chunks(mk(65, "repair", 0.5)) is None
    assert sequencing_order(mk(37, "sequencing", 0.5)) is None
    assert repair_chunks(mk(65, "repair", 0.5, detail=REPAIR_DETAIL)).startswith(PNG_MAGIC)
    assert sequencing_order(mk(37, "sequencing", 0.5, detail=SEQ_DETAIL)).startswith(PNG_MAGIC)


def test_json_report_roundtrips(two_runs) -> None:
    """The JSON report carries the universe, bootstrap settings (with the scheme the caption states, generated
    from the same settings), groups and per-task rows."""
    data = json.loads(json.dumps(build_report(load_comparison(two_runs), resamples=10).to_dict()))
    assert data["universe"]["basis"] == "observed"
    boot = data["bootstrap"]
    assert (boot["resamples"], boot["seed"], boot["level"]) == (10, 0, 0.95)
    assert "not clustered" in boot["scheme"] and "10 resamples" in boot["scheme"]
    assert boot["clustered"] is False
    assert len(data["tasks"]) == 5 * 2 and data["groups"][0]["status_counts"]["error"] == 1


def test_full_benchmark_and_dataset_universe(two_runs, mk) -> None:
    """--full-benchmark counts all 100 tasks; a dataset task list reports results outside it as ignored."""
    results = load_comparison(two_runs)
    full = build_report(results, full_benchmark=True, resamples=0)
    assert full.universe.n_tasks == 100
    assert full.groups[0].families["recap"].mean == pytest.approx(1.8 / (36 * 2))
    ds = build_report(results, tasks={"recap": [1, 2, 3]}, dataset_label="mini", resamples=0)
    assert ds.universe.families == ["recap"]
    assert ds.groups[0].families["recap"].mean == pytest.approx(1.8 / 6)
    assert len(ds.ignored) == 6 and "not in the task universe" in ds.ignored[0]
    assert "Results outside the task universe" in render_markdown(ds)


def test_cli_report(two_runs, tmp_path, capsys) -> None:
    """`avb report`: Markdown to stdout; `--format all --out` writes three files; exit 1 because of the error."""
    assert main(["report", *map(str, two_runs), "--resamples", "20"]) == 1
    out = capsys.readouterr()
    assert out.out.startswith("# AgenticVBench report") and "ERROR" in out.err
    assert main(["report", *map(str, two_runs), "--format", "all", "--out", str(tmp_path / "rep")]) == 1
    assert sorted(p.name for p in (tmp_path / "rep").iterdir()) == ["report.html", "report.json", "report.md"]
    capsys.readouterr()
    assert main(["report", str(two_runs[0]), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"][0]["runs"][0]["rep"] == "1"
    assert main(["report", str(two_runs[0]), "--format", "all"]) == 2
    assert main(["report", str(tmp_path / "nope")]) == 3
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(empty)]) == 3


def test_provenance_lists_versions_and_judge(mk) -> None:
    """Provenance names the dataset revision, verifier versions, the recap judge (flat judge_* keys too) and the hosts."""
    r = mk(1, "recap", 0.5, path="A")
    r.provenance.update(
        {
            "judge_mode": "openai",
            "judge_model": "gpt-x",
            "prompt_hash": "abc123",
            "host": {"machine": "aarch64", "simd": "ASIMD"},
        }
    )
    md = render_markdown(build_report([r, mk(37, "sequencing", 1.0, path="A")], resamples=0))
    assert "judge (recap): mode openai, model gpt-x, prompt_hash abc123" in md
    assert "- scored on: aarch64 (ASIMD)" in md
    assert "verifier versions: recap recap-1; sequencing sequencing-1" in md


@pytest.mark.slow
def test_cli_report_dataset_universe(two_runs, demo, capsys) -> None:
    """`--dataset MIRROR` counts every task of that dataset: tasks the runs lack appear as 'no result' (= 0)."""
    assert (
        main(
            [
                "report",
                *map(str, two_runs),
                "--dataset",
                str(demo.mirror),
                "--resamples",
                "0",
                "--format",
                "json",
            ]
        )
        == 1
    )
    data = json.loads(capsys.readouterr().out)
    assert data["universe"]["basis"] == "dataset" and data["universe"]["source"] == str(demo.mirror)
    n_tasks = sum(len(v) for v in data["universe"]["tasks"].values())
    assert n_tasks > 5 and len(data["tasks"]) == 2 * n_tasks
    no_result = sum(c["no_result"] for c in data["status_counts"].values())
    assert no_result == 2 * n_tasks - 9  # the two runs hold 9 results, all inside the demo's task list


def test_lost_points_explains_each_family(mk) -> None:
    """The worst-task explanations name what cost points in each family's own terms."""
    from agenticvbench.analysis.explain import lost_points

    seq = mk(37, "sequencing", 0.2, detail={"pred": ["2", "1", "3"], "correct": ["1", "2", "3"]})
    seq.components = {"nd_score": 0.5, "lis_score": 0.67, "adj_score": 0.5}
    assert "misplaced: 2 at 1 (belongs at 2), 1 at 2 (belongs at 1)" in lost_points(seq)
    asm = mk(83, "assembly", 0.25, detail={"picks": ["3.mp4", "2.mp4"], "correct": ["3.mp4", "7.mp4"]})
    assert "slot 2: picked 2.mp4, want 7.mp4" in lost_points(asm)
    rep = mk(65, "repair", 0.6, warnings=["D-R6: tails unchecked"])
    rep.components = {"format": 1.0, "localization": 0.5, "edit": 0.6}
    assert lost_points(rep) == [
        "localization: 0.500 of 1 (costs 17.5 of 100 points)",
        "edit: 0.600 of 1 (costs 24.0 of 100 points)",
        "warning: D-R6: tails unchecked",
    ]
    recap = mk(
        1,
        "recap",
        0.5,
        detail={
            "items": [
                {"item_id": "a", "weight": 2, "passed": True, "reason": "ok"},
                {"item_id": "b", "weight": 1, "passed": False, "reason": "too short"},
                {"item_id": "c", "weight": -1, "passed": False, "reason": "black gap"},
            ]
        },
    )
    assert lost_points(recap) == ["b (lost 1): too short", "c (deducted 1): black gap"]
    assert lost_points(mk(2, "recap", 0, status="malformed", reason="final.mp4 unreadable")) == [
        "malformed: final.mp4 unreadable"
    ]


@pytest.mark.slow
def test_html_lists_only_published_rows_this_comparison_has(two_runs, make_run) -> None:
    """Regression: the HTML report listed the published codex_cli / gpt-5.5 row as "not in this comparison" on
    every report (the Markdown did not), under a heading of its own size; both now show only matched rows."""
    html = render_html(build_report(load_comparison(two_runs), resamples=0))
    assert "not in this comparison" not in html and "Compared with published numbers" not in html
    run = make_run("c", {83: ("assembly", 0.5)}, harness="codex_cli", model="gpt-5.5")
    html = render_html(build_report(load_comparison([run]), resamples=0))
    assert "<h3>Compared with published numbers</h3>" in html and "0.3810" in html
