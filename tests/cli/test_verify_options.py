"""`avb verify`: guard rails, -v/-q, --dry-run, run identity and --judge-required, scored for real (sequencing)."""

from __future__ import annotations

import json

import pytest

from agenticvbench.analysis.run_summary import RunSummary
from agenticvbench.cli.main import EXIT_INPUT, main
from agenticvbench.results.model import read_result


def _verify(*args: str) -> int:
    return main(["verify", *args, "--jobs", "1", "--family", "sequencing"])


def test_empty_folder_is_exit_3_and_nothing_is_written(tmp_path, seq_mirror, capsys):
    """Regression: an empty folder was scored as all-missing, exit 0, and got an avb-results folder."""
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _verify(str(empty), "--dataset", str(seq_mirror)) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "no task folders" in err and len(err.strip().splitlines()) == 1
    assert list(empty.iterdir()) == []


def test_parent_of_runs_suggests_the_glob(seq_mirror, seq_run, capsys):
    """Passing `runs/` instead of `runs/*` is refused with the hint."""
    run = seq_run("a", {37: ["1", "2", "3"]})
    assert _verify(str(run.parent), "--dataset", str(seq_mirror)) == EXIT_INPUT
    assert f"did you mean {run.parent}/*" in capsys.readouterr().err
    assert not (run.parent / "avb-results").exists()


@pytest.mark.parametrize("kind", ["mirror", "task", "results"])
def test_dataset_mirror_task_folder_and_results_folder_are_refused(kind, seq_mirror, seq_run, capsys):
    """Nothing is ever written into a dataset mirror, a task folder or a results folder."""
    run = seq_run("a", {37: ["1", "2", "3"]})
    assert _verify(str(run), "--dataset", str(seq_mirror)) == 0
    target = {"mirror": seq_mirror, "task": run / "37", "results": run / "avb-results"}[kind]
    before = sorted(p.name for p in target.rglob("*"))
    assert _verify(str(target), "--dataset", str(seq_mirror)) == EXIT_INPUT
    err = capsys.readouterr().err
    assert {"mirror": "dataset mirror", "task": "one task's folder", "results": "results folder"}[kind] in err
    assert sorted(p.name for p in target.rglob("*")) == before


@pytest.mark.privileges
def test_unwritable_out_fails_before_scoring(seq_mirror, seq_run, tmp_path, capsys):
    """Regression: `--out /proc/nope` scored everything, then failed every write."""
    run = seq_run("a", {37: ["1", "2", "3"]})
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert _verify(str(run), "--dataset", str(seq_mirror), "--out", str(blocker / "sub")) == EXIT_INPUT
    assert "--out" in capsys.readouterr().err
    assert not (run / "avb-results").exists()
    assert _verify(str(run), "--dataset", str(seq_mirror), "--out", str(seq_mirror / "res")) == EXIT_INPUT
    assert "dataset mirror" in capsys.readouterr().err and not (seq_mirror / "res").exists()


def test_verbose_is_one_line_per_task_and_quiet_only_the_summary(seq_mirror, seq_run, capsys):
    """-v names the misplaced clips per task; -q drops the problem list."""
    run = seq_run("a", {37: ["2", "1", "3"], 38: ["3", "1", "2"]})
    assert _verify(str(run), "--dataset", str(seq_mirror), "-v") == 0
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if x.startswith("[")]
    assert len(lines) == 3
    assert lines[0].startswith("[scored] sequencing 37") and "misplaced: 2 at 1 (belongs at 2)" in lines[0]
    assert lines[2].startswith("[missing] sequencing 39")
    assert _verify(str(run), "--dataset", str(seq_mirror), "-q") == 0
    quiet = capsys.readouterr()
    assert "not scored" not in quiet.out and "sequencing" in quiet.out and "[" not in quiet.out


def test_dry_run_lists_and_scores_nothing(seq_mirror, seq_run, capsys):
    """--dry-run says what would be scored and what is missing, in the --tasks grammar, and writes nothing."""
    run = seq_run("a", {37: ["1", "2", "3"], 38: ["1", "2", "3"]})
    assert _verify(str(run), "--dataset", str(seq_mirror), "--dry-run") == 0
    out = capsys.readouterr().out
    assert "would score 2 task(s), 1 missing" in out and "score:   37-38" in out and "missing: 39" in out
    assert not (run / "avb-results").exists()


def test_identity_options_run_json_and_folder_name(seq_mirror, seq_run, capsys):
    """Options beat run.json, run.json beats the folder name; unknown keys and duplicates are warned about."""
    named = seq_run(
        "named", {37: ["1", "2", "3"]}, meta={"harness": "h", "model": "m", "rep": 1, "modle": "x"}
    )
    bare = seq_run("bare-folder", {37: ["1", "2", "3"]})
    twin = seq_run("twin", {37: ["1", "2", "3"]}, meta={"harness": "h", "model": "m", "rep": 1})
    assert _verify(str(named), str(bare), str(twin), "--dataset", str(seq_mirror), "--tasks", "37") == 0
    err = capsys.readouterr().err
    assert "unknown key(s) 'modle'" in err and "2 different run folders claim harness 'h', model 'm'" in err
    r_named = read_result(named / "avb-results" / "37.json")
    r_bare = read_result(bare / "avb-results" / "37.json")
    assert r_named and r_bare
    assert (r_named.run["harness"], r_named.run["model"], r_named.run["rep"]) == ("h", "m", 1)
    assert (r_bare.run["harness"], r_bare.run["model"]) == ("unknown", "bare-folder")
    assert (
        _verify(str(named), "--dataset", str(seq_mirror), "--tasks", "37", "--model", "other", "--rep", "7")
        == 0
    )
    again = read_result(named / "avb-results" / "37.json")
    assert again and (again.run["model"], again.run["rep"], again.run["identity_source"]["model"]) == (
        "other",
        7,
        "option",
    )  # --rep 7 is an int, as in run.json


