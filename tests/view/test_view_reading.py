"""`avb view` reads again only the runs whose result files changed: a result scored after start-up made the server
read every run again (900 result files at leaderboard size, for one changed file)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from test_view_leaderboard import SCORES, result, write_run

from agenticvbench.results.model import write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME
from agenticvbench.view import Thumbnailer, ViewApp, build_model, reading
from agenticvbench.view.reading import RunReader, results_stamp


def _count_reads(monkeypatch) -> tuple[list[str], list[str], list[object]]:
    """Count every folder read (`load_run`), run.json read (`run_facts`) and task load (`_tasks`) of the reader,
    by wrapping the functions it calls."""
    runs: list[str] = []
    facts: list[str] = []
    tasks: list[object] = []
    load_run, run_facts, load_tasks = reading.load_run, reading.run_facts, reading._tasks
    monkeypatch.setattr(
        reading, "load_run", lambda p, key=None: runs.append(Path(p).name) or load_run(p, key)
    )
    monkeypatch.setattr(reading, "run_facts", lambda p: facts.append(Path(p).name) or run_facts(p))
    monkeypatch.setattr(reading, "_tasks", lambda *a: tasks.append(a) or load_tasks(*a))
    return runs, facts, tasks


def _touch_later(path: Path) -> None:
    """Move `path`'s mtime a second on (a rewrite within the file system's clock tick keeps it otherwise)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_a_reload_reads_again_only_the_run_whose_results_changed(tmp_path, monkeypatch) -> None:
    """Three runs served; one result of the second rewritten. The next page reads that run's folder alone (its
    results and its run.json), keeps the other two runs' results as they were read (the same objects), does not
    load the tasks again, and shows the new score; a request with nothing changed reads nothing."""
    runs = [
        write_run(tmp_path, f"r{k}", SCORES, harness=f"h{k}", meta={"usage": {}} if k == 1 else None)
        for k in range(3)
    ]
    reads, facts, tasks = _count_reads(monkeypatch)
    reader = RunReader()
    app = ViewApp(
        model=build_model(runs, resamples=50, reader=reader),
        thumbs=Thumbnailer(tmp_path / "cache", progress=False),
        reload=lambda: build_model(runs, resamples=50, reader=reader),
    )
    first = app.model
    assert sorted(reads) == ["r0", "r1", "r2"] and sorted(facts) == ["r0", "r1", "r2"] and len(tasks) == 1
    reads.clear(), facts.clear()
    assert "0.7500" in (app.page("/task-1-37.html") or b"").decode()
    assert app.model is first and reads == [] and facts == []  # nothing changed: nothing read

    write_result(
        runs[1] / RESULTS_DIRNAME, result(runs[1], 37, 0.125, harness="h1", model="claude-opus-4-7", rep=1)
    )
    _touch_later(runs[1] / RESULTS_DIRNAME / "37.json")
    page = (app.page("/task-1-37.html") or b"").decode()
    assert app.model is not first and "0.1250" in page
    assert reads == ["r1"] and facts == ["r1"] and len(tasks) == 1
    for run in (0, 2):  # the unchanged runs' results are the ones read at start-up
        assert app.model.cell(run, 37).result is first.cell(run, 37).result
    assert app.model.cell(1, 37).score == 0.125 and app.model.stamp == results_stamp(runs)


def test_a_changed_run_json_is_read_again(tmp_path, monkeypatch) -> None:
    """run.json is part of a folder's stamp: new usage (the agent's time) shows after a reload, and only that
    folder is read again."""
    runs = [write_run(tmp_path, f"r{k}", SCORES, harness=f"h{k}", meta={}) for k in range(2)]
    reads, facts, _ = _count_reads(monkeypatch)
    reader = RunReader()
    model = build_model(runs, resamples=50, reader=reader)
    assert model.cell(0, 37).agent_s is None
    reads.clear(), facts.clear()
    usage = {"37": {"agent_started": "2026-01-01T00:00:00Z", "agent_finished": "2026-01-01T00:01:30Z"}}
    meta = runs[0] / "run.json"
    meta.write_text(json.dumps({"harness": "h0", "model": "claude-opus-4-7", "rep": 1, "usage": usage}))
    _touch_later(meta)
    again = build_model(runs, resamples=50, reader=reader)
    assert again.cell(0, 37).agent_s == 90.0 and reads == ["r0"] and facts == ["r0"]


def test_a_run_read_with_another_key_is_read_again(tmp_path, monkeypatch) -> None:
    """Signatures are checked at read time: a reader asked for another key does not reuse a read made with the
    first (a kept result's `signature_status` would be the other key's)."""
    from agenticvbench.results.signing import ResultKey

    runs = [write_run(tmp_path, "r0", SCORES)]
    reads, _, _ = _count_reads(monkeypatch)
    reader = RunReader()
    one, two = ResultKey("a", "0" * 16, b"a" * 32), ResultKey("b", "1" * 16, b"b" * 32)
    reader.read(runs, one)
    reader.read(runs, one)
    reader.read(runs, two)
    assert reads == ["r0", "r0"]


def test_logs_stamp_is_bounded_by_the_run_folder(tmp_path) -> None:
    """The stamp a task page is kept under reads a result's recorded log paths, which are the submitter's: a path
    leaving the run folder is not statted (None, no crash), a symlinked log is its own stat (never its target's),
    and a task folder that cannot be opened stamps as no log."""
    run = tmp_path / "run"
    (run / "7" / "agent").mkdir(parents=True)
    (run / "7" / "agent" / "codex.txt").write_text("{}\n")
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("{}\n")
    (run / "7" / "session.jsonl").symlink_to(target)
    stamp = dict(reading.logs_stamp(run / "7", ["../../etc/passwd", "/etc/passwd", "7/gone.jsonl"]))
    assert (
        stamp["../../etc/passwd"] is None and stamp["/etc/passwd"] is None and stamp["7/gone.jsonl"] is None
    )
    assert stamp["7/agent/codex.txt"][0] == 3
    link = os.lstat(run / "7" / "session.jsonl")
    assert stamp["7/session.jsonl"] == (link.st_size, link.st_mtime_ns, link.st_ino)
    before = stamp["7/session.jsonl"]
    target.write_text("{}\n{}\n")  # the target changing is not the log changing: the audit never follows it
    assert dict(reading.logs_stamp(run / "7", []))["7/session.jsonl"] == before
    assert reading.logs_stamp(tmp_path / "missing" / "7", ["7/a.jsonl"]) == ()
