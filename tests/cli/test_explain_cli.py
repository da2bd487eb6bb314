"""`avb explain RUN TASK_ID`: what lost points, per family, from the result file alone."""

from __future__ import annotations

import json

from agenticvbench.cli.main import EXIT_INPUT, main
from agenticvbench.results.model import Result, write_result


def _repair_result(run) -> Result:
    return Result(
        task_id=65,
        family="repair",
        status="scored",
        final_score=0.4346,
        headline_score=0.4346,
        components={"format": 1.0, "localization": 0.4132, "edit": 0.4},
        warnings=[
            "D-R9: report.md line 4: '- window: 4.0-5.5' looks like a time window, but the official grammar "
            "ignores this key; write it as `- start: 4.0` and `- end: 5.5` (seconds, M:SS or H:MM:SS)"
        ],
        detail={
            "format": {"score": 5.0, "max": 5.0, "n_items": 7, "n_passed": 7, "items": {}},
            "localization": {
                "score": 14.46,
                "max": 35.0,
                "rationale": "predicted [4.5, 6.0] vs truth [4.0, 5.5]",
                "scene_hit_sub": 5.0,
                "scene_hit_max": 5.0,
                "start_sub": 2.23,
                "start_max": 10.0,
            },
            "edit": {
                "score": 24.0,
                "max": 60.0,
                "video_sub": 0.0,
                "audio_sub": 24.0,
                "chunks": [
                    {"start_s": 0, "end_s": 10, "video_ssim_in": 0.55, "video_ssim_out": 0.94},
                    {"start_s": 10, "end_s": 14, "video_ssim_out": 0.99},
                ],
            },
        },
        extra={
            "localization_parse": {
                "rule": "first start/end in the file",
                "slots": [
                    {"label": "whole-file start/end", "lines": [5, 6], "problem": "", "window": [4.5, 6.0]}
                ],
            }
        },
        run={"path": str(run), "harness": "h", "model": "m", "rep": 1},
    )


