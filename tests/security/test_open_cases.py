"""The last hostile round's open cases: an unreadable task folder, a reused --out, leftover temporary files,
oversized result files, agent line breaks in output, and a file deleted while it is scored."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenticvbench.scoring.engine import verify_run


def _mode_000_is_enforced(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    probe.chmod(0)
    try:
        os.listdir(probe)
        return False
    except PermissionError:
        return True
    finally:
        probe.chmod(0o755)


def test_unreadable_task_folder_is_that_tasks_malformed(hostile_run, demo, tmp_path):
    """Regression: a task folder the agent made unreadable (mode 000) stopped every run of the invocation (exit 3,
    the good run got none of its results). It is that task's `malformed`, naming the folder; every other task of
    the run and every other run scores."""
    if not _mode_000_is_enforced(tmp_path):
        pytest.skip(
            "running as root (or with CAP_DAC_OVERRIDE): root reads mode 000 folders, so the case cannot occur"
        )
    bad = hostile_run("perfect")
    good = bad.from_run(demo.runs["perfect"], tmp_path / "good")
    locked = bad.root / "37"
    locked.chmod(0)
    try:
        s = verify_run([bad.root, good.root], dataset=demo.mirror, task_ids=[37, 38, 83], jobs=1)
    finally:
        locked.chmod(0o755)
    assert not s.refused, s.refused
    got = {(Path(r.run["path"]).name, r.task_id): r for r in s.results}
    assert got[("run-perfect", 37)].status == "malformed"
    assert "permission denied" in got[("run-perfect", 37)].reason.lower()
    assert got[("run-perfect", 38)].status == "scored" and got[("run-perfect", 83)].status == "scored"
    assert all(got[("good", t)].status == "scored" for t in (37, 38, 83))


def test_unreadable_task_folder_on_the_cli_scores_the_other_runs(hostile_run, demo, tmp_path, capsys):
    """The same through `avb verify BAD GOOD` (worker pool): exit 1 at most (no run refused), the good run's
    results all written."""
    from agenticvbench.cli.main import main

    if not _mode_000_is_enforced(tmp_path):
        pytest.skip(
            "running as root (or with CAP_DAC_OVERRIDE): root reads mode 000 folders, so the case cannot occur"
        )
    bad = hostile_run("perfect")
    good = bad.from_run(demo.runs["perfect"], tmp_path / "good")
    locked = bad.root / "37"
    locked.chmod(0)
    try:
        code = main(
            ["verify", str(bad.root), str(good.root), "--dataset", str(demo.mirror), "--jobs", "2", "-q"]
        )
    finally:
        locked.chmod(0o755)
    err = capsys.readouterr().err
    assert code in (0, 1), err
    assert sorted(p.name for p in (good.root / "avb-results").glob("*.json")) == sorted(
        f"{t}.json" for t in (1, 2, 37, 38, 65, 66, 67, 83, 84)
    )


def test_out_reused_for_another_run_is_refused(hostile_run, demo, tmp_path, capsys):
    """Regression: `avb verify B --out OUT` after `avb verify A --out OUT` overwrote A's results silently. The
    folder's signed record names the run scored into it first, so B is refused (exit 3, naming A) and A's results
    stay; A itself scores into OUT again, and B into another folder."""
    from agenticvbench.cli.main import main

    a = hostile_run("perfect")
    b = a.from_run(demo.runs["partial"], tmp_path / "b")
    out = tmp_path / "out"
    base = ["--dataset", str(demo.mirror), "--tasks", "37,83", "--jobs", "1", "-q", "--out", str(out)]
    assert main(["verify", str(a.root), *base]) == 0
    before = (out / "37.json").read_bytes()
    capsys.readouterr()
    assert main(["verify", str(b.root), *base]) == 3
    err = capsys.readouterr().err
    assert (
        "holds the results of another run" in err
        and str(a.root) in err
        and len(err.strip().splitlines()) == 1
    )
    assert (out / "37.json").read_bytes() == before
    assert main(["verify", str(a.root), *base]) == 0
    assert main(["verify", str(b.root), *base[:-1], str(tmp_path / "out-b")]) == 0
    # with several runs, OUT/<run name> is checked the same way: a's folder refuses b of the same name
    other = a.from_run(demo.runs["partial"], tmp_path / "elsewhere" / a.root.name)
    multi = [
        "--dataset",
        str(demo.mirror),
        "--tasks",
        "37",
        "--jobs",
        "1",
        "-q",
        "--out",
        str(tmp_path / "many"),
    ]
    assert main(["verify", str(a.root), str(b.root), *multi]) == 0
    capsys.readouterr()
    assert main(["verify", str(other.root), str(b.root), *multi]) == 3
    assert "holds the results of another run" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["write", "fsync", "replace", "interrupt"])
def test_a_failed_atomic_write_leaves_no_temporary_file(where, tmp_path, monkeypatch):
    """A disk-full write (ENOSPC while writing, at fsync, or at the rename) or an interrupt leaves the old file
    whole and no temporary file next to it (the last round found one left behind)."""
    import errno

    from agenticvbench import fsutil

    target = tmp_path / "r.json"
    fsutil.atomic_write_json(target, {"old": 1})
    exc: BaseException = (
        KeyboardInterrupt() if where == "interrupt" else OSError(errno.ENOSPC, "No space left")
    )

    def fail(*a: object, **k: object) -> None:
        raise exc

    real_fdopen = os.fdopen

    class Full:
        """The temporary file's handle on a full disk: the write fails."""

        def __init__(self, fh: object) -> None:
            self.fh = fh

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *a: object) -> None:
            self.fh.close()

        write = fail

    if where in ("write", "interrupt"):
        monkeypatch.setattr(fsutil.os, "fdopen", lambda fd, *a, **k: Full(real_fdopen(fd, *a, **k)))
    else:
        monkeypatch.setattr(fsutil.os, where, fail)
    with pytest.raises(type(exc)):
        fsutil.atomic_write_json(target, {"new": 2})
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]
    assert '"old": 1' in target.read_text()


