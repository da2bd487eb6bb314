"""What a new user cannot see went wrong: answers that `--with-answers` did not show, task folders of another dataset
skipped without a word, and a task with no folder rescored on every rerun ("27 result(s), 26 reused")."""

from __future__ import annotations

import json
from pathlib import Path

from agenticvbench.cli.main import main

ORDERS = {37: ["1", "2", "3"], 38: ["3", "1", "2"], 39: ["2", "3", "1"]}


def test_with_answers_prints_exactly_what_the_plain_view_hides(seq_mirror, capsys):
    """`tasks show ID` names the hidden keys; `--with-answers` prints those keys' values under `answers` (it used
    to drop the note and print no answer at the top level)."""
    assert main(["tasks", "show", "38", "--dataset", str(seq_mirror)]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["hidden"] == ["correct_order"] and "answers" not in plain
    assert main(["tasks", "show", "38", "--dataset", str(seq_mirror), "--with-answers"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["answers"] == {"correct_order": ORDERS[38]}
    assert "hidden" not in shown and "answers shown" in shown["note"]
    assert shown["rubric"] == {**plain["rubric"], "correct_order": ORDERS[38]}  # the full rubric, as before


def test_repair_answers_include_the_cell(seq_mirror, capsys):
    """For repair the cell (which fault, where) is the answer."""
    assert main(["tasks", "show", "65", "--dataset", str(seq_mirror), "--with-answers"]) == 0
    assert json.loads(capsys.readouterr().out)["answers"] == {"cell": "v1/s1"}


def test_folder_not_in_the_dataset_is_named_with_the_dataset(seq_mirror, seq_run, tmp_path, capsys):
    """A task folder whose id the dataset does not have (`5/`, `083/`) gets one warning naming the dataset, not
    silence; a folder outside a --tasks selection but in the dataset is not warned about."""
    run = seq_run("agent", {37: ORDERS[37], 5: ORDERS[37], 83: ORDERS[37]})
    (run / "83").rename(run / "083")
    cache = str(tmp_path / "cache")
    assert main(["verify", str(run), "--dataset", str(seq_mirror), "--cache-dir", cache, "--jobs", "1"]) in (
        0,
        1,
    )
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "not in dataset" in ln]
    assert len(lines) == 1, err
    assert f"2 task folder(s) not in dataset {seq_mirror} (revision local): 5/, 083/" in lines[0]
    assert "wrong --dataset or --revision?" in lines[0]
    assert main(
        ["verify", str(run), "--dataset", str(seq_mirror), "--cache-dir", cache, "--tasks", "38"]
    ) in (0, 1)
    err = capsys.readouterr().err
    assert "5/, 083/" in err and "37/" not in err


def test_missing_task_result_is_reused_on_rerun(seq_mirror, seq_run, tmp_path, capsys):
    """A task with no folder gets a `missing` result; a rerun reuses it like any other (same file, same bytes),
    so the summary says every result was reused."""
    run = seq_run("agent", {37: ORDERS[37]})
    cache = str(tmp_path / "cache")
    args = ["verify", str(run), "--dataset", str(seq_mirror), "--cache-dir", cache, "--jobs", "1"]
    main(args)
    first = capsys.readouterr().out
    assert "4 result(s)" in first
    missing = run / "avb-results" / "38.json"
    before = (missing.stat().st_mtime_ns, missing.read_bytes())
    assert json.loads(before[1])["status"] == "missing"
    main(args)
    out = capsys.readouterr().out
    assert "4 result(s), 4 reused from a previous run" in out, out
    assert (missing.stat().st_mtime_ns, missing.read_bytes()) == before
    main([*args, "--force"])
    capsys.readouterr()
    assert missing.stat().st_mtime_ns != before[0]  # --force still rewrites it


def test_missing_result_from_another_dataset_revision_is_not_reused(seq_mirror, seq_run, tmp_path, capsys):
    """Reuse of a `missing` result needs the same dataset identity and verifier version as a rescore would
    record: a result naming another dataset is rewritten."""
    run = seq_run("agent", {37: ORDERS[37]})
    cache = str(tmp_path / "cache")
    args = ["verify", str(run), "--dataset", str(seq_mirror), "--cache-dir", cache, "--jobs", "1"]
    main(args)
    path = Path(run / "avb-results" / "38.json")
    doc = json.loads(path.read_text())
    assert doc["provenance"]["dataset"]["dataset"] == str(seq_mirror)
    other = tmp_path / "other"
    import shutil

    shutil.copytree(seq_mirror, other)
    capsys.readouterr()
    main(["verify", str(run), "--dataset", str(other), "--cache-dir", cache, "--jobs", "1"])
    assert json.loads(path.read_text())["provenance"]["dataset"]["dataset"] == str(other)
