"""Result signatures: only results this scorer wrote (HMAC under its result key) are reused; reports say which
results carry a signature they can check."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from adversarial import by_id

from agenticvbench.cli.main import main
from agenticvbench.errors import ConfigError
from agenticvbench.report.leaderboard import leaderboard_from_runs
from agenticvbench.report.summary import build_report, load_available
from agenticvbench.results.folder import RECORD_NAME
from agenticvbench.results.model import canonical_sha256, read_result_checked, scan_results
from agenticvbench.results.signing import KEY_ENV, KeyRef, key_path, load_key, worker_key
from agenticvbench.scoring.engine import Job, score_job


def _planted(genuine: dict, **changes) -> dict:
    """What an agent can write: a genuine result's fields (fingerprint included), edited, with the content hash
    recomputed and no signature (it does not hold the key)."""
    data = {k: v for k, v in genuine.items() if k != "signature"}
    data.update(changes)
    data["result_sha256"] = canonical_sha256(data)
    return data


@pytest.fixture
def genuine(hostile_run, score_run, tmp_path):
    """A `partial` run and the genuine result of its assembly task 84, scored into a folder outside the run."""
    run = hostile_run("partial")
    out = tmp_path / "elsewhere"
    r = by_id(score_run(run.root, [84], out=out))[84]
    assert r.headline_score < 1.0
    return run, json.loads((out / "84.json").read_text())


def test_planted_perfect_result_with_genuine_fingerprint_is_rescored(genuine, score_run):
    """The attack this guards against: an agent writes RUN/avb-results/84.json with a perfect score, the genuine
    fingerprint and a recomputed hash before the first scoring. It used to be reused ("1 reused"); unsigned, it is
    rescored, the warning and a summary note name the file, and the folder is reported as holding files before
    its first scoring."""
    run, data = genuine
    folder = run.results()
    folder.mkdir()
    planted = folder / "84.json"
    planted.write_text(
        json.dumps(_planted(data, final_score=1.0, adjusted_final_score=1.0, headline_score=1.0))
    )
    assert read_result_checked(planted)[1] == "", "the planted file is a valid (schema + hash) result"
    summary = score_run(run.root, [84])
    r = by_id(summary)[84]
    assert not r.resumed and summary.n_resumed == 0
    assert r.headline_score == data["headline_score"]
    assert any(str(planted) in w and "carries no signature" in w for w in r.warnings), r.warnings
    assert any(str(planted) in n and "rescored, not reused" in n for n in summary.notes), summary.notes
    assert any(
        f"{folder}: held 1 file(s) before avb verify first scored" in n and "84.json" in n
        for n in summary.notes
    ), summary.notes
    again = score_run(run.root, [84])
    assert again.n_resumed == 1, "the scorer's own (signed) result is reused"
    assert not any("held" in n for n in again.notes), "the folder is reported once, at its first scoring"


def test_forged_signature_and_another_key_are_rescored(genuine, score_run, tmp_path):
    """A signature block the agent made up (right key id, wrong MAC) and a result signed with another key are
    both rescored with a note; the result the scorer writes then verifies and is reused."""
    run, _ = genuine
    score_run(run.root, [84])
    path = run.results() / "84.json"
    data = json.loads(path.read_text())
    forged = {
        **data,
        "headline_score": 1.0,
        "final_score": 1.0,
        "adjusted_final_score": 1.0,
        "signature": {**data["signature"], "mac": "0" * 64},
    }
    forged["result_sha256"] = canonical_sha256(forged)
    path.write_text(json.dumps(forged))
    r = by_id(score_run(run.root, [84]))[84]
    assert not r.resumed and r.headline_score == data["headline_score"]
    assert any("does not match its content" in w for w in r.warnings), r.warnings
    other = tmp_path / "other-key"
    r2 = by_id(score_run(run.root, [84], key_file=other))[84]
    assert not r2.resumed and any("another key" in w for w in r2.warnings), r2.warnings
    assert by_id(score_run(run.root, [84], key_file=other))[84].resumed


def test_key_file_is_created_0600_outside_runs_and_refused_inside(
    hostile_run, score_run, tmp_path, monkeypatch
):
    """The key is created on first use with mode 0600 where `$AVB_RESULT_KEY_FILE` says, reused after that, and
    refused when it lies inside a run folder (the agent could have read or planted it)."""
    monkeypatch.setenv(KEY_ENV, str(tmp_path / "keys" / "k"))
    key, notes = load_key()
    assert key is not None and Path(key.path) == (tmp_path / "keys" / "k").resolve()
    assert stat.S_IMODE(os.stat(key.path).st_mode) == 0o600 and any("created" in n for n in notes)
    again, notes2 = load_key()
    assert again is not None and again.key_id == key.key_id and not notes2
    assert key_path("x/y") == Path("x/y")
    run = hostile_run("partial")
    with pytest.raises(ConfigError, match="inside the run folder"):
        score_run(run.root, [84], key_file=run.root / "planted-key")
    short = tmp_path / "short"
    short.write_text("too short")
    with pytest.raises(ConfigError, match="at least 32"):
        load_key(short)


def test_worker_with_another_key_writes_unsigned_with_a_warning(genuine, demo, tmp_path):
    """On a cluster every worker must hold the client's key: a worker whose key file differs (or is absent)
    writes its result unsigned and says why, instead of signing with a key nobody else can check."""
    run, _ = genuine
    key, _notes = load_key(tmp_path / "worker-key")
    assert key is not None
    assert worker_key(KeyRef(key.path, "0" * 16))[0] is None
    assert "cannot be read" in worker_key(KeyRef(str(tmp_path / "absent"), key.key_id))[1]
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.runs.submission import open_run
    from agenticvbench.verifiers.base import VerifyContext

    task = load_tasks(task_ids=[84], dataset=demo.mirror)[0]
    job = Job(
        task=task,
        submission=open_run(run.root).submission(84, 1 << 30),
        out_dir=tmp_path / "out",
        run_info={"path": str(run.root)},
        ctx=VerifyContext(cache_dir=tmp_path),
        dataset=task.source.provenance(),
        key=KeyRef(key.path, "0" * 16),
    )
    r = score_job(job)
    assert r.status == "scored" and any(
        w.startswith("result not signed") and "id 0000" in w for w in r.warnings
    )
    assert "signature" not in json.loads((tmp_path / "out" / "84.json").read_text())


def test_old_unsigned_results_stay_readable_and_reports_count_signatures(genuine, score_run, tmp_path):
    """Results written before signatures existed (no `signature` field) are valid results: reports read and
    count them, marked unsigned; results the scorer signed count as signed with the reader's key."""
    run, data = genuine
    score_run(run.root, [83, 84])
    folder = run.results()
    old = {k: v for k, v in json.loads((folder / "83.json").read_text()).items() if k != "signature"}
    old["result_sha256"] = canonical_sha256(old)
    (folder / "83.json").write_text(json.dumps(old))
    key, _ = load_key(create=False)
    scan = scan_results(run.root, key)
    assert not scan.invalid and {r.task_id: r.signature_status for r in scan.results} == {
        83: "unsigned",
        84: "valid",
    }
    results, _ = load_available(run.root, key)
    report = build_report(results, resamples=0, key=key)
    assert report.signatures["total"] == {"results": 2, "valid": 1, "unsigned": 1}
    board = leaderboard_from_runs([run.root], key=key, resamples=0)
    assert board.frame().iloc[0][["signed", "results"]].tolist() == [1, 2]
    assert "| 1/2 |" in board.to_markdown() and key.key_id in board.caption


