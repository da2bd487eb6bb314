"""Run directories laid out almost right: the message says how to fix them (scores are unchanged)."""

from __future__ import annotations

import json
import os

from agenticvbench import verify_run
from agenticvbench.runs.layout_hints import MAX_ENTRIES, misplaced_outputs, rename_hint
from agenticvbench.runs.submission import open_run


def test_prefixed_task_folders_get_a_rename_hint(tmp_path):
    """Regression: `sequencing-037` (the exported Harbor task's own name) and `task_38` were ignored with no hint."""
    for name in ("sequencing-037", "task_38", "notes", "37"):
        (tmp_path / name).mkdir()
    (note,) = [n for n in open_run(tmp_path).notes if "ignored" in n]
    assert "'sequencing-037' (rename to 37/)" in note and "'task_38' (rename to 38/)" in note
    assert "'notes'," in note or note.endswith("'notes'")
    assert (rename_hint("Assembly-083"), rename_hint("recap7"), rename_hint("v2"), rename_hint("notes")) == (
        " (rename to 83/)",
        " (rename to 7/)",
        "",
        "",
    )


def test_outputs_one_level_too_deep_are_named(demo, tmp_path):
    """Regression: `83/out/solution.json` gave only "solution.json not found at RUN/83/solution.json"."""
    run = tmp_path / "run"
    src = demo.runs["perfect"] / "83"
    inner = next(p for p in src.rglob("solution.json"))
    (run / "83" / "out").mkdir(parents=True)
    (run / "83" / "out" / "solution.json").write_bytes(inner.read_bytes())
    summary = verify_run(run, dataset=demo.mirror, task_ids=[83], jobs=1)
    (res,) = summary.results
    assert res.status == "missing"
    assert res.reason.startswith("solution.json not found at ")
    assert res.reason.endswith("; found 83/out/solution.json: outputs go in RUN/83/ or RUN/83/output/")
    saved = json.loads((run / "avb-results" / "83.json").read_text(encoding="utf-8"))
    assert saved["reason"] == res.reason and saved["official"]["error"].startswith("solution.json not found")


def test_the_search_is_bounded_and_ignores_what_is_read(tmp_path):
    """Files in the task folder or its output/ are where they belong; symlinked folders are not followed; at most
    MAX_ENTRIES entries are looked at."""
    root = tmp_path / "83"
    (root / "output").mkdir(parents=True)
    (root / "output" / "solution.json").write_text("{}")
    (root / "solution.json").write_text("{}")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "solution.json").write_text("{}")
    os.symlink(tmp_path / "elsewhere", root / "link")
    assert misplaced_outputs(root, "assembly") == []
    crowd = root / "crowd"
    crowd.mkdir()
    for i in range(MAX_ENTRIES + 10):
        (crowd / f"f{i:05d}").write_text("")
    (crowd / "zz").mkdir()
    (crowd / "zz" / "solution.json").write_text("{}")
    assert misplaced_outputs(root, "assembly") == []  # beyond the bound: not found, and no hang
    (root / "deep").mkdir()
    (root / "deep" / "solution.json").write_text("{}")
    assert misplaced_outputs(root, "assembly") == ["83/deep/solution.json"]
