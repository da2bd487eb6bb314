"""No silent minute: the floor that `avb leaderboard` / `avb report` score on their own is announced in one line
first (what, about how long, where it is cached, `--no-floor`), and progress is drawn by default on a terminal for
`avb demo`, `avb baselines` and the floor.

Before these tests' fix, the first leaderboard scored 14 baseline runs in silence (26-39 s on the demo) and the
demo printed nothing for a minute.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agenticvbench.baselines.floor import about, scoring_notice
from agenticvbench.baselines.run import JOB_COST_S, POOL_START_S, default_root, pending_jobs, scoring_estimate
from agenticvbench.cli.demo import step_printer
from agenticvbench.cli.main import build_parser, main
from agenticvbench.dataset.loader import load_tasks

ORDERS = {37: ["1", "2", "3"], 38: ["3", "1", "2"], 39: ["2", "3", "1"]}


def _scored_run(seq_mirror: Path, seq_run, cache: Path) -> Path:
    run = seq_run("agent", {37: ORDERS[37], 38: ["1", "2", "3"]}, {"harness": "h", "model": "m"})
    assert main(["verify", str(run), "--dataset", str(seq_mirror), "--cache-dir", str(cache), "-q"]) in (0, 1)
    return run


def _fake_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)


@pytest.mark.slow
def test_leaderboard_announces_the_floor_once_then_reuses_it(seq_mirror, seq_run, tmp_path, capsys):
    """The first leaderboard prints one `avb:` line before scoring the floor (job count, estimate, cache folder,
    --no-floor); the second finds everything cached and says nothing; `--no-floor` and `-q` never print it."""
    cache = tmp_path / "cache"
    run = _scored_run(seq_mirror, seq_run, cache)
    capsys.readouterr()
    args = [
        "leaderboard",
        str(run),
        "--dataset",
        str(seq_mirror),
        "--cache-dir",
        str(cache),
        "--resamples",
        "0",
    ]
    args += [
        "--family",
        "sequencing",
    ]  # the tiny mirror's repair video is not a video: no baseline can be cut
    assert main(args) in (0, 1)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "scoring the floor" in ln]
    assert len(lines) == 1, err
    tasks = load_tasks("sequencing", dataset=seq_mirror)
    root = default_root(tasks, "", cache)
    line = lines[0]
    assert line.startswith("avb: ") and "--no-floor" in line and str(root) in line and "about " in line
    assert f"{len(tasks)} task(s) of {seq_mirror}" in line
    assert not pending_jobs(tasks, root)  # everything the notice counted is now cached
    assert main(args) in (0, 1)
    assert "scoring the floor" not in capsys.readouterr().err
    for extra in (["--no-floor"], ["-q"]):
        cache2 = tmp_path / f"cache{extra[0]}"
        _scored_run(seq_mirror, seq_run, cache2)
        capsys.readouterr()
        main([*args[:4], "--cache-dir", str(cache2), *args[6:], *extra])
        assert "scoring the floor" not in capsys.readouterr().err, extra


def test_notice_counts_what_is_not_cached(seq_mirror, tmp_path):
    """The notice counts every strategy run x task of its families when nothing is cached, and nothing once a
    task's results exist; a lost result makes its job pending again."""
    from agenticvbench.baselines import baselines
    from agenticvbench.baselines.strategies import STRATEGIES

    tasks = load_tasks(dataset=seq_mirror)
    root = default_root(tasks, "", tmp_path)
    expected = sum(s.reps * sum(1 for t in tasks if t.family in s.families) for s in STRATEGIES)
    assert len(pending_jobs(tasks, root)) == expected
    assert f"{expected} baseline job(s)" in (scoring_notice(tasks, tmp_path, jobs=2) or "")
    seq = [t for t in tasks if t.family == "sequencing"]
    baselines(tasks=seq, cache_dir=tmp_path, jobs=1)
    assert {t.family for _, t in pending_jobs(tasks, root)} == {"repair"}
    assert scoring_notice(seq, tmp_path) is None
    (root / "given_order" / "avb-results" / "37.json").unlink()
    assert [(r, int(t.task_id)) for r, t in pending_jobs(seq, root)] == [("given_order", 37)]


