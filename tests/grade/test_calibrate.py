"""`avb judge agree --write-calibration` (`agenticvbench.grade.calibrate`) and the per-modality breakdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from calibration_fixtures import write_graded

from agenticvbench.cli.main import main
from agenticvbench.grade.calibrate import calibration_record
from agenticvbench.judge.calibration import read_records


def _agree(capsys: pytest.CaptureFixture[str], cache: Path, *args: str) -> dict:
    capsys.readouterr()
    code = main(["judge", "agree", *args, "--cache-dir", str(cache), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def test_agree_breaks_down_by_modality_with_intervals(tmp_path: Path, capsys) -> None:
    """The agreement report gains a per-modality block (the route the cached verdict records), with kappa and its
    interval, whose n add up to the overall n; the text output prints it too."""
    write_graded(tmp_path, {"visual": 60, "audio": 20})
    pair = _agree(capsys, tmp_path, "human:alice", "model:m1")["pairs"][0]
    mods = pair["modalities"]
    assert set(mods) == {"visual", "audio"}
    assert mods["visual"]["n"] + mods["audio"]["n"] == pair["overall"]["n"] == 80
    assert mods["visual"]["kappa_ci95"] is not None
    assert main(["judge", "agree", "human:alice", "model:m1", "--cache-dir", str(tmp_path)]) == 0
    assert "modality visual: n=60" in capsys.readouterr().out


def test_write_calibration_passes_only_modalities_with_enough_items(tmp_path: Path, capsys) -> None:
    """A judge that agrees with the graders on 150 visual items is calibrated for visual; its 30 audio items are
    too few, so audio is not; the record lands in <cache>/calibration/ under the judge identity."""
    write_graded(tmp_path, {"visual": 150, "audio": 30}, graders=("alice", "bob"))
    report = _agree(capsys, tmp_path, "human:alice", "human:bob", "model:m1", "--write-calibration")
    rec = report["calibration"]
    assert rec["passed"] == {"visual": True, "audio": False, "audio_visual": False, "video": False}
    assert rec["identity"]["model"] == "m1" and rec["identity"]["profile"] == "legacy"
    assert rec["modalities"]["visual"]["n"] == 150 and rec["graders"] == ["alice", "bob"]
    records, notes = read_records(tmp_path)
    assert notes == [] and list(records) == [rec["identity_key"]]
    assert Path(rec["path"]).is_file()
    code = main(
        ["judge", "agree", "human:alice", "model:m1", "--write-calibration", "--cache-dir", str(tmp_path)]
    )
    assert code == 0 and "visual: n=150" in capsys.readouterr().out


def test_write_calibration_needs_one_model_and_one_profile(tmp_path: Path, capsys) -> None:
    """Two human sources and no model, or a model whose cached verdicts use two profiles without --profile, are
    usage errors (exit 2); --profile picks one, and verdicts of the other profile do not count."""
    write_graded(tmp_path, {"visual": 10})
    write_graded(tmp_path, {"visual": 5}, profile="violation", seed=1, start=10)
    assert (
        main(
            [
                "judge",
                "agree",
                "human:alice",
                "human:alice",
                "--write-calibration",
                "--cache-dir",
                str(tmp_path),
            ]
        )
        == 2
    )
    assert (
        main(
            ["judge", "agree", "human:alice", "model:m1", "--write-calibration", "--cache-dir", str(tmp_path)]
        )
        == 2
    )
    assert "--profile" in capsys.readouterr().err
    rec = calibration_record(tmp_path, ["alice"], "m1", "violation")
    assert rec.identity.profile == "violation" and rec.overall.n == 5


def test_stale_template_verdicts_do_not_calibrate(tmp_path: Path) -> None:
    """Cached verdicts written under an older prompt template are another judge: they are left out."""
    write_graded(tmp_path, {"visual": 10})
    for f in (tmp_path / "judge").rglob("*.json"):
        data = json.loads(f.read_text())
        data["template_version"] = "recap-judge-v0"
        f.write_text(json.dumps(data))
    assert calibration_record(tmp_path, ["alice"], "m1").overall.n == 0
