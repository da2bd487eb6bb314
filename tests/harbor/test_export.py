"""`avb export harbor` on the demo benchmark: the structure Harbor needs, and scripts that score like `avb`.

The structure tests guard what Harbor and the agent see (no verifier-only file in the agent image, no secret in a
file, a flat numeric reward); the script tests run every exported `tests/test.sh` in a scratch root against gold
and broken outputs and require the same headline as `avb verify` on the same files.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from harbor_scripts import run_script

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.harbor.contract import OUTPUT_FILES
from agenticvbench.harbor.export import JUDGE_ENV, LISTING, family_settings
from agenticvbench.harbor.reward import (
    DETAILS_NAME,
    details_from_result,
    reward_from_result,
    write_reward,
)
from agenticvbench.results.model import iter_results
from agenticvbench.scoring.engine import verify_run
from agenticvbench.verifiers import headline_field

tomllib = pytest.importorskip("tomllib")
DEMO_IDS = [1, 2, 37, 38, 65, 66, 67, 83, 84]


def _dirs(export: Path) -> dict[int, Path]:
    listing = json.loads((export / LISTING).read_text())
    return {t["task_id"]: export / t["path"] for t in listing["tasks"]}


@pytest.mark.slow
def test_every_task_has_harbors_layout_and_a_separate_verifier(harbor_export, demo):
    """Each task dir has task.toml, instruction.md, both Dockerfiles, test.sh and solve.sh; the verifier runs
    separately; timeouts and resources come from the family settings; the instruction states the contract."""
    dirs = _dirs(harbor_export)
    assert sorted(dirs) == DEMO_IDS
    settings = family_settings()
    for task in load_tasks(dataset=str(demo.mirror)):
        d = dirs[task.task_id]
        for rel in (
            "task.toml",
            "instruction.md",
            "environment/Dockerfile",
            "tests/Dockerfile",
            "tests/test.sh",
            "solution/solve.sh",
        ):
            assert (d / rel).is_file(), (d, rel)
        cfg = tomllib.loads((d / "task.toml").read_text())
        assert cfg["verifier"]["environment_mode"] == "separate"
        assert cfg["artifacts"] == ["/workspace/output"]
        assert cfg["agent"]["timeout_sec"] == settings[task.family]["agent_timeout_sec"]
        assert cfg["environment"]["memory_mb"] == settings[task.family]["memory_mb"]
        text = (d / "instruction.md").read_text()
        assert text.startswith(task.prompt.rstrip())
        assert "/workspace/materials/" in text and all(f"`{f}`" in text for f in OUTPUT_FILES[task.family])
        if task.family in ("sequencing", "assembly"):
            assert '"segments"' in text and "source_range" in text
        if task.family == "repair":
            assert "## Diagnosis" in text and "- start:" in text and "window_N_start" in text
        docker = (d / "tests" / "Dockerfile").read_text()
        (wheel,) = (d / "tests").glob("agenticvbench-*.whl")
        assert docker.index("COPY . /tests/") < docker.index(
            f"pip install --no-cache-dir /tests/{wheel.name}"
        )


def test_agent_image_never_holds_a_verifier_only_file(harbor_export, demo):
    """The repair source (verifier-only) and every answer file stay out of environment/: byte comparison of every
    file under environment/ against the sources, and no tests/ or solution/ path copied in by the Dockerfile."""
    sources = {p.read_bytes() for p in (demo.mirror / "repair" / "sources").glob("*.mp4")}
    assert sources
    for d in _dirs(harbor_export).values():
        env_files = [p for p in (d / "environment").rglob("*") if p.is_file()]
        assert env_files and not any(p.read_bytes() in sources for p in env_files if p.suffix == ".mp4")
        assert not any(p.name in ("profile.json", "rubric.json", "solve.sh", "test.sh") for p in env_files)
        docker = (d / "environment" / "Dockerfile").read_text()
        assert "tests" not in docker and "solution" not in docker
    assert (_dirs(harbor_export)[65] / "tests" / "reference" / "source.mp4").read_bytes() in sources


def test_recap_judge_settings_are_host_templates_never_values(demo, tmp_path, monkeypatch):
    """Recap tasks pass the judge settings as `${VAR:-}` templates; a key set while exporting is not written."""
    from agenticvbench.cli.main import main

    monkeypatch.setenv("OPENAI_API_KEY", "sk-export-time-secret-123")
    out = tmp_path / "x"
    assert (
        main(["export", "harbor", "--out", str(out), "--dataset", str(demo.mirror), "--family", "recap"]) == 0
    )
    cfg = tomllib.loads((out / "recap-001" / "task.toml").read_text())
    assert cfg["verifier"]["env"] == {v: f"${{{v}:-}}" for v in JUDGE_ENV}
    for p in out.rglob("*"):
        if p.is_file():
            assert b"sk-export-time-secret-123" not in p.read_bytes(), p


def test_reward_json_holds_one_key_and_the_details_go_to_the_sidecar():
    """Harbor averages every reward key over all trials of a job (a key a trial lacks counts 0), so a sub-score
    key would be diluted by other families' trials: reward.json is only the headline; the sub-scores, the error
    and the full result go to the sidecar in the shape Harbor's viewer renders (criteria with name/value/weight)."""
    result = {
        "task_id": 37,
        "adjusted_final_score": 0.5,
        "final_score": 0.6,
        "nd_score": 0.9,
        "error": "",
        "detail": {"x": 1},
        "strict_match": True,
    }
    assert reward_from_result("sequencing", result) == {"reward": 0.5}
    side = details_from_result("sequencing", result)
    assert list(side) == ["reward"]
    d = side["reward"]
    assert d["kind"] == "programmatic" and d["score"] == 0.5 and d["result"] == result
    assert [c["name"] for c in d["criteria"]] == ["final_score", "nd_score"]
    assert all(isinstance(c["value"], float) and isinstance(c["weight"], float) for c in d["criteria"])
    assert "warnings" not in d
    assert reward_from_result("repair", {"final_score": float("nan"), "error": "fixed.mp4 not found"}) == {
        "reward": 0.0
    }
    bad = details_from_result("repair", {"final_score": 0.0, "error": "fixed.mp4 not found"})["reward"]
    assert bad["warnings"] == ["scorer error: fixed.mp4 not found"]