def test_estimate_follows_the_cost_table(seq_mirror):
    """The estimate is the per-family fixed cost plus the per-MB cost of each job's inputs, spread over the
    workers, plus the pool start: recomputed here by hand from the same files."""
    tasks = load_tasks(dataset=seq_mirror)
    jobs = [("r", t) for t in tasks] * 3
    by_hand = 0.0
    for _r, t in jobs:
        fixed, per_mb = JOB_COST_S[t.family]
        by_hand += fixed + per_mb * sum(p.stat().st_size for p in t.materials()) / 1e6
    assert scoring_estimate(jobs, 2) == pytest.approx(POOL_START_S + by_hand / 2)
    assert scoring_estimate(jobs, 2, cores=2, load=6.0) == pytest.approx(POOL_START_S + by_hand / 0.5)
    assert scoring_estimate(jobs, 1, cores=2, load=0.5) == pytest.approx(POOL_START_S + by_hand)
    assert scoring_estimate([], 2) == 0.0
    assert [about(3), about(42), about(600), about(7200)] == [
        "about 5 s",
        "about 40 s",
        "about 10 min",
        "about 2.0 h",
    ]


def test_baselines_draws_the_bar_on_a_terminal_only(seq_mirror, tmp_path, capsys, monkeypatch):
    """`avb baselines` draws its scoring bar by default when stderr is a terminal, not when it is a file or
    with -q (it used to need --progress, which had no help text)."""
    base = ["baselines", "--dataset", str(seq_mirror), "--family", "sequencing", "--jobs", "1"]
    assert main([*base, "--cache-dir", str(tmp_path / "a")]) == 0
    assert "scoring" not in capsys.readouterr().err
    _fake_terminal(monkeypatch)
    assert main([*base, "--cache-dir", str(tmp_path / "b")]) == 0
    assert "scoring" in capsys.readouterr().err
    assert main([*base, "--cache-dir", str(tmp_path / "c"), "-q"]) == 0
    assert "scoring" not in capsys.readouterr().err
    help_text = " ".join(
        build_parser()._subparsers._group_actions[0].choices["baselines"].format_help().split()
    )
    assert "--progress" in help_text and "even when stderr is not a terminal" in help_text


def test_demo_step_lines_on_a_terminal_and_heartbeats_elsewhere(capsys, monkeypatch):
    """The demo's build steps: every line on a terminal; outside one, heartbeat lines naming the last step (none
    before the interval, so a quick build is quiet); nothing with -q."""
    from agenticvbench.cli import progress

    parser = build_parser()
    args = parser.parse_args(["demo"])
    monkeypatch.setattr(progress, "HEARTBEAT_S", 3600.0)
    printer, display = step_printer(args)
    assert printer is not None and display is not None
    for i in range(5):
        printer(f"[{i}/5] step")
    assert display.heartbeat_line().startswith("avb: building the demo: still running, ")
    assert display.heartbeat_line().endswith("; last: [4/5] step")
    display.close()
    assert capsys.readouterr().err == ""  # within the interval: nothing yet
    assert step_printer(parser.parse_args(["demo", "-q"])) == (None, None)
    _fake_terminal(monkeypatch)
    printer, display = step_printer(args)
    assert printer is not None and display is None
    for i in range(3):
        printer(f"[{i}/3] step")
    assert capsys.readouterr().err.count("step\n") == 3


@pytest.mark.slow
def test_demo_announces_build_and_scoring(demo, tmp_path, capsys, monkeypatch):
    """`avb demo` on a new folder says it is building and then scoring (stderr) before the summary, even with
    stderr redirected; `-q` keeps only the summary."""
    import shutil

    dest = tmp_path / "d"
    shutil.copytree(demo.root, dest)
    assert main(["demo", "--dest", str(dest), "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    assert "scoring the demo's 3 runs" in err and "building" not in err  # already built: only scoring
    assert "next commands to try" in out
    assert main(["demo", "--dest", str(dest), "-q"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "next commands" not in out and "macro" in out
    fresh = tmp_path / "fresh"
    assert main(["demo", "--dest", str(fresh), "--no-score"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("avb: building the small demo benchmark in ")
