"""Containment: a verifier only reads regular files that resolve inside their own task folder."""

from __future__ import annotations

import json
import os
import time

import pytest
from adversarial import by_id

from agenticvbench.demo.repair import source_path
from agenticvbench.errors import SubmissionError
from agenticvbench.scoring.engine import verify_run


def test_symlink_to_verifier_only_source_is_malformed(hostile_run, score_run, demo):
    """A repair fixed.mp4 symlinked to the dataset's verifier-only source scored 0.99999 with no warning."""
    run = hostile_run()
    link = run.symlink(65, "fixed.mp4", source_path(demo.mirror, 65))
    r = by_id(score_run(run.root, [65]))[65]
    assert r.status == "malformed" and r.headline_score == 0.0
    assert str(link) in r.reason and "outside the task folder" in r.reason


@pytest.mark.parametrize("how", ["hardlink", "copy"])
def test_copy_of_verifier_only_source_is_malformed(hostile_run, score_run, demo, how):
    """A hard link or byte copy of the verifier-only source stays inside the run, so only its SHA-256 betrays it;
    it must not score 0.99999."""
    run = hostile_run()
    getattr(run, how)(66, "fixed.mp4", source_path(demo.mirror, 66))
    r = by_id(score_run(run.root, [66]))[66]
    assert r.status == "malformed"
    assert "identical to the verifier-only reference demo2_source.mp4" in r.reason


def test_report_symlinked_to_proc_environ_leaks_nothing(hostile_run, score_run, monkeypatch):
    """report.md -> /proc/self/environ used to copy the scorer's environment variables into the result JSON."""
    monkeypatch.setenv("AVB_TEST_SECRET_MARKER", "do-not-leak-7f3a")
    run = hostile_run()
    run.symlink(65, "report.md", "/proc/self/environ")
    r = by_id(score_run(run.root, [65]))[65]
    assert r.status == "malformed" and "/proc/self/environ" in r.reason
    assert "do-not-leak-7f3a" not in (run.results() / "65.json").read_text()


def test_task_folder_symlinked_elsewhere_is_malformed(hostile_run, score_run, tmp_path, demo):
    """A task folder that is a symlink would make the scorer read files outside the run."""
    run = hostile_run()
    elsewhere = tmp_path / "elsewhere"
    (run.root / "38").rename(elsewhere)
    (run.root / "38").symlink_to(elsewhere)
    r = by_id(score_run(run.root, [38]))[38]
    assert r.status == "malformed" and "is a symlink" in r.reason and str(elsewhere) in r.reason


def test_output_folder_symlinked_elsewhere_is_malformed(hostile_run, score_run, tmp_path):
    """`37/output` as a symlink to another folder is followed no more than the task folder itself."""
    run = hostile_run()
    elsewhere = tmp_path / "elsewhere-out"
    (run.root / "37" / "output").rename(elsewhere)
    (run.root / "37" / "output").symlink_to(elsewhere)
    r = by_id(score_run(run.root, [37]))[37]
    assert r.status == "malformed" and "output" in r.reason and "is a symlink" in r.reason


def test_fifo_is_malformed_and_never_hangs(hostile_run, score_run):
    """A FIFO in place of solution.json blocked a plain open() forever (and was called 'not found')."""
    run = hostile_run()
    fifo = run.fifo(38, "solution.json")
    t0 = time.monotonic()
    r = by_id(score_run(run.root, [38]))[38]
    assert time.monotonic() - t0 < 30
    assert r.status == "malformed" and str(fifo) in r.reason and "FIFO" in r.reason


def test_directory_in_place_of_a_file_is_malformed(hostile_run, score_run):
    """A folder named fixed.mp4 used to be reported as 'not found'; it is present and wrong."""
    run = hostile_run()
    d = run.directory(67, "fixed.mp4")
    r = by_id(score_run(run.root, [67]))[67]
    assert r.status == "malformed" and str(d) in r.reason and "directory" in r.reason


def test_socket_in_place_of_a_file_is_malformed(tmp_path_factory, demo, score_run):
    """A UNIX socket is a non-regular file like a FIFO: named as such, never opened."""
    import socket

    from adversarial import AdversarialRun

    root = tmp_path_factory.mktemp("s")  # short path: socket addresses are limited to ~107 bytes
    run = AdversarialRun.from_run(demo.runs["perfect"], root / "r")
    p = run.folder(65) / "report.md"
    p.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(p))
        r = by_id(score_run(run.root, [65]))[65]
    finally:
        sock.close()
    assert r.status == "malformed" and "socket" in r.reason


def test_results_folder_symlinked_out_of_the_run_is_refused(hostile_run, demo, tmp_path):
    """RUN/avb-results -> elsewhere would let a submission choose where the scorer writes; --out is the escape."""
    run = hostile_run()
    target = tmp_path / "victim"
    target.mkdir()
    run.results().symlink_to(target)
    with pytest.raises(SubmissionError, match="symlink"):
        verify_run(run.root, dataset=demo.mirror, task_ids=[38], jobs=1)
    assert list(target.iterdir()) == []
    out = tmp_path / "out"
    s = verify_run(run.root, dataset=demo.mirror, task_ids=[38], jobs=1, out=out)
    assert s.results[0].status == "scored" and (out / "38.json").is_file()


def test_results_folder_symlink_exits_3_on_the_cli(hostile_run, demo, tmp_path, capsys):
    """The CLI maps the refusal to exit 3 (bad input) with one line, not a traceback."""
    from agenticvbench.cli.main import main

    run = hostile_run()
    run.results().symlink_to(tmp_path)
    code = main(["verify", str(run.root), "--dataset", str(demo.mirror), "--tasks", "38", "--jobs", "1"])
    err = capsys.readouterr().err
    assert code == 3 and "avb-results" in err and "Traceback" not in err


def test_dangling_symlink_is_named(hostile_run, score_run):
    """A symlink to nothing is not 'not found': it names where it points."""
    run = hostile_run()
    run.symlink(83, "solution.json", "nowhere.json")
    r = by_id(score_run(run.root, [83]))[83]
    assert r.status == "malformed" and "broken symlink" in r.reason


def test_symlink_inside_the_task_folder_is_allowed(hostile_run, score_run):
    """Containment is about where a file resolves: a link to a sibling file in the same task folder is fine."""
    run = hostile_run()
    folder = run.folder(38)
    os.rename(folder / "solution.json", folder / "real.json")
    run.symlink(38, "solution.json", "real.json")
    r = by_id(score_run(run.root, [38]))[38]
    assert r.status == "scored" and r.headline_score == 1.0
    assert json.loads((run.results() / "38.json").read_text())["status"] == "scored"
