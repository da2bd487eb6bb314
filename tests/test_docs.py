"""The docs stand on their own: every defect id the code can print is explained in docs/upstream-defects.md, no
file of the project points at a ticket or a document outside the repository, and the guide's examples, file
contracts and field lists match the code."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from doc_examples import excerpt_mismatch, iter_steps, run_step

from agenticvbench.demo import DemoBenchmark
from agenticvbench.harbor.contract import OUTPUT_FILES

REPO = Path(__file__).resolve().parents[1]
DEFECT_ID = re.compile(r"\bD-[SRC]\d+\b")
TEXT_SUFFIXES = {".py", ".md", ".json", ".toml", ".yaml", ".yml", ".ipynb", ".txt", ".html", ".cfg"}
# Assembled from parts so this file does not match itself.
OUTSIDE = re.compile(
    "|".join(
        [
            r"\bissue " + r"\d+",
            "shared" + "/spec",
            r"\.\./" + "shared",
            r"\bspec " + "§",
            r"scoring" + r"\.md",
        ]
    ),
    re.IGNORECASE,
)


def _text_files() -> list[Path]:
    out = []
    for folder, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if not d.startswith(".") or d == ".ci"]
        dirs[:] = [
            d
            for d in dirs
            if d not in {"__pycache__", "build", "dist", "data"} and not d.endswith(".egg-info")
        ]
        out += [Path(folder) / f for f in files if Path(f).suffix in TEXT_SUFFIXES or f == "run"]
    return sorted(out)


def test_every_printed_defect_id_is_documented() -> None:
    """A result's `warnings` start with a defect id; a reader must find that id in docs/upstream-defects.md."""
    used: set[str] = set()
    for root in (REPO / "agenticvbench",):
        for path in root.rglob("*.py"):
            used |= set(DEFECT_ID.findall(path.read_text(encoding="utf-8")))
    documented = set(
        re.findall(
            r"^\| (D-[SRC]\d+) \|", (REPO / "docs" / "upstream-defects.md").read_text(encoding="utf-8"), re.M
        )
    )
    assert used, "no defect id found in the code: the scan is broken"
    assert not used - documented, f"undocumented defect ids: {sorted(used - documented)}"


@pytest.mark.slow
def test_no_file_points_outside_the_repository() -> None:
    """Docs, code, data and tests cite public sources only, never a ticket number or an internal spec folder."""
    hits = []
    for path in _text_files():
        if path == Path(__file__).resolve():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{path.relative_to(REPO)}:{n}: {line.strip()[:120]}")
    assert len(_text_files()) > 50
    assert not hits, "\n".join(hits)


@pytest.mark.slow
def test_troubleshooting_shows_the_real_messages(
    demo: DemoBenchmark, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The troubleshooting page quotes error messages; they are run here, in the folder the page describes
    (`mirror/` and `runs/partial/`), so a reworded message cannot leave the page quoting a message nobody sees."""
    page = (REPO / "docs" / "guide" / "troubleshooting.md").read_text(encoding="utf-8")
    (tmp_path / "runs").mkdir()
    shutil.copytree(
        demo.runs["partial"], tmp_path / "runs" / "partial", ignore=shutil.ignore_patterns("avb-results")
    )
    (tmp_path / "mirror").symlink_to(demo.mirror, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    steps = list(iter_steps(page))
    assert len(steps) >= 8
    for step in steps:
        code, printed = run_step(step, capsys, monkeypatch)
        assert code != 0, f"`{step.command}` succeeded; the page shows it as an error"
        problem = excerpt_mismatch(step.shown, printed)
        assert problem is None, f"`{step.command}`: {problem}\n--- printed ---\n" + "\n".join(printed)


def test_run_directory_guide_names_every_file_the_verifiers_read() -> None:
    """The run-directory page's table lists, per family, exactly the files the verifiers read (the contract the
    Harbor export writes into every task)."""
    page = (REPO / "docs" / "guide" / "run-directory.md").read_text(encoding="utf-8")
    for family, files in OUTPUT_FILES.items():
        row = re.search(rf"^\| {family} \|.*$", page, flags=re.M)
        assert row, family
        assert set(re.findall(r"`([^`]+)`", row.group(0))) == set(files), (family, row.group(0))


def test_every_result_field_is_documented() -> None:
    """Each top-level property of the shipped result schema has a row in docs/results.md's field table."""
    schema = json.loads(
        (REPO / "agenticvbench" / "results" / "result.schema.json").read_text(encoding="utf-8")
    )
    page = (REPO / "docs" / "results.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `([a-z_0-9]+)` \|", page, flags=re.M))
    assert len(schema["properties"]) >= 15
    assert not set(schema["properties"]) - rows, sorted(set(schema["properties"]) - rows)