def test_a_failed_gold_copy_leaves_no_partial_file(tmp_path, monkeypatch):
    """`avb harbor gold` copies media through a `.partial` file: a copy that fails (a full disk) removes it."""
    import errno

    from agenticvbench.harbor import gold

    src = tmp_path / "src.bin"
    src.write_bytes(b"x" * 100)
    out = tmp_path / "out"

    def full(a: object, b: object) -> None:
        Path(str(b)).write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(gold.shutil, "copyfile", full)
    files = gold.GoldOutput(task_id=65, family="repair", texts={}, copies={"x.bin": src})
    with pytest.raises(OSError):
        files.write(out)
    assert list(out.iterdir()) == []


def test_result_files_over_the_cap_are_skipped_by_size_before_reading(hostile_run, score_run, monkeypatch):
    """Regression: 200 sparse 63 MB files in avb-results (under the old 64 MB cap) added 96 s to `avb report`,
    each read in full. The cap is 16 MiB and is checked by size: such files are invalid without a byte read."""
    import time

    from agenticvbench.results import model

    run = hostile_run("perfect")
    score_run(run.root, [37])
    folder = run.results()
    for tid in range(100, 300):
        with open(folder / f"{tid}.json", "wb") as fh:
            fh.truncate(63 * 1024 * 1024)
    reads: list[str] = []
    real = model.read_capped
    monkeypatch.setattr(model, "read_capped", lambda p, cap: reads.append(Path(p).name) or real(p, cap))
    t0 = time.perf_counter()
    scan = model.scan_results(run.root)
    elapsed = time.perf_counter() - t0
    assert [r.task_id for r in scan.results] == [37] and len(scan.invalid) == 200
    assert all("over the 16777216 byte limit" in i.reason for i in scan.invalid)
    assert reads == ["37.json"], "only the honest result is read"
    assert elapsed < 5, elapsed


@pytest.mark.slow
def test_every_line_an_agent_wrote_is_one_line_on_output(hostile_run, demo, tmp_path, capsys):
    """Regression: a line break in a clip id (sequencing) or a slot's source (assembly) started a forged line
    in `avb explain` and in the reports' "why tasks lost points" section. Every output line starts where ours
    do; the agent's text is shown with `\\n` escaped."""
    import json

    from agenticvbench.cli.main import main

    run = hostile_run("perfect")
    forged = "\nFORGED line"
    run.run_json({"harness": "h" + forged, "model": "m" + forged, "rep": "r" + forged})
    for tid in (38, 83):
        sol = json.loads((run.folder(tid) / "solution.json").read_text())
        sol["segments"][0]["source"] = "x" + forged
        run.write(tid, "solution.json", json.dumps(sol))
    root = str(run.root)
    outputs = []
    assert (
        main(["verify", root, "--dataset", str(demo.mirror), "--tasks", "37,38,83", "--jobs", "1", "-v"]) == 0
    )
    outputs.append(capsys.readouterr())
    for tid in ("38", "83"):
        assert main(["explain", root, tid]) == 0
        outputs.append(capsys.readouterr())
    out = tmp_path / "report"
    assert main(["report", root, "--dataset", str(demo.mirror), "--format", "all", "--out", str(out)]) == 0
    outputs.append(capsys.readouterr())
    texts = [o.out + o.err for o in outputs] + [f.read_text() for f in sorted(out.iterdir())]
    assert any("x\\nFORGED line" in t for t in texts[1:3]), "explain shows the escaped id"
    import re

    start = re.compile(r"^(?:\s|<[^>]*>)*FORGED")  # a line (after HTML tags) that the agent started
    for text in texts:
        assert not [line for line in text.splitlines() if start.match(line)]
