"""`avb publish --with-outputs` and `avb pull --rescore`: the outputs a published bundle may show go to the repo,
come back into run folders, and rescore to the published numbers (or each differing task is named, and why)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from hub_server import HubServer, commit_from_dir, commit_sha

from agenticvbench.cli.main import main
from agenticvbench.demo import DemoBenchmark
from agenticvbench.hub.card import parse_card
from agenticvbench.hub.layout import PULL_RECORD
from agenticvbench.hub.publish import Staged, stage
from agenticvbench.results.model import read_result_checked

REPO = "org/with-outputs"
#: What the bundle policy lets out of the scored demo: the partial run's unsolved sequencing, assembly and recap
#: tasks, the recap videos of the perfect run (a video is not withheld for being solved); never a repair output,
#: never a solved task's solution.json; a solution.mp4 goes when scoring screened and hashed it (every file of a folder).
PUBLISHED = {"partial": [1, 2, 37, 38, 83, 84], "perfect": [1, 2]}


@pytest.fixture(scope="module")
def staged_outputs(scored_demo_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Staged:
    folder = tmp_path_factory.mktemp("staged-outputs") / "repo"
    runs = [scored_demo_runs["perfect"], scored_demo_runs["partial"]]
    return stage(runs, folder, resamples=200, seed=0, with_outputs=True)


def test_only_what_a_bundle_may_show_is_staged(
    staged_outputs: Staged, scored_demo_runs: dict[str, Path]
) -> None:
    outputs = sorted(f for f in staged_outputs.files if "/outputs/" in f)
    by_run: dict[str, set[int]] = {}
    for f in outputs:
        parts = f.split("/")
        by_run.setdefault(parts[1], set()).add(int(parts[3]))
    assert {k: sorted(v) for k, v in by_run.items()} == PUBLISHED
    assert not any(f.endswith(("fixed.mp4", "report.md")) for f in outputs)
    # a sequencing solution.mp4 is screened and hashed by scoring like every file of the folder
    assert {"37", "38"} <= {f.split("/")[3] for f in outputs if f.endswith("/solution.mp4")}
    assert {r["run"]: r["outputs"] for r in staged_outputs.card.runs} == PUBLISHED
    note = next(n for n in staged_outputs.notes if n.startswith("outputs:"))
    assert "8 task(s) published" in note and "10 withheld" in note and "solved this task exactly" in note
    for f in outputs:  # the bytes scoring hashed
        run, _, tid, name = f.split("/")[1:]
        src = scored_demo_runs[run] / tid
        src = src / name if (src / name).is_file() else src / "output" / name
        assert (staged_outputs.folder / f).read_bytes() == src.read_bytes()


def test_show_answers_adds_the_solved_tasks_but_never_a_repair_video(
    scored_demo_runs: dict[str, Path], tmp_path: Path
) -> None:
    staged = stage(
        [scored_demo_runs["perfect"]], tmp_path / "repo", resamples=0, seed=0, with_outputs=True, answers=True
    )
    assert staged.card.runs[0]["outputs"] == [1, 2, 37, 38, 83, 84]
    assert not any(f.endswith("fixed.mp4") for f in staged.files)


def test_an_output_changed_after_scoring_is_withheld(
    scored_demo_runs: dict[str, Path], tmp_path: Path
) -> None:
    run = tmp_path / "partial"
    shutil.copytree(scored_demo_runs["partial"], run)
    (run / "84/solution.json").write_text((run / "84/solution.json").read_text() + " ")
    staged = stage([run], tmp_path / "repo", resamples=0, seed=0, with_outputs=True)
    assert staged.card.runs[0]["outputs"] == [1, 2, 37, 38, 83]
    assert staged.outputs is not None
    changed = (
        "partial/84: solution.json not offered: it changed since it was scored; rescore the run to look at it"
    )
    assert changed in staged.outputs.withheld and len(staged.outputs.withheld) == 4  # and the 3 repair tasks


def test_publish_pull_rescore_reproduces_the_published_numbers(
    write_hub: HubServer,
    scored_demo_runs: dict[str, Path],
    demo: DemoBenchmark,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    runs = [str(scored_demo_runs["perfect"]), str(scored_demo_runs["partial"])]
    assert main(["publish", *runs, "--repo", REPO, "--with-outputs", "--resamples", "200", "-q"]) == 0
    head = write_hub.head(REPO)
    assert "runs/partial/outputs/84/solution.json" in head.files

    out = tmp_path / "pulled"
    capsys.readouterr()
    argv = ["pull", REPO, "--out", str(out), "--rescore", "--dataset", str(demo.mirror), "--jobs", "2"]
    assert main(argv) == 0, capsys.readouterr().err
    assert "rescored 8 task(s) with published outputs: 8 reproduced, 0 differ" in capsys.readouterr().out
    record = json.loads((out / PULL_RECORD).read_text())
    assert record["reproduced"] and record["rescore"]["rescored"] == PUBLISHED
    assert (out / "runs/partial/84/solution.json").is_file() and not (out / "runs/partial/65").exists()
    rescored, _ = read_result_checked(tmp_path / "pulled-rescored/partial/avb-results/84.json")
    assert rescored is not None and rescored.headline_score == pytest.approx(0.625)
    assert main(["pull", "--check", "--out", str(out), "-q"]) == 0  # the published result files are untouched


def test_a_rescore_that_differs_names_the_task_and_why(
    write_hub: HubServer,
    staged_outputs: Staged,
    demo: DemoBenchmark,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The result of 84 is re-signed as scored by another verifier version with another score (and the tables and
    card agree with it): the rescore names 84, the score it got, and the version that changed."""
    from agenticvbench.hub.publish import write_bytes
    from agenticvbench.results.model import canonical_sha256

    repo = tmp_path / "repo"
    shutil.copytree(staged_outputs.folder, repo)
    path = repo / "runs/partial/avb-results/84.json"
    data = json.loads(path.read_text())
    data["provenance"]["verifier_version"] = "0.9.0"
    data["headline_score"] = data["adjusted_final_score"] = 0.5
    data.pop("signature", None)
    data["result_sha256"] = canonical_sha256(data)
    write_bytes(path, json.dumps(data).encode())
    write_hub.add_repo(REPO, [commit_from_dir(commit_sha("differs"), repo)], {"main": commit_sha("differs")})
    capsys.readouterr()
    argv = ["pull", REPO, "--out", str(tmp_path / "p"), "--rescore", "--dataset", str(demo.mirror)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "rescore differs" in x)
    assert (
        "partial/84 (assembly): headline_score 0.5 -> 0.625" in line
        and "verifier version '0.9.0' -> '1." in line
    )
    differs = json.loads((tmp_path / "p" / PULL_RECORD).read_text())["rescore"]["differs"]
    assert len(differs) == 1 and differs[0].startswith("partial/84")