def test_api_reference_covers_the_public_api() -> None:
    """Every name `agenticvbench` exports has an entry on the API page (rendered from its docstring by
    mkdocstrings), so a new public name cannot go undocumented."""
    import agenticvbench

    page = (REPO / "docs" / "reference" / "api.md").read_text(encoding="utf-8")
    documented = {
        target.rsplit(".", 1)[-1] for target in re.findall(r"^::: (agenticvbench\.[\w.]+)$", page, re.M)
    }
    public = {name for name in agenticvbench.__all__ if not name.startswith("_")}
    assert len(public) >= 15
    assert not public - documented, sorted(public - documented)


def _shape(value: object) -> object:
    """A JSON value's shape: its keys and the types of its values, not the values."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    return type(value).__name__


def test_audit_guide_says_what_each_json_holds_under_exclude_flagged(tmp_path: Path) -> None:
    """The audit guide showed compare's `flagged_out` beside the leaderboard's `{"flags": [...], "cells": N}` as if
    they had one shape; compare's is a bare count and its flags are in `flagged_rule`. Each example the guide gives
    (`KEY`: `JSON`) has the shape of that field in the real output, on one flagged cell."""
    from result_fixtures import make_result

    from agenticvbench.cli.main import main
    from agenticvbench.results.model import write_result
    from agenticvbench.runs.submission import RESULTS_DIRNAME

    page = (REPO / "docs" / "guide" / "audit.md").read_text(encoding="utf-8")
    said = {
        k: json.loads(v.replace("\n  ", " ").replace(" ...", ""))
        for k, v in re.findall(r"`([a-z_.]+)`:\s+`([{\"0-9][^`]*)`", page)
    }
    runs = []
    for name, flags in (("a", ["web_access"]), ("b", [])):
        run = tmp_path / name
        (run / RESULTS_DIRNAME).mkdir(parents=True)
        for tid, score in ((37, 1.0), (38, 0.5), (39, 0.2)):
            r = make_result(tid, "sequencing", score, harness=name, path=str(run))
            r.integrity = flags if tid == 37 else []
            write_result(run / RESULTS_DIRNAME, r)
        runs.append(str(run))
    out = {}
    for cmd in (["leaderboard", runs[0], "--resamples", "0", "--no-floor"], ["compare", *runs]):
        buf = tmp_path / f"{cmd[0]}.json"
        assert main([*cmd, "--format", "json", "--exclude-flagged", "--out", str(buf)]) == 0
        out[cmd[0]] = json.loads(buf.read_text())
    real = {
        "bootstrap.flagged_left_out": out["leaderboard"]["bootstrap"]["flagged_left_out"],
        "flagged_out": out["compare"]["flagged_out"],
        "flagged_rule": out["compare"]["flagged_rule"],
    }
    assert set(said) == set(real), said
    for k, v in real.items():
        assert _shape(said[k]) == _shape(v), (k, said[k], v)
    assert said["flagged_out"] == real["flagged_out"] == 1 and real["flagged_rule"].startswith(
        said["flagged_rule"]
    )
    assert said["bootstrap.flagged_left_out"] == real["bootstrap.flagged_left_out"]