def test_written_sidecar_is_strict_json_even_with_nan(tmp_path):
    """A NaN in a diagnostic field of the result must not stop the reward being written (Harbor would record a
    verifier error): the sidecar stores it as null, reward.json holds the headline."""
    res = tmp_path / "avb-result.json"
    res.write_text('{"final_score": 0.25, "edit_score": NaN, "error": null}')
    assert write_reward("repair", res, tmp_path / "reward.json") == {"reward": 0.25}
    assert json.loads((tmp_path / "reward.json").read_text()) == {"reward": 0.25}
    side = json.loads((tmp_path / DETAILS_NAME).read_text())
    assert side["reward"]["result"]["edit_score"] is None and side["reward"]["criteria"] == []


def _outputs(src: Path, family: str, dest: Path) -> None:
    folder = src / "output" if (src / "output").is_dir() else src
    for name in OUTPUT_FILES[family]:
        if (folder / name).is_file():
            shutil.copyfile(folder / name, dest / name)


def _score_in_root(d: Path, root: Path, env: dict[str, str]) -> dict[str, float]:
    proc = run_script(d, "tests/test.sh", root, env)
    assert proc.returncode == 0, (d.name, proc.stdout, proc.stderr)
    reward = json.loads((root / "logs" / "verifier" / "reward.json").read_text())
    assert list(reward) == ["reward"] and isinstance(reward["reward"], float), reward
    result = json.loads((root / "logs" / "verifier" / "avb-result.json").read_text())
    assert reward["reward"] == result.get(headline_field(d.name.rsplit("-", 1)[0]), 0.0)
    side = json.loads((root / "logs" / "verifier" / DETAILS_NAME).read_text())
    assert side["reward"]["score"] == reward["reward"] and side["reward"]["result"] == result
    return reward


@pytest.mark.slow
def test_exported_solve_then_test_sh_gives_one_where_gold_exists(harbor_export, avb_on_path, tmp_path):
    """solve.sh then test.sh, in a scratch root: reward 1.0 on every sequencing, assembly and repair task (repair
    within 1e-5), 0 on recap (no gold), and the solve.sh of recap still succeeds."""
    for tid, d in _dirs(harbor_export).items():
        root = tmp_path / str(tid)
        solved = run_script(d, "solution/solve.sh", root, avb_on_path)
        assert solved.returncode == 0, solved.stderr
        reward = _score_in_root(d, root, avb_on_path)
        expected = 0.0 if d.name.startswith("recap") else 1.0
        assert reward["reward"] == pytest.approx(expected, abs=1e-5), (tid, reward)