def test_report_cli_names_the_folder_that_held_files(genuine, score_run, capsys):
    """`avb report` says, from the folder's signed record, that the results folder held files before its first
    scoring, and which results carry a signature it can check."""
    run, data = genuine
    folder = run.results()
    folder.mkdir()
    (folder / "notes.txt").write_text("agent was here")
    score_run(run.root, [84])
    assert (folder / RECORD_NAME).is_file()
    assert main(["report", str(run.root), "--resamples", "0"]) == 0
    out = capsys.readouterr().out
    assert "held 1 file(s) before avb verify first scored" in out and "notes.txt" in out
    assert "Signatures, checked with the result key" in out and "1 signed with this key" in out


def test_record_name_taken_by_a_folder_does_not_stop_scoring(genuine, score_run):
    """The agent can make `.avb-folder` a directory so the record cannot be written: scoring must go on (the
    results are still signed and reused) and the note says the record could not be written."""
    run, _ = genuine
    folder = run.results()
    (folder / RECORD_NAME).mkdir(parents=True)
    s = score_run(run.root, [84])
    assert by_id(s)[84].status == "scored"
    assert any(RECORD_NAME in n and "could not be written" in n for n in s.notes), s.notes
    assert score_run(run.root, [84]).n_resumed == 1


@pytest.mark.slow
def test_cli_key_file_options(genuine, demo, tmp_path, capsys):
    """`avb verify --key-file` inside the run folder is a usage error (exit 2, one line naming it); outside, it
    signs, and `avb leaderboard --key-file` with the same key counts the result as signed (another key: 0)."""
    run, _ = genuine
    base = ["verify", str(run.root), "--dataset", str(demo.mirror), "--tasks", "84", "--jobs", "1", "-q"]
    assert main([*base, "--key-file", str(run.root / "k")]) == 2
    assert "inside the run folder" in capsys.readouterr().err
    key = tmp_path / "cli-key"
    assert main([*base, "--key-file", str(key)]) == 0 and key.is_file()
    capsys.readouterr()
    assert (
        main(["leaderboard", str(run.root), "--resamples", "0", "--format", "csv", "--key-file", str(key)])
        == 0
    )
    assert capsys.readouterr().out.splitlines()[1].endswith(",1,1")
    other = tmp_path / "other"
    load_key(other)
    assert (
        main(["leaderboard", str(run.root), "--resamples", "0", "--format", "csv", "--key-file", str(other)])
        == 0
    )
    assert capsys.readouterr().out.splitlines()[1].endswith(",0,1")


