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
from conftest import run_script

from agenticvbench.engine import verify_run
from agenticvbench.harbor.contract import OUTPUT_FILES
from agenticvbench.harbor.export import JUDGE_ENV, LISTING, family_settings
from agenticvbench.harbor.reward import HEADLINE, reward_from_result
from agenticvbench.loader import load_tasks
from agenticvbench.results import iter_results

tomllib = pytest.importorskip("tomllib")
DEMO_IDS = [1, 2, 37, 38, 65, 66, 67, 83, 84]


def _dirs(export: Path) -> dict[int, Path]:
    listing = json.loads((export / LISTING).read_text())
    return {t["task_id"]: export / t["path"] for t in listing["tasks"]}


def test_every_task_has_harbors_layout_and_a_separate_verifier(harbor_export, demo):
    """Each task dir has task.toml, instruction.md, both Dockerfiles, test.sh and solve.sh; the verifier runs
    separately; timeouts and resources come from the family settings; the instruction states the contract."""
    dirs = _dirs(harbor_export)
    assert sorted(dirs) == DEMO_IDS
    settings = family_settings()
    for task in load_tasks(dataset=str(demo.mirror)):
        d = dirs[task.task_id]
        for rel in ("task.toml", "instruction.md", "environment/Dockerfile", "tests/Dockerfile", "tests/test.sh",
                    "solution/solve.sh"):
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
        assert "COPY . /tests/" in (d / "tests" / "Dockerfile").read_text()
        assert "agenticvbench==" in (d / "tests" / "Dockerfile").read_text()


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
    assert main(["export", "harbor", "--out", str(out), "--dataset", str(demo.mirror), "--family", "recap"]) == 0
    cfg = tomllib.loads((out / "recap-001" / "task.toml").read_text())
    assert cfg["verifier"]["env"] == {v: f"${{{v}:-}}" for v in JUDGE_ENV}
    for p in out.rglob("*"):
        if p.is_file():
            assert b"sk-export-time-secret-123" not in p.read_bytes(), p


def test_reward_is_flat_and_numeric():
    """Harbor rejects a reward.json with a non-number: nested details and strings are dropped, NaN counts 0."""
    r = reward_from_result("sequencing", {"task_id": 37, "adjusted_final_score": 0.5, "nd_score": 0.9,
                                          "error": "", "detail": {"x": 1}, "strict_match": True})
    assert r == {"reward": 0.5, "adjusted_final_score": 0.5, "nd_score": 0.9, "scorer_error": 0.0}
    r = reward_from_result("repair", {"final_score": float("nan"), "error": "fixed.mp4 not found"})
    assert r == {"reward": 0.0, "scorer_error": 1.0}


def _outputs(src: Path, family: str, dest: Path) -> None:
    folder = src / "output" if (src / "output").is_dir() else src
    for name in OUTPUT_FILES[family]:
        if (folder / name).is_file():
            shutil.copyfile(folder / name, dest / name)


@pytest.mark.parametrize("kind", ["gold", "broken"])
def test_exported_test_sh_scores_like_avb_verify(kind, harbor_export, demo, avb_on_path, tmp_path):
    """Every exported test.sh, run in a scratch root on gold (solve.sh's outputs) and on the demo's broken
    outputs, writes a flat numeric reward.json whose `reward` equals `avb verify`'s headline on the same files."""
    run = tmp_path / "run"
    rewards: dict[int, dict[str, float]] = {}
    for tid, d in _dirs(harbor_export).items():
        family = d.name.rsplit("-", 1)[0]
        root = tmp_path / "roots" / str(tid)
        out = root / "workspace" / "output"
        if kind == "gold":
            solved = run_script(d, "solution/solve.sh", root, avb_on_path)
            assert solved.returncode == 0, solved.stderr
        else:
            out.mkdir(parents=True)
            _outputs(demo.runs["broken"] / str(tid), family, out)
        proc = run_script(d, "tests/test.sh", root, avb_on_path)
        assert proc.returncode == 0, (tid, proc.stdout, proc.stderr)
        reward = json.loads((root / "logs" / "verifier" / "reward.json").read_text())
        assert all(isinstance(v, (int, float)) for v in reward.values()), reward
        result = json.loads((root / "logs" / "verifier" / "avb-result.json").read_text())
        assert reward["reward"] == result.get(HEADLINE[family], 0.0)
        rewards[tid] = reward
        (run / str(tid)).mkdir(parents=True)
        _outputs(out, family, run / str(tid))
    verify_run([run], dataset=str(demo.mirror), jobs=2)
    for r in iter_results(run):
        assert rewards[r.task_id]["reward"] == pytest.approx(r.headline_score, abs=1e-9), r.task_id
        if kind == "gold" and r.family != "recap":
            assert rewards[r.task_id]["reward"] == pytest.approx(1.0, abs=1e-5), r.task_id
        if kind == "broken":
            assert rewards[r.task_id]["reward"] < 0.05, r.task_id
