"""The per-task deadline must be in range: `setitimer` overflows the platform's time_t (OverflowError) for
`--task-timeout 1e12` or `AVB_TASK_TIMEOUT_S=inf`, which used to crash every task. Out of range is a one-line
usage error (exit 2) before anything is planned or written."""

from __future__ import annotations

import signal

import pytest

from agenticvbench.cli.main import main
from agenticvbench.errors import ConfigError
from agenticvbench.scoring.executors import make_executor
from agenticvbench.scoring.task_deadline import MAX_TASK_TIMEOUT_S, TASK_TIMEOUT_ENV, task_deadline


def test_the_largest_accepted_deadline_can_be_armed():
    """The bound is one `setitimer` really accepts (the reason for the bound), and 1e12 is one it does not."""
    try:
        signal.setitimer(signal.ITIMER_REAL, MAX_TASK_TIMEOUT_S)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    with pytest.raises(OverflowError):
        signal.setitimer(signal.ITIMER_REAL, 1e12)
    signal.setitimer(signal.ITIMER_REAL, 0)


@pytest.mark.parametrize("value", [1e12, float("inf"), float("nan"), 0.0, -5.0, MAX_TASK_TIMEOUT_S + 1])
def test_out_of_range_deadlines_are_config_errors(value):
    """Regression: 1e12 and inf passed the old check (positive, not NaN) and crashed at `setitimer`."""
    with pytest.raises(ConfigError, match="at most 604800"):
        task_deadline(value)
    with pytest.raises(ConfigError):
        make_executor("process", 1, None, value)


@pytest.mark.parametrize("env", ["inf", "1e12", "nan", "-1", "lots", "1e400"])
def test_out_of_range_environment_deadlines_are_config_errors(env, monkeypatch):
    """The same range for `$AVB_TASK_TIMEOUT_S`, the message naming the variable."""
    monkeypatch.setenv(TASK_TIMEOUT_ENV, env)
    with pytest.raises(ConfigError, match=TASK_TIMEOUT_ENV):
        task_deadline()


def test_in_range_deadlines_are_kept(monkeypatch):
    """Honest values pass unchanged, from the argument and from the variable."""
    assert task_deadline(MAX_TASK_TIMEOUT_S) == MAX_TASK_TIMEOUT_S and task_deadline(0.5) == 0.5
    monkeypatch.setenv(TASK_TIMEOUT_ENV, "90")
    assert task_deadline() == 90.0


@pytest.mark.parametrize("how", ["option", "env"])
def test_cli_out_of_range_deadline_is_one_line_exit_2(how, tmp_path, monkeypatch, capsys):
    """`avb verify RUN --task-timeout 1e12` and `AVB_TASK_TIMEOUT_S=inf avb verify RUN`: exit 2 with one line on
    stderr, no traceback, and no results folder made in the run."""
    run = tmp_path / "run"
    (run / "37").mkdir(parents=True)
    args = ["verify", str(run), "--dataset", str(tmp_path / "no-mirror")]
    if how == "option":
        args += ["--task-timeout", "1e12"]
    else:
        monkeypatch.setenv(TASK_TIMEOUT_ENV, "inf")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "OverflowError" not in err
    assert "604800" in err and len(err.strip().splitlines()) == 1, err
    assert not (run / "avb-results").exists()