def test_signed_record_copied_from_another_folder_is_refused(genuine, hostile_run, score_run, capsys):
    """A genuinely signed `.avb-folder` of a folder that was empty at its first scoring, copied into a results
    folder that holds a planted result, used to hide the planted file: the record was not bound to its folder.
    It names its folder (real path and inode) in the signed payload, so the copy is refused with a note, a new
    record lists the planted file, and `avb report` says so."""
    run, data = genuine
    score_run(run.root, [84])  # empty at its first scoring: its record lists nothing
    honest_record = run.results() / RECORD_NAME
    assert json.loads(honest_record.read_text())["preexisting_count"] == 0
    other = hostile_run("perfect")
    folder = other.results()
    folder.mkdir()
    (folder / "84.json").write_text(json.dumps(_planted(data, final_score=1.0, headline_score=1.0)))
    (folder / RECORD_NAME).write_bytes(honest_record.read_bytes())
    s = score_run(other.root, [84])
    assert any("written for another folder" in n and "refused" in n for n in s.notes), s.notes
    assert any("held 1 file(s) before avb verify first scored" in n and "84.json" in n for n in s.notes)
    record = json.loads((folder / RECORD_NAME).read_text())
    assert record["folder"] == os.path.realpath(folder) and record["preexisting"] == ["84.json"]
    assert main(["report", str(other.root), "--resamples", "0"]) == 0
    assert "84.json" in capsys.readouterr().out
    # the copy again, now after the folder has its own record: reports refuse it and say so
    (folder / RECORD_NAME).write_bytes(honest_record.read_bytes())
    assert main(["report", str(other.root), "--resamples", "0"]) == 0
    out = capsys.readouterr().out
    assert "written for another folder" in out and "held 1 file(s)" not in out
    assert "is refused, so nothing vouches for the files that were there before it" in out
    assert f"to clear this, score the run afresh: remove {folder} and run `avb verify`" in out
    shutil.rmtree(folder)  # the advice, followed: no note is left
    score_run(other.root, [84])
    assert main(["report", str(other.root), "--resamples", "0"]) == 0
    out = capsys.readouterr().out
    assert "another folder" not in out and "before avb verify first scored" not in out
