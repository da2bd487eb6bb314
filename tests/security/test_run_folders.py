"""Run folder rules and run.json: odd names, duplicate folders and hostile metadata never crash or pick silently."""

from __future__ import annotations

from adversarial import by_id, deep_json

from agenticvbench.runs.submission import RunMeta, open_run, read_run_json


def test_non_ascii_digit_folders_are_ignored_in_one_note(hostile_run, score_run):
    """'²' crashed verify (str.isdigit() accepts it, int() does not) and '٨٣' was taken as task 83."""
    run = hostile_run()
    run.move_task(83, "٨٣")
    (run.root / "²").mkdir()
    (run.root / "notes").mkdir()
    s = score_run(run.root, [83, 84])
    res = by_id(s)
    assert res[83].status == "missing" and res[84].status == "scored"
    notes = [n for n in s.notes if "not plain ASCII digits" in n]
    assert (
        len(notes) == 1 and "'\\u0668\\u0663'" in notes[0] and "'\\xb2'" in notes[0] and "notes" in notes[0]
    )


def test_two_folders_for_one_task_are_malformed(hostile_run, score_run):
    """`38` and `038` side by side: one of them won silently; now the task is malformed naming both."""
    run = hostile_run()
    (run.root / "038").mkdir()
    (run.root / "038" / "solution.json").write_text("{}")
    r = by_id(score_run(run.root, [38]))[38]
    assert r.status == "malformed"
    assert str(run.root / "038") in r.reason and str(run.root / "38") in r.reason


def test_manifest_in_task_folder_and_output_is_malformed(hostile_run, score_run):
    """A manifest at both 37/ and 37/output/: which one is scored must not depend on a hidden rule."""
    run = hostile_run()
    (run.root / "37" / "solution.json").write_text((run.root / "37" / "output" / "solution.json").read_text())
    r = by_id(score_run(run.root, [37]))[37]
    assert r.status == "malformed" and "present twice" in r.reason
    assert str(run.root / "37" / "solution.json") in r.reason and "output/solution.json" in r.reason


def test_task_name_that_is_a_file_is_malformed(hostile_run, score_run):
    """A regular file named `38` is not a task folder; it is reported as such, not as a missing folder."""
    run = hostile_run()
    run.remove(run.root / "38")
    (run.root / "38").write_text("x")
    r = by_id(score_run(run.root, [38]))[38]
    assert r.status == "malformed" and "not a task folder" in r.reason


def test_deep_run_json_is_a_note_and_the_run_scores(hostile_run, score_run):
    """run.json nested 100k deep crashed verify with a RecursionError traceback."""
    run = hostile_run()
    run.run_json(deep_json(100_000))
    s = score_run(run.root, [38])
    assert by_id(s)[38].status == "scored"
    assert any("run.json" in n and "deep" in n for n in s.notes)


def test_huge_integer_in_run_json_is_a_note(hostile_run, tmp_path):
    """A 5000-digit integer passes the JSON grammar but not Python's int conversion limit: a note, not a crash."""
    run = hostile_run()
    p = run.run_json('{"harness": "h", "rep": ' + "9" * 5000 + "}")
    meta, notes = read_run_json(p)
    assert meta.harness is None and len(notes) == 1 and "invalid JSON" in notes[0]


def test_wrong_types_and_unknown_keys_are_notes(hostile_run):
    """Wrong types fall back to 'unknown' and unknown keys are reported, each in a note naming the field."""
    run = hostile_run()
    p = run.run_json({"harness": ["x"], "model": "m", "rep": True, "colour": "blue"})
    meta, notes = read_run_json(p)
    assert (meta.harness, meta.model, meta.rep) == (None, "m", None)
    assert any("'harness'" in n for n in notes) and any("'rep'" in n for n in notes)
    assert any("unknown key(s) 'colour'" in n for n in notes)
    assert open_run(run.root).harness == "unknown"


def test_run_json_fifo_or_oversize_is_a_note(hostile_run):
    """run.json is read with the 5 MB cap and never blocks, like every other submitted file."""
    import os

    run = hostile_run()
    p = run.root / "run.json"
    p.unlink()
    os.mkfifo(p)
    assert "FIFO" in read_run_json(p)[1][0]
    p.unlink()
    with open(p, "wb") as fh:
        fh.truncate(6 * 1024 * 1024)
    assert "byte limit" in read_run_json(p)[1][0]
    assert open_run(run.root).meta == RunMeta()
