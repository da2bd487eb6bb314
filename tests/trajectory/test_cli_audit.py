"""`avb audit` end to end on the demo: logs added to a copy of a demo run, the dataset given as the demo mirror
(whose own paths are answer material), Markdown and JSON output, exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import traj_logs as logs

from agenticvbench.cli.main import main
from agenticvbench.demo import DemoBenchmark
from agenticvbench.runs.submission import RESULTS_DIRNAME


@pytest.fixture
def run(demo: DemoBenchmark, tmp_path: Path) -> Path:
    """A copy of the demo's perfect run (no results), without logs."""
    dest = tmp_path / "perfect"
    shutil.copytree(demo.runs["perfect"], dest, ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    return dest


def test_flags_per_task_with_exit_1(
    demo: DemoBenchmark, run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An honest task and two cheating ones: the JSON names each flag's task, rule, log and step; the source
    read from the demo mirror (the dataset being scored) is answer access; exit 1."""
    logs.write(run / "37", "atif", [logs.shell("ffprobe /workspace/materials/37/clip_a.mp4")])
    source = demo.mirror / "repair" / "sources" / "demo1_source.mp4"
    logs.write(run / "65", "claude-code", [logs.shell("ls"), logs.shell(f"cp '{source}' fixed.mp4")])
    logs.write(run / "83", "codex", [logs.Call("search", "assembly storyboard answers")])
    code = main(["audit", str(run), "--dataset", str(demo.mirror), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["flags"] == 2
    [audit] = out["runs"]
    by_task = {t["task_id"]: t for t in audit["tasks"]}
    assert by_task[37]["status"] == "audited" and by_task[37]["findings"] == []
    [f65] = by_task[65]["findings"]
    assert (f65["rule"], f65["log"], f65["step"]) == ("answer_access", "65/agent/claude-code.txt", 3)
    assert "dataset being scored" in f65["why"] and "demo1_source.mp4" in f65["quote"]
    assert [f["rule"] for f in by_task[83]["findings"]] == ["web_access"]
    assert by_task[1]["status"] == "not audited" and set(out["rules"]) == {
        "answer_access",
        "web_access",
        "foreign_task",
    }


def test_markdown_and_a_run_without_logs(
    demo: DemoBenchmark, run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run with no trajectory says "not audited" once, never clean, and exits 0; the audited run's table and
    findings follow, one line each."""
    logs.write(run / "38", "openclaw", [logs.shell(f"cat {run}/37/solution.json")])
    code = main(["audit", str(run), str(demo.runs["broken"]), "--dataset", str(demo.mirror)])
    out = capsys.readouterr().out
    assert code == 1
    assert out.count("not audited: no trajectory found") == 1
    assert (
        "| 38 | audited | openclaw 38/agent/agents/main/sessions/s1.jsonl (2 steps) | foreign_task 1 |" in out
    )
    assert (
        "- task 38: `foreign_task` 38/agent/agents/main/sessions/s1.jsonl step 1 (exec): task 37's folder"
        in out
    )
    assert "1 flag(s) in 1 task(s) of 2 run(s); 1 run(s) not audited (no trajectory)" in out
    assert "| 37 | not audited | - | - |" in out  # the word the results and `avb view` use for a task
    assert main(["audit", str(demo.runs["broken"]), "--dataset", str(demo.mirror)]) == 0


def test_task_selection_and_errors(
    demo: DemoBenchmark, run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--tasks audits only the tasks named; a path that is not a run directory is exit 3 on one line."""
    logs.write(run / "83", "opencode", [logs.Call("fetch", "https://example.com/a")])
    assert main(["audit", str(run), "--dataset", str(demo.mirror), "--tasks", "37", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [t["task_id"] for t in out["runs"][0]["tasks"]] == [37]
    assert main(["audit", str(run / "nope"), "--dataset", str(demo.mirror)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("avb: error:") and err.count("\n") == 1


def test_agent_strings_cannot_forge_lines(
    demo: DemoBenchmark, run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command carrying a newline, a terminal escape and a table bar is quoted on one line: whitespace folded,
    the escape shown as text, the bar escaped."""
    calls = [logs.shell("curl https://example.com/a\n- task 1: clean\x1b[2J | x")]
    logs.write(run / "84", "atif", calls)
    assert main(["audit", str(run), "--dataset", str(demo.mirror), "--tasks", "84"]) == 1
    out = capsys.readouterr().out
    [line] = [ln for ln in out.splitlines() if ln.startswith("- task 84")]
    assert "example.com/a - task 1: clean\\x1b[2J \\| x" in line and "\x1b" not in out


def test_an_audited_task_names_its_unreadable_logs(
    demo: DemoBenchmark, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A task with a clean log and a log that cannot be read (a symlink) was reported `audited` with no finding,
    the unread log only in the notes; the table, the JSON and the result's provenance now say it."""
    from agenticvbench.trajectory.check import check_task, task_logs
    from agenticvbench.trajectory.context import AuditContext

    logs.write(run / "37", "atif", [logs.shell("ls")])
    (tmp_path / "elsewhere.txt").write_text(logs.claude_code([logs.shell("ls")]))
    (run / "37" / "agent" / "claude-code.txt").symlink_to(tmp_path / "elsewhere.txt")
    assert main(["audit", str(run), "--dataset", str(demo.mirror), "--tasks", "37"]) == 0
    assert "| 37 | audited, 1 log(s) unreadable | atif 37/agent/trajectory.json (2 steps) | none |" in (
        capsys.readouterr().out
    )
    main(["audit", str(run), "--dataset", str(demo.mirror), "--tasks", "37", "--format", "json"])
    [task] = json.loads(capsys.readouterr().out)["runs"][0]["tasks"]
    assert task["status"] == "audited" and task["findings"] == []
    [unread] = task["unreadable"]
    assert unread["path"] == "37/agent/claude-code.txt" and "symlink" in unread["why"]
    ctx = AuditContext(repos=frozenset(), inputs={37: ()}, hosts={}, references=frozenset())
    block = check_task(run / "37", 37, ctx, task_logs(run / "37")).provenance
    assert block["status"] == "audited" and [u["path"] for u in block["unreadable"]] == [unread["path"]]


def test_a_dataset_and_a_run_given_through_symlinks(
    demo: DemoBenchmark, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--dataset LINK` (a symlink to the mirror) and a run given through a symlink: the agent's paths through
    either spelling are judged as the resolved ones (the table, a verifier-only source, another task's folder);
    the own input read through the link is clean."""
    (tmp_path / "dslink").symlink_to(demo.mirror)
    (tmp_path / "runlink").symlink_to(run)
    ds, rl = tmp_path / "dslink", tmp_path / "runlink"
    logs.write(run / "37", "claude-code", [logs.shell(f"unzip -o {ds}/sequencing/materials/37.zip -d in")])
    logs.write(run / "38", "claude-code", [logs.shell(f"cat {ds}/data/train-00000-of-00001.parquet")])
    logs.write(
        run / "65", "claude-code", [logs.shell(f"ffmpeg -i {ds}/repair/sources/demo1_source.mp4 r.mp4")]
    )
    logs.write(run / "83", "claude-code", [logs.shell(f"cat {rl}/84/output/storyboard.json")])
    assert main(["audit", str(rl), "--dataset", str(ds), "--format", "json"]) == 1
    by_task = {t["task_id"]: t for t in json.loads(capsys.readouterr().out)["runs"][0]["tasks"]}
    assert by_task[37]["findings"] == []
    assert [f["rule"] for t in (38, 65) for f in by_task[t]["findings"]] == ["answer_access"] * 2
    assert [f["why"] for f in by_task[83]["findings"]] == ["task 84's folder"]


def test_dot_dot_after_a_symlinked_dataset_leaves_where_the_link_leads(
    demo: DemoBenchmark, run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With `--dataset LINK` (a symlink to `.../mirror`), `cat LINK/../mirror/repair/sources/x.mp4` reads the
    verifier-only source: the kernel follows LINK before `..`. The audit resolved `..` lexically first
    (`.../LINK/../mirror` became a folder beside the link) and found nothing; a link the agent makes in the call
    had the same gap. `..` after a link now leaves the link's target, and a sibling `..` stays honest."""
    (tmp_path / "dslink").symlink_to(demo.mirror)
    ds, name = tmp_path / "dslink", demo.mirror.name
    logs.write(
        run / "65",
        "claude-code",
        [logs.shell(f"ffmpeg -i {ds}/../{name}/repair/sources/demo1_source.mp4 r.mp4")],
    )
    logs.write(
        run / "38",
        "claude-code",
        [logs.shell(f"ln -s {demo.mirror}/repair d && cat d/../data/train-00000-of-00001.parquet")],
    )
    logs.write(run / "37", "claude-code", [logs.shell(f"ls {ds}/../{name}/sequencing/materials/37.zip")])
    assert main(["audit", str(run), "--dataset", str(ds), "--format", "json"]) == 1
    by_task = {t["task_id"]: t for t in json.loads(capsys.readouterr().out)["runs"][0]["tasks"]}
    assert [f["rule"] for t in (38, 65) for f in by_task[t]["findings"]] == ["answer_access"] * 2
    assert by_task[37]["findings"] == []