def test_a_pulled_output_that_is_not_the_hashed_bytes_is_not_written(
    write_hub: HubServer, staged_outputs: Staged, tmp_path: Path
) -> None:
    bad = b'{"order": []}'
    commit = commit_from_dir(
        commit_sha("swapped"), staged_outputs.folder, {"runs/partial/outputs/84/solution.json": bad}
    )
    write_hub.add_repo(REPO, [commit], {"main": commit.sha})
    assert main(["pull", REPO, "--out", str(tmp_path / "p"), "-q"]) == 1
    record = json.loads((tmp_path / "p" / PULL_RECORD).read_text())
    assert any(
        "84/solution.json: its bytes are not the ones its result hashed" in p for p in record["problems"]
    )
    assert not (tmp_path / "p/runs/partial/84").exists()
    assert hashlib.sha256(bad).hexdigest() not in json.dumps(record)


def test_a_card_that_names_other_outputs_is_named(
    write_hub: HubServer, staged_outputs: Staged, tmp_path: Path
) -> None:
    text = (staged_outputs.folder / "README.md").read_text()
    card = parse_card(text.encode())
    assert card.runs[1]["outputs"] == PUBLISHED["partial"]
    lie = text.replace("outputs: [1, 2, 37, 38, 83, 84]", "outputs: [1, 2, 37, 38, 83]")
    assert lie != text
    commit = commit_from_dir(commit_sha("lie"), staged_outputs.folder, {"README.md": lie.encode()})
    write_hub.add_repo(REPO, [commit], {"main": commit.sha})
    assert main(["pull", REPO, "--out", str(tmp_path / "p"), "-q"]) == 1
    record = json.loads((tmp_path / "p" / PULL_RECORD).read_text())
    assert any(
        "the card names outputs of tasks [1, 2, 37, 38, 83] for run partial" in p for p in record["problems"]
    )