@pytest.mark.slow
def test_exported_test_sh_scores_wrong_outputs_like_avb_verify(harbor_export, demo, avb_on_path, tmp_path):
    """test.sh on wrong outputs (the demo's partial run for sequencing and assembly, its broken run for repair and
    recap) gives exactly the headline `avb verify` computes from the dataset for the same files."""
    run = tmp_path / "run"
    rewards: dict[int, dict[str, float]] = {}
    for tid, d in _dirs(harbor_export).items():
        family = d.name.rsplit("-", 1)[0]
        root = tmp_path / "roots" / str(tid)
        out = root / "workspace" / "output"
        out.mkdir(parents=True)
        source = demo.runs["partial" if family in ("sequencing", "assembly") else "broken"]
        _outputs(source / str(tid), family, out)
        rewards[tid] = _score_in_root(d, root, avb_on_path)
        (run / str(tid)).mkdir(parents=True)
        _outputs(out, family, run / str(tid))
    verify_run([run], dataset=str(demo.mirror), jobs=2)
    results = iter_results(run)
    assert sorted(r.task_id for r in results) == DEMO_IDS
    for r in results:
        assert rewards[r.task_id]["reward"] == pytest.approx(r.headline_score, abs=1e-9), r.task_id
    assert any(0.0 < rewards[t]["reward"] < 1.0 for t in (37, 38, 83, 84))


@pytest.mark.slow
def test_verifier_image_installs_the_wheel_of_this_checkout(harbor_export, tmp_path):
    """agenticvbench is not on PyPI, so a pinned `agenticvbench==X` never builds: the export bakes a wheel of this
    source into tests/; it is this version, and installed alone (no dependencies) it provides the reward code."""
    import subprocess
    import sys

    from agenticvbench.version import __version__

    wheels = {p.read_bytes() for p in harbor_export.glob("*/tests/agenticvbench-*.whl")}
    assert len(wheels) == 1  # one build, hard-linked or copied into every task
    wheel = next(harbor_export.glob("*/tests/agenticvbench-*.whl"))
    assert wheel.name.startswith(f"agenticvbench-{__version__}-")
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        timeout=300,
    )
    assert (target / "agenticvbench" / "harbor" / "reward.py").read_text() == (
        Path(__file__).resolve().parents[2] / "agenticvbench" / "harbor" / "reward.py"
    ).read_text()
    listing = json.loads((harbor_export / LISTING).read_text())
    assert listing["package_spec"] == f"/tests/{wheel.name}"


def test_export_from_an_installed_package_says_what_to_pass(demo, tmp_path, monkeypatch, capsys):
    """Without a source checkout there is no wheel to bake: the export stops with one line naming --wheel and
    --package-spec, and with --package-spec the Dockerfile installs exactly that."""
    from agenticvbench.cli.main import main
    from agenticvbench.harbor import wheel

    monkeypatch.setattr(wheel, "CHECKOUT", tmp_path / "not-a-checkout")
    args = ["export", "harbor", "--dataset", str(demo.mirror), "--tasks", "37"]
    assert main([*args, "--out", str(tmp_path / "a")]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--wheel" in err[0] and "--package-spec" in err[0]
    spec = "agenticvbench @ git+https://example.invalid/avb@0123abc"
    assert main([*args, "--out", str(tmp_path / "b"), "--package-spec", spec]) == 0
    docker = (tmp_path / "b" / "sequencing-037" / "tests" / "Dockerfile").read_text()
    assert f"pip install --no-cache-dir '{spec}'" in docker
    assert not list((tmp_path / "b").glob("*/tests/*.whl"))


def test_dataset_manifest_lists_every_task_with_its_content_digest(harbor_export):
    """dataset.toml (Harbor's manifest) names every exported task with a sha256 digest of its files, and its
    content hash changes when one task file changes (what `check-job` compares between jobs)."""
    from agenticvbench.harbor.manifest import dataset_digest, task_digest

    man = tomllib.loads((harbor_export / "dataset.toml").read_text())
    names = {t["name"]: t["digest"] for t in man["tasks"]}
    assert sorted(names) == sorted(f"agenticvbench/{p.name}" for p in _dirs(harbor_export).values())
    for name, digest in names.items():
        assert digest == task_digest(harbor_export / name.split("/", 1)[1])
    assert man["metadata"]["content_hash"] == dataset_digest(list(names.values()))
    listing = json.loads((harbor_export / LISTING).read_text())
    assert listing["dataset_digest"] == man["metadata"]["content_hash"]


def test_task_digest_follows_every_task_file(tmp_path):
    """Changing instruction.md or a file deep under environment/ changes the digest; an ignored editor backup
    does not."""
    from agenticvbench.harbor.manifest import task_digest

    d = tmp_path / "t"
    (d / "environment" / "materials" / "sub").mkdir(parents=True)
    (d / "task.toml").write_text("x")
    (d / "instruction.md").write_text("do it")
    (d / "environment" / "materials" / "sub" / "clip.mp4").write_bytes(b"1")
    first = task_digest(d)
    (d / "environment" / "materials" / "sub" / "clip.mp4").write_bytes(b"2")
    second = task_digest(d)
    (d / "instruction.md~").write_text("backup")
    assert first != second == task_digest(d)
