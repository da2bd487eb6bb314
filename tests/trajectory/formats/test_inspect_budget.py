"""What all of a task folder's Inspect logs may cost together: samples, JSON values and unpacked bytes shared
across its logs, the rest a note and the log among the task's unreadable ones, so the task is never clean."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the optional extra agenticvbench[inspect]")

import inspect_logs as il  # noqa: E402 - after the skip: it imports inspect_ai

from agenticvbench.fsutil import json_values  # noqa: E402
from agenticvbench.runs.jobdir import JobDir  # noqa: E402
from agenticvbench.trajectory.audit import (  # noqa: E402
    AUDITED,
    NOT_AUDITED,
    UNREADABLE,
    audit_run,
    status_text,
)
from agenticvbench.trajectory.context import AuditContext  # noqa: E402
from agenticvbench.trajectory.formats import inspect_budget, inspect_log, inspect_zip  # noqa: E402
from agenticvbench.trajectory.formats.inspect_budget import BudgetSpent, TaskBudget  # noqa: E402
from agenticvbench.trajectory.locate import read_log  # noqa: E402

CTX = AuditContext(repos=frozenset(), inputs={1: (), 37: (), 38: ()}, hosts={}, references=frozenset())


def _two_logs(run: Path) -> int:
    """RUN/37/agent/a.eval and b.eval, three one-call epochs of task 37 each; the JSON values of one sample."""
    for name in ("a", "b"):
        samples = [il.sample(37, [il.bash(f"ls {name}{e}")], epoch=e) for e in (1, 2, 3)]
        il.write(run / "37" / "agent" / f"{name}.eval", samples)
    with zipfile.ZipFile(run / "37" / "agent" / "a.eval") as zf:
        return json_values(zf.read("samples/37_epoch_1.json"), 10**6)


def _counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Count the calls of `module.name`."""
    calls: list[int] = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_a_task_s_logs_share_one_budget_of_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two 104 KB archives of 32 samples each, every sample within its caps, held one task for two minutes:
    the caps bounded a sample, not the task. The task's samples share one budget across its logs: the ones past
    it are not parsed, a note says so, and the log is among the task's unreadable ones, so a task whose logs
    were over budget is not clean."""
    per_sample = _two_logs(tmp_path)
    monkeypatch.setattr(inspect_budget, "MAX_TASK_VALUES", 4 * per_sample + per_sample // 2)
    parsed = _counting(monkeypatch, inspect_log, "parse_json_bounded")
    [task] = audit_run(tmp_path, CTX).tasks
    assert parsed == [1] * 4
    assert task.status == AUDITED and status_text(task.status, len(task.unreadable)) == (
        "audited, 1 log(s) unreadable"
    )
    assert [(log["path"], log["steps"]) for log in task.logs] == [
        ("37/agent/a.eval", 15),
        ("37/agent/b.eval", 5),
    ]
    [cut] = task.unreadable
    assert cut["path"] == "37/agent/b.eval" and "2 of its 3 sample(s) of task 37 not read" in cut["why"]
    assert f"budget of {4 * per_sample + per_sample // 2:,} JSON values" in cut["why"]
    assert any(n.startswith("37/agent/b.eval: from sample '37' epoch 2, 2 of its 3") for n in task.notes)


def test_samples_and_bytes_past_the_budget_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget also counts samples (a log after the last one that fits is not read at all: unreadable, one
    note) and unpacked bytes, checked on the declared size before a sample is inflated: a task none of whose
    samples fit is `unreadable`, never clean."""
    _two_logs(tmp_path)
    monkeypatch.setattr(inspect_budget, "MAX_TASK_SAMPLES", 3)
    [task] = audit_run(tmp_path, CTX).tasks
    assert task.status == AUDITED and [log["path"] for log in task.logs] == ["37/agent/a.eval"]
    assert [u["path"] for u in task.unreadable] == ["37/agent/b.eval"]
    assert "budget of 3 samples for its Inspect logs is spent" in task.unreadable[0]["why"]
    monkeypatch.setattr(inspect_budget, "MAX_TASK_BYTES", 100)
    inflated = _counting(monkeypatch, inspect_zip, "read_member")
    [task] = audit_run(tmp_path, CTX).tasks
    assert task.status == UNREADABLE and not task.logs and len(task.unreadable) == 2 and not inflated
    assert all("budget of 100 unpacked bytes" in u["why"] for u in task.unreadable), task.unreadable


def test_a_log_read_again_for_the_same_task_reads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`avb view` reads a log again in the same open run (a run-level log once to see whose it is, then to draw
    it): what the first reading spent is given back, so the second reads as much as the first, while another
    log of the task still finds the budget spent."""
    _two_logs(tmp_path)
    monkeypatch.setattr(inspect_budget, "MAX_TASK_SAMPLES", 3)
    with JobDir(tmp_path) as job:
        reads = [read_log(job, ("37", "agent", name), 37) for name in ("a.eval", "a.eval", "b.eval")]
    assert [len(t.steps) for t in reads] == [15, 15, 0] and reads[2].format == "unknown"


def test_a_json_log_is_charged_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSON log has no sample-level reading: the task it holds samples of is charged the whole document, and
    one over what is left is not read for it (unreadable); a task it holds none of is not charged."""
    il.write(tmp_path / "logs" / "run.json", [il.sample(1, [il.bash("ls")]), il.sample(37, [il.bash("pwd")])])
    for t in ("1", "37", "38"):
        (tmp_path / t).mkdir()
    values = json_values((tmp_path / "logs" / "run.json").read_bytes(), 10**6)
    monkeypatch.setattr(inspect_budget, "MAX_TASK_VALUES", values)
    assert [t.status for t in audit_run(tmp_path, CTX).tasks] == [AUDITED, AUDITED, NOT_AUDITED]
    monkeypatch.setattr(inspect_budget, "MAX_TASK_VALUES", values - 1)
    t1, t37, t38 = audit_run(tmp_path, CTX).tasks
    assert t1.status == t37.status == UNREADABLE and t38.status == NOT_AUDITED and not t38.unreadable
    assert f"budget of {values - 1:,} JSON values" in t37.unreadable[0]["why"]


def test_the_budget_gives_back_what_a_log_spent_and_checks_without_charging() -> None:
    """`take` charges a log only when the cost fits in what all the task's logs left (nothing charged when it
    does not), `charge=False` only checks, and `open` gives back what a log spent before."""
    budget = TaskBudget()
    budget.take("a", samples=1, values=inspect_budget.MAX_TASK_VALUES - 10)
    budget.take("b", values=10, charge=False)
    with pytest.raises(
        BudgetSpent, match=r"budget of 4,000,000 JSON values .* spent \(3,999,990 read, 11 more"
    ):
        budget.take("b", samples=1, values=11)
    assert budget.spent == {"a": (1, inspect_budget.MAX_TASK_VALUES - 10, 0)}
    budget.stop("a", "cut")
    budget.open("a")
    budget.take("b", values=inspect_budget.MAX_TASK_VALUES)
    assert budget.spent == {"b": (0, inspect_budget.MAX_TASK_VALUES, 0)} and budget.cut == {}
