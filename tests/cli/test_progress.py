"""No silent minute: a long step shows a bar on a terminal and, outside one, a heartbeat line at least every
`HEARTBEAT_S` seconds (`agenticvbench.cli.progress`); `-q` silences both.

The steps here are fake and slow on purpose: each blocks until the display has spoken twice (with a heartbeat
interval shrunk to milliseconds), so no test depends on how fast the machine is.
"""

from __future__ import annotations

import sys
import threading
import zipfile
from pathlib import Path

import pytest

from agenticvbench import __version__
from agenticvbench.cli import progress as progress_mod
from agenticvbench.cli.main import build_parser, main
from agenticvbench.cli.progress import Progress, progress_mode

#: How long a fake step waits for the heartbeats before giving up (never reached when they come).
PATIENCE_S = 60.0


class Heartbeats:
    """Records every heartbeat line (still printed to stderr) and lets a fake step wait for the `n`-th."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, n: int = 2) -> None:
        self.lines: list[str] = []
        self.enough = threading.Event()
        self.n = n
        real = progress_mod._write
        monkeypatch.setattr(progress_mod, "HEARTBEAT_S", 0.005)
        monkeypatch.setattr(progress_mod, "REDRAW_S", 0.005)

        def write(line: str) -> None:
            real(line)
            self.lines.append(line)
            if len(self.lines) >= self.n:
                self.enough.set()

        monkeypatch.setattr(progress_mod, "_write", write)

    def slow_step(self) -> bool:
        """A step that lasts until `n` heartbeats were written (True), or PATIENCE_S (False)."""
        return self.enough.wait(PATIENCE_S)


def test_mode_follows_quiet_progress_and_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = build_parser()
    assert progress_mode(parser.parse_args(["verify", "r", "-q"])) == "off"
    assert progress_mode(parser.parse_args(["verify", "r"])) == "lines"  # pytest's stderr is not a terminal
    assert progress_mode(parser.parse_args(["verify", "r", "--progress"])) == "bar"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert progress_mode(parser.parse_args(["verify", "r"])) == "bar"
    assert progress_mode(parser.parse_args(["verify", "r", "-q"])) == "off"


def test_heartbeat_lines_during_a_slow_step(monkeypatch, capsys) -> None:
    """Outside a terminal a counted step says how far it is and what finished last, again and again while it
    runs; a step with no count says it is still running."""
    beats = Heartbeats(monkeypatch, n=3)
    with Progress("lines", "scoring", total=4) as shown:
        shown.update(1)
        shown.set_postfix_str("repair 65: scored")
        assert beats.slow_step()
    err = capsys.readouterr().err
    assert "avb: scoring: 1/4 task(s) done, " in err and "; last: repair 65: scored" in err
    assert err.count("avb: scoring:") >= 3
    beats.lines.clear()
    beats.enough.clear()
    with Progress("lines", "building the wheel"):
        assert beats.slow_step()
    assert beats.lines[0].startswith("avb: building the wheel: still running, ")


def test_no_heartbeat_when_off_or_short(monkeypatch, capsys) -> None:
    """`-q` (mode off) prints nothing however long the step; a step shorter than the interval prints nothing."""
    monkeypatch.setattr(progress_mod, "HEARTBEAT_S", 0.001)
    with Progress("off", "scoring", total=2) as shown:
        shown.update(2)
        threading.Event().wait(0.05)  # 50 intervals
    monkeypatch.setattr(progress_mod, "HEARTBEAT_S", 3600.0)
    with Progress("lines", "scoring", total=2) as shown:
        shown.update(2)
    assert capsys.readouterr().err == ""


def test_bar_on_a_terminal_moves_during_one_long_task(monkeypatch, capsys) -> None:
    """On a terminal the tqdm bar is drawn and redrawn while nothing finishes (its clock moves)."""
    monkeypatch.setattr(progress_mod, "REDRAW_S", 0.001)
    redrawn = threading.Event()
    with Progress("bar", "scoring", total=3) as shown:
        real = shown._bar.refresh
        count = [0]

        def refresh(*a, **k):
            count[0] += 1
            if count[0] >= 3:
                redrawn.set()
            return real(*a, **k)

        shown._bar.refresh = refresh
        assert redrawn.wait(PATIENCE_S)
        shown.update(1)
    err = capsys.readouterr().err
    assert "scoring:" in err and "1/3" in err and "avb: scoring" not in err


@pytest.mark.parametrize("quiet", [False, True])
def test_verify_heartbeats_while_a_task_is_slow(
    seq_mirror, seq_run, tmp_path, monkeypatch, capsys, quiet: bool
) -> None:
    """`avb verify` with stderr not a terminal: heartbeat lines while one (fake, slow) task is scored; `-q`:
    none, and the fake step sees no heartbeat."""
    import agenticvbench.scoring.engine as engine

    run = seq_run("agent", {37: ["1", "2", "3"]}, {"harness": "h", "model": "m"})
    beats = Heartbeats(monkeypatch)
    real = engine.score_job
    waited: list[bool] = []

    def slow_score(job):
        if not waited:
            waited.append(beats.enough.wait(0.2 if quiet else PATIENCE_S))
        return real(job)

    monkeypatch.setattr(engine, "score_job", slow_score)
    argv = [
        "verify",
        str(run),
        "--dataset",
        str(seq_mirror),
        "--jobs",
        "1",
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    assert main(argv + (["-q"] if quiet else [])) in (0, 1)
    err = capsys.readouterr().err
    if quiet:
        assert waited == [False] and "avb: scoring:" not in err
    else:
        assert waited == [True] and "avb: scoring: 0/" in err


def _fake_wheel(folder: Path) -> Path:
    wheel = folder / f"agenticvbench-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("agenticvbench/harbor/reward.py", "")
    return wheel


@pytest.mark.parametrize("quiet", [False, True])
def test_harbor_export_heartbeats_while_the_wheel_builds(
    seq_mirror, tmp_path, monkeypatch, capsys, quiet: bool
) -> None:
    """`avb harbor export` builds the wheel it bakes (up to a minute on a fresh venv): heartbeats meanwhile."""
    import agenticvbench.harbor.wheel as wheel_mod

    beats = Heartbeats(monkeypatch)
    waited: list[bool] = []

    def slow_build(cache: Path, **kw) -> Path:
        waited.append(beats.enough.wait(0.2 if quiet else PATIENCE_S))
        return _fake_wheel(tmp_path)

    monkeypatch.setattr(wheel_mod, "build_wheel", slow_build)
    argv = [
        "harbor",
        "export",
        "--dataset",
        str(seq_mirror),
        "--family",
        "sequencing",
        "--out",
        str(tmp_path / "t"),
    ]
    assert main(argv + (["-q"] if quiet else [])) == 0
    err = capsys.readouterr().err
    if quiet:
        assert waited == [False] and "still running" not in err
    else:
        assert waited == [True]
        assert "avb: building the agenticvbench wheel for the verifier image: still running" in err


def test_download_heartbeats_while_a_material_is_fetched(seq_mirror, monkeypatch, capsys) -> None:
    """`avb download` outside a terminal: heartbeats naming the count while one (fake, slow) fetch runs."""
    from agenticvbench.dataset.tasks import Task

    beats = Heartbeats(monkeypatch)
    real = Task.materials
    waited: list[bool] = []

    def slow_materials(self, *a, **kw):
        if not waited:
            waited.append(beats.slow_step())
        return real(self, *a, **kw)

    monkeypatch.setattr(Task, "materials", slow_materials)
    assert main(["download", "--dataset", str(seq_mirror), "--family", "sequencing"]) == 0
    assert waited == [True] and "avb: downloading: 0/" in capsys.readouterr().err