def test_explain_repair_text_and_json(tmp_path, capsys):
    """The rubric breakdown, report.md lines read or ignored, and the worst chunks are all shown."""
    run = tmp_path / "run"
    write_result(run / "avb-results", _repair_result(run))
    assert main(["explain", str(run), "65"]) == 0
    out = capsys.readouterr().out
    assert "final_score = (format 5.00/5 + localization 14.46/35 + edit 24.00/60) / 100 = 0.4346" in out
    assert "edit: 0.400 of 1 (costs 36.0 of 100 points)" in out
    assert "whole-file start/end (line 5, line 6): window [4.5, 6.0]" in out
    assert "'- window: 4.0-5.5' looks like a time window" in out
    assert "0-10 s: lowest similarity 0.550" in out
    assert main(["explain", str(run / "avb-results"), "65", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["headline_field"] == "final_score" and data["sections"]["worst chunks"][0].startswith(
        "0-10 s"
    )


def test_explain_recap_lists_items_with_measured_values_and_judge_usage(tmp_path, capsys):
    """Recap: failed and unscored items with their measured values, the item table and the judge's tokens."""
    run = tmp_path / "run"
    items = [
        {
            "item_id": "fmt_duration",
            "pillar_name": "format",
            "weight": 2.0,
            "outcome": "fail",
            "passed": False,
            "reason": "duration 22s (range 8-16 s)",
        },
        {
            "item_id": "nar_story",
            "pillar_name": "narrative",
            "weight": 1.0,
            "outcome": "unscored",
            "passed": None,
            "dispatch": "llm",
            "reason": "judge call failed: cannot connect",
            "judge": {"attempts": 3, "prompt_tokens": 1200, "completion_tokens": 0, "cost_usd": None},
        },
        {
            "item_id": "fmt_codec",
            "pillar_name": "format",
            "weight": 1.0,
            "outcome": "pass",
            "passed": True,
            "reason": "video codec h264",
        },
    ]
    write_result(
        run / "avb-results",
        Result(
            task_id=5,
            family="recap",
            status="scored",
            final_score=1 / 3,
            headline_score=1 / 3,
            components={"earned": 1.0, "deductions": 0.0, "total_positive": 3.0, "n_items": 3, "unscored": 1},
            detail={"items": items},
            run={"path": str(run)},
        ),
    )
    assert main(["explain", str(run), "5"]) == 0
    out = capsys.readouterr().out
    assert "fmt_duration (lost 2): duration 22s (range 8-16 s)" in out
    assert "nar_story (unscored, weight 1): judge call failed: cannot connect" in out
    assert "over 2 of 3 items (1 llm item(s) unscored, excluded)" in out
    assert "judge: 3 call(s), 1200 prompt + 0 completion tokens" in out


def test_explain_without_a_result_is_exit_3_with_the_command_to_run(tmp_path, capsys):
    """A task that was never scored names the result file and the verify command."""
    run = tmp_path / "run"
    (run / "37").mkdir(parents=True)
    assert main(["explain", str(run), "37"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert f"no results yet in {run / 'avb-results'}/ (this run was never verified)" in err
    assert f"avb verify {run} --tasks 37" in err
    assert main(["explain", str(tmp_path / "nope"), "37"]) == EXIT_INPUT


def test_explain_names_the_real_results_folder_and_no_command_bound_to_fail(tmp_path, capsys):
    """Regression: a never-verified run got "RUN/65.json does not exist" (there is no RUN/avb-results/ yet), and a
    task id the run has no folder for was still told to run `avb verify --tasks 99`."""
    run = tmp_path / "run"
    (run / "avb-results").mkdir(parents=True)
    (run / "65").mkdir()
    assert main(["explain", str(run), "65"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert (
        f"{run / 'avb-results' / '65.json'} does not exist; score the task first: avb verify {run} --tasks 65"
        in err
    )
    assert main(["explain", str(run), "99"]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "the run has no folder 99/ either (check the task id)" in err and "avb verify" not in err


def test_verbose_lines_are_cut_at_a_word_with_a_pointer(tmp_path):
    """Regression: `avb verify -v` cut each line at exactly 200 characters of lost points, mid-word, with no
    ellipsis; it now ends at a word boundary with "… (more: avb explain RUN ID)"."""
    from agenticvbench.analysis.explain import clip_words, explain_result

    words = "; ".join(f"item pol_item_{i} (lost 1): measured value {i}" for i in range(20))
    assert clip_words(words, 500, " …") == words[:500].rsplit(" ", 1)[0].rstrip(" ;,") + " …"
    res = Result(
        task_id=1,
        family="recap",
        status="scored",
        final_score=0.5,
        headline_score=0.5,
        detail={
            "items": [
                {
                    "item_id": f"pol_item_{i}",
                    "outcome": "fail",
                    "weight": 1,
                    "dispatch": "python",
                    "reason": f"measured value {i} outside the range",
                }
                for i in range(20)
            ]
        },
        run={"path": str(tmp_path), "harness": "h", "model": "m", "rep": 1},
    )
    line = explain_result(res).one_line()
    assert line.endswith("… (more: avb explain RUN 1)"), line
    body = line.split(": ", 1)[1].removesuffix(" … (more: avb explain RUN 1)")
    assert len(body) <= 200 and body in "; ".join(explain_result(res).lost)


def test_a_repair_part_that_costs_nothing_is_not_listed_as_lost():
    """Regression: the perfect run's repair task (edit 0.9999994) read "lost: edit: 1.000 of 1 (costs 0.0 of 100
    points)"; a part costing under 0.05 points is no longer a loss, a real one still is."""
    from agenticvbench.analysis.explain import lost_points

    res = Result(
        task_id=65,
        family="repair",
        status="scored",
        final_score=0.9999996,
        headline_score=0.9999996,
        components={"format": 1.0, "localization": 1.0, "edit": 0.9999994207915918},
    )
    assert lost_points(res) == []
    res.components["edit"] = 0.999  # 0.06 of 100 points
    assert lost_points(res) == ["edit: 0.999 of 1 (costs 0.1 of 100 points)"]


def test_explain_spells_localization_one_way(tmp_path):
    """Regression: `avb explain RUN 65` printed "localization" (the official field) and "localisation" (a section
    title) in one output."""
    from agenticvbench.analysis.explain import explain_result

    text = explain_result(_repair_result(tmp_path / "run")).to_text()
    assert "localization" in text and "localisation" not in text


def test_explain_says_whether_the_result_is_signed(tmp_path, capsys):
    """`avb explain` read results without checking their signature, so a planted result explained like a real
    one; it now states the signature status under the key every reader uses (text and JSON)."""
    run = tmp_path / "run"
    write_result(run / "avb-results", _repair_result(run))  # written without a key: unsigned
    assert main(["explain", str(run), "65"]) == 0
    assert "  signature: unsigned (checked with " in capsys.readouterr().out
    assert main(["explain", str(run), "65", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["signature"].startswith("unsigned")