def test_task_grammar_ranges_and_limit(seq_mirror, seq_run, capsys):
    """`--tasks 37-38` and `--limit 1` select the same way on verify; a single absent id is an input error."""
    run = seq_run("a", {37: ["1", "2", "3"], 38: ["3", "1", "2"], 39: ["2", "3", "1"]})
    assert _verify(str(run), "--dataset", str(seq_mirror), "--tasks", "37-38,90-99", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_results"] == 2
    assert _verify(str(run), "--dataset", str(seq_mirror), "--tasks", "38-39", "--limit", "1", "--json") == 0
    assert json.loads(capsys.readouterr().out)["n_results"] == 1
    assert _verify(str(run), "--dataset", str(seq_mirror), "--tasks", "37,90") == EXIT_INPUT
    assert "task 90" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["verify", str(run), "--tasks", "40-37"])
    assert exc.value.code == 2 and "bad task range '40-37'" in capsys.readouterr().err


def test_judge_required_exits_1_on_unscored_items(seq_mirror, seq_run, monkeypatch, capsys):
    """--judge-required turns unscored llm items into exit 1, naming the top reasons."""
    import agenticvbench.scoring.engine as engine

    run = seq_run("a", {37: ["1", "2", "3"]})

    def fake_verify_run(*args, **kwargs):
        s = RunSummary(runs=[str(run)], unscored_items=3)
        s.unscored_reasons = {"judge call failed: cannot connect": 2, "replay miss: no cached verdict": 1}
        return s

    monkeypatch.setattr(engine, "verify_run", fake_verify_run)
    assert _verify(str(run), "--dataset", str(seq_mirror)) == 0
    out = capsys.readouterr().out
    assert "3 judge item(s) unscored; top reasons:" in out and "2x judge call failed: cannot connect" in out
    assert _verify(str(run), "--dataset", str(seq_mirror), "--judge-required") == 1
    assert "--judge-required: 3 llm item(s) unscored" in capsys.readouterr().err


def test_run_directory_named_by_a_number_is_a_run(seq_mirror, seq_run, capsys):
    """Reps laid out as runs/1, runs/2 are run directories (they hold task folders), not task folders."""
    run = seq_run("1", {37: ["1", "2", "3"]})
    (run / "report.md").write_text("the harness's own notes")
    assert _verify(str(run), "--dataset", str(seq_mirror), "--tasks", "37") == 0
    assert (run / "avb-results" / "37.json").is_file()


def test_symlinked_results_folder_gets_no_folder_and_no_probe_file(seq_mirror, seq_run, tmp_path, capsys):
    """Regression: the CLI pre-flight created the target of a symlinked RUN/avb-results (folders and a probe
    file) before the engine refused the link; the run is now planned once, by the engine, before any write."""
    run = seq_run("a", {37: ["1", "2", "3"]})
    victim = tmp_path / "victim"
    victim.mkdir()
    before = victim.stat().st_mtime_ns
    (run / "avb-results").symlink_to(victim / "deep" / "results")
    assert _verify(str(run), "--dataset", str(seq_mirror)) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "is a symlink" in err and len(err.strip().splitlines()) == 1
    assert list(victim.iterdir()) == [] and victim.stat().st_mtime_ns == before


def test_unicode_digit_folder_is_not_a_task_folder(seq_mirror, seq_run, tmp_path, capsys):
    """Regression: the pre-flight counted any Unicode digit (`٣٧`) as a task folder while the run reader accepts
    ASCII digits only, so this run passed the check and then scored every task as missing, exit 0."""
    run = seq_run("arabic", {"\u0663\u0667": ["1", "2", "3"]})
    assert [p.name for p in run.iterdir()] == ["\u0663\u0667"]
    assert _verify(str(run), "--dataset", str(seq_mirror)) == EXIT_INPUT
    err = capsys.readouterr().err
    assert "no task folders" in err and "ASCII digits" in err
    assert not (run / "avb-results").exists()


def test_one_refused_run_does_not_stop_the_others(seq_mirror, seq_run, capsys):
    """Regression: `avb verify good bad` exited 3 and scored nothing when bad's results folder was a file; the
    good run is scored, the bad one named on stderr, and the exit code still says a run was refused."""
    good = seq_run("good", {37: ["1", "2", "3"]})
    bad = seq_run("bad", {37: ["1", "2", "3"]})
    (bad / "avb-results").write_text("not a folder")
    assert _verify(str(good), str(bad), "--dataset", str(seq_mirror), "--json") == EXIT_INPUT
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert (
        data["runs"] == [str(good)]
        and len(data["refused"]) == 1
        and str(bad / "avb-results") in data["refused"][0]
    )
    assert "refused" in captured.err and "is not a folder" in captured.err
    ok = read_result(good / "avb-results" / "37.json")
    assert ok is not None and ok.status == "scored" and ok.headline_score == 1.0
