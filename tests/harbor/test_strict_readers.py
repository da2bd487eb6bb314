"""One strict reader per Harbor file (`agenticvbench/harbor/files.py`): every number in a job directory is
unproven, so NaN, Infinity, a string where a number belongs, an out-of-range reward, a 6 MB string or a name that
collides with another agent's must each end as a note or a refused value, never a traceback, a half-made run
folder, another agent's deleted trials or an average of 1e6 and -3."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_checkjob import _lock
from test_import import _trial, job  # noqa: F401  (the fixture)

from agenticvbench.cli.main import main
from agenticvbench.harbor import importer
from agenticvbench.harbor.checkjob import check_jobs
from agenticvbench.harbor.importer import import_jobs
from agenticvbench.harbor.metric import job_metrics
from agenticvbench.runs.submission import RUN_JSON_MAX_BYTES, read_run_json

REP1 = "nightly__codex__openai_gpt-5__rep1"


def _edit_result(trial: Path, **agent_result: object) -> dict:
    path = trial / "result.json"
    data = json.loads(path.read_text())
    data.setdefault("agent_result", {}).update(agent_result)
    path.write_text(json.dumps(data))  # json.dumps writes NaN and Infinity as Harbor's JSON parser accepts
    return data


def _strict(path: Path) -> dict:
    """Parse JSON refusing NaN and Infinity (what every other JSON reader does)."""

    def refuse(name: str) -> None:
        raise AssertionError(f"{path}: {name} in the JSON")

    return json.loads(path.read_text(), parse_constant=refuse)


def test_nan_and_infinity_in_result_json_are_dropped_with_a_note(job, tmp_path, capsys):  # noqa: F811
    """Regression: NaN or Infinity in a trial's result.json crashed the import with a traceback (ValueError from
    the strict JSON writer) and left a half-made run folder. The field is dropped with a note naming the trial and
    the field, run.json is strict JSON, and the command exits 0."""
    _edit_result(job / "sequencing-037__a", n_input_tokens=float("nan"), cost_usd=float("inf"))
    out = tmp_path / "runs"
    assert main(["import", "harbor", str(job), "--out", str(out)]) == 0
    meta = _strict(out / REP1 / "run.json")
    note = meta["notes"]["37"]
    assert "sequencing-037__a/result.json: field agent_result.n_input_tokens is nan" in note
    assert "agent_result.cost_usd is inf" in note
    assert sorted(p.name for p in out.iterdir()) == [REP1, "nightly__codex__openai_gpt-5__rep2"]


def test_an_import_that_cannot_finish_leaves_nothing(job, tmp_path, monkeypatch):  # noqa: F811
    """Regression: a failure while writing (here a full disk on the second run's run.json) left the first run
    folder, and the second one half-made. Runs are built in a staging folder and moved in at the end: nothing
    is left under --out, not even the staging folder."""
    calls = []
    real = importer.atomic_write_json

    def full_disk(path, obj):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(path, obj)

    monkeypatch.setattr(importer, "atomic_write_json", full_disk)
    out = tmp_path / "runs"
    with pytest.raises(OSError):
        import_jobs([job], out)
    assert list(out.iterdir()) == []


def test_colliding_agent_names_get_separate_folders_and_force_keeps_the_other(job, tmp_path):  # noqa: F811
    """Regression: agents `team/agent` and `team_agent` mapped to one run folder, and `--force` deleted the
    first agent's trials. Each identity gets its own folder, and re-importing one agent with --force never
    touches the other's."""
    other = tmp_path / "job-b"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"job_name": "nightly"}))
    _trial(other, "sequencing-037__x", "sequencing-037", agent="team/agent", outputs={"a.json": b"{}"})
    _trial(other, "sequencing-037__y", "sequencing-037", agent="team_agent", outputs={"b.json": b"{}"})
    out = tmp_path / "runs"
    s = import_jobs([other], out)
    assert len(s.runs) == 2 and len({p.name for p in s.runs}) == 2
    owners = {read_run_json(p / "run.json")[0].harness: p for p in s.runs}
    assert set(owners) == {"team/agent", "team_agent"}
    assert (owners["team/agent"] / "37" / "a.json").is_file()
    assert (owners["team_agent"] / "37" / "b.json").is_file()
    # a later job of team_agent alone, forced: team/agent's folder and trials stay
    (other / "sequencing-037__x" / "result.json").unlink()
    again = import_jobs([other], out, force=True)
    assert [read_run_json(p / "run.json")[0].harness for p in again.runs] == ["team_agent"]
    assert (owners["team/agent"] / "37" / "a.json").is_file()
    assert read_run_json(owners["team/agent"] / "run.json")[0].harness == "team/agent"


def test_a_6mb_string_cannot_push_run_json_past_its_cap(job, tmp_path):  # noqa: F811
    """Regression: a 6 MB cost string was copied into run.json, which then exceeded its own 5 MB cap, so the run
    lost its harness, model and rep. Strings are cut when read (with a note) and run.json is kept under the cap."""
    _edit_result(job / "sequencing-037__a", cost_usd="9" * 6_000_000)
    import_jobs([job], tmp_path / "runs")
    path = tmp_path / "runs" / REP1 / "run.json"
    assert path.stat().st_size < RUN_JSON_MAX_BYTES
    meta, notes = read_run_json(path)
    assert (meta.harness, meta.model, meta.rep) == ("codex", "openai/gpt-5", 1), notes
    assert "agent_result.cost_usd is 6000000 characters" in _strict(path)["notes"]["37"]


def test_run_json_budget_drops_bulk_parts_not_the_identity(job, tmp_path, monkeypatch):  # noqa: F811
    """However much the trials carry, run.json stays under its budget: usage and trajectories go first (listed
    under harbor.trimmed), the identity stays."""
    monkeypatch.setattr(importer, "RUN_JSON_BUDGET", 2500)
    import_jobs([job], tmp_path / "runs")
    path = tmp_path / "runs" / REP1 / "run.json"
    assert path.stat().st_size <= 2600  # indent/newline of the written file
    data = _strict(path)
    assert data["usage"] == {} and any("usage left out" in t for t in data["harbor"]["trimmed"])
    assert (data["harness"], data["rep"]) == ("codex", 1)


def test_a_sparse_output_over_verifys_media_cap_is_not_copied(job, tmp_path):  # noqa: F811
    """Regression: a 5 GiB sparse output was copied until the disk was full (the import's cap was 64 GiB, while
    `avb verify` caps media at 4 GiB). The cap of verify applies, checked by size before copying."""
    out_dir = job / "sequencing-037__a" / "artifacts" / "workspace" / "output"
    with open(out_dir / "solution.mp4", "wb") as fh:
        fh.truncate(5 * 1024**3)
    import_jobs([job], tmp_path / "runs")
    rep1 = tmp_path / "runs" / REP1
    assert not (rep1 / "37" / "solution.mp4").exists() and (rep1 / "37" / "solution.json").is_file()
    note = _strict(rep1 / "run.json")["notes"]["37"]
    assert "solution.mp4" in note and f"over the {4096 * 1024**2} byte limit" in note


@pytest.mark.parametrize("value", ["4.0", float("nan"), True, [1]])
def test_a_multiplier_that_is_not_a_number_is_not_comparable(job, value):  # noqa: F811
    """Regression: `"timeout_multiplier": "4.0"` (a string) was skipped as not a number, so the job was called
    comparable; a multiplier must be a number to be known to be 1."""
    _lock(job, timeout_multiplier=value)
    (c,) = check_jobs([job])
    assert not c.comparable and any("timeout_multiplier" in p for p in c.problems), c.problems


def test_rewards_outside_0_1_make_the_trial_invalid_in_the_metric(job, capsys):  # noqa: F811
    """Regression: `avb harbor metric` averaged rewards of 1e6 and -3 into 499998.5, and printed an agent
    name's newline raw. Such a trial is invalid: its cell counts 0, it is listed, and every name is one line."""
    for name, reward in (("sequencing-037__a", 1e6), ("sequencing-037__b", -3)):
        path = job / name / "result.json"
        data = json.loads(path.read_text())
        data["verifier_result"]["rewards"]["reward"] = reward
        data["agent_info"]["name"] = "codex\nforged\tline"
        path.write_text(json.dumps(data))
    groups, _ = job_metrics([job])
    (g,) = [g for g in groups if g.agent != "codex"]
    assert g.families["sequencing"] == 0.0 and len(g.invalid) == 2
    assert any("outside [0, 1]" in i for i in g.invalid)
    assert main(["harbor", "metric", str(job)]) == 0
    out = capsys.readouterr().out
    assert "forged" not in [line.split("\t")[0] for line in out.splitlines()]
    assert "codex\\nforged\\tline" in out and "499998" not in out
    assert all(not line.startswith(("forged", "line")) for line in out.splitlines())


def test_staging_folder_never_remains_after_a_refused_import(job, tmp_path):  # noqa: F811
    """A run folder that exists without --force refuses the import before anything is moved in."""
    out = tmp_path / "runs"
    import_jobs([job], out)
    before = sorted(os.listdir(out))
    assert main(["import", "harbor", str(job), "--out", str(out)]) == 3
    assert sorted(os.listdir(out)) == before


def test_a_reward_just_past_1_is_shown_as_written() -> None:
    """A reward of 1.0000000001 is invalid, and the note used to print it with `:g` as "reward 1 is outside
    [0, 1]", a contradiction in one line; it now shows the value as written."""
    from agenticvbench.harbor.files import TrialResult

    data = {"verifier_result": {"rewards": {"reward": 1.0000000001}}}
    result = TrialResult.from_json("t", data)
    assert result.reward is None
    assert any("reward 1.0000000001 is outside [0, 1]" in n for n in result.notes), result.notes
