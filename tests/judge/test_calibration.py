"""Calibration records (`agenticvbench.judge.calibration`): the gate's rule, the file round trip, and hostile files."""

from __future__ import annotations

import json
from pathlib import Path

from agenticvbench.judge.calibration import (
    CALIBRATION_DIRNAME,
    KAPPA_LOWER,
    MIN_ITEMS,
    AgreementStats,
    CalibrationRecord,
    JudgeIdentity,
    gate_reason,
    read_records,
    write_record,
)

IDENT = JudgeIdentity(model="m1", profile="legacy", prompt_hash="a" * 64)


def _record(n: int = MIN_ITEMS, low: float = 0.7) -> CalibrationRecord:
    stats = AgreementStats(n=n, agreement=0.9, kappa=0.8, kappa_ci95=(low, 0.9))
    return CalibrationRecord(
        identity=IDENT, graders=("alice",), overall=stats, modalities={"visual": stats}, created="2026-01-01"
    )


def test_gate_needs_enough_items_and_a_high_lower_bound() -> None:
    """The documented threshold: n >= MIN_ITEMS and kappa's 95% lower bound >= KAPPA_LOWER; each failure says
    which condition failed, and an undefined kappa or no items never passes."""
    ok = AgreementStats(n=MIN_ITEMS, kappa=0.8, kappa_ci95=(KAPPA_LOWER, 0.9))
    assert gate_reason(ok, kappa_lower=KAPPA_LOWER, min_items=MIN_ITEMS) == ""
    few = AgreementStats(n=MIN_ITEMS - 1, kappa=0.9, kappa_ci95=(0.8, 0.95))
    assert "< 120" in gate_reason(few, kappa_lower=KAPPA_LOWER, min_items=MIN_ITEMS)
    low = AgreementStats(n=500, kappa=0.7, kappa_ci95=(0.59, 0.8))
    assert "lower bound 0.590" in gate_reason(low, kappa_lower=KAPPA_LOWER, min_items=MIN_ITEMS)
    assert "undefined" in gate_reason(AgreementStats(n=500), kappa_lower=0.6, min_items=1)
    assert gate_reason(None, kappa_lower=0.6, min_items=1) == "no human-graded items"


def test_record_round_trip_and_per_modality_pass(tmp_path: Path) -> None:
    """A written record reads back equal, under its identity's key; a modality it has no items for fails."""
    rec = _record()
    path = write_record(tmp_path, rec)
    assert path == tmp_path / CALIBRATION_DIRNAME / f"{IDENT.key}.json"
    records, notes = read_records(tmp_path)
    assert notes == [] and records == {IDENT.key: rec}
    assert rec.passed() == {"visual": True, "audio": False, "audio_visual": False, "video": False}
    assert json.loads(path.read_text())["passed"]["visual"] is True


def test_hostile_records_are_named_not_fatal(tmp_path: Path) -> None:
    """Torn JSON, a field of the wrong type, a NaN kappa or a record filed under another judge's key are no
    record: each is named in a note and the good record is still read."""
    good = write_record(tmp_path, _record())
    folder = good.parent
    (folder / "torn.json").write_text('{"schema": 1, "identity": {', encoding="utf-8")
    bad = json.loads(good.read_text())
    bad["overall"]["n"] = "many"
    (folder / "badfield.json").write_text(json.dumps(bad), encoding="utf-8")
    nan = json.loads(good.read_text())
    nan["modalities"]["visual"]["kappa"] = float("nan")
    (folder / "nan.json").write_text(json.dumps(nan), encoding="utf-8")
    (folder / ("b" * 64 + ".json")).write_text(good.read_text(), encoding="utf-8")  # renamed copy
    records, notes = read_records(tmp_path)
    assert list(records) == [IDENT.key]
    assert len(notes) == 4 and all("not a calibration record" in n for n in notes)
    assert any("overall.n" in n for n in notes) and any("file name" in n for n in notes)


def test_no_folder_is_no_record(tmp_path: Path) -> None:
    """A cache without calibration/ (the usual case) reads as no records and no notes."""
    assert read_records(tmp_path / "nowhere") == ({}, [])


def test_impossible_numbers_and_symlinks_are_no_record(tmp_path: Path) -> None:
    """A reversed interval used to pass (the gate reads its first end), as did n = 1e9 and a record that is a
    symlink to a file elsewhere: numbers no agreement computation yields, and a link, are refused by name."""
    good = write_record(tmp_path, _record())
    folder = good.parent
    honest = json.loads(good.read_text())

    def crafted(name: str, **visual: object) -> None:
        rec = json.loads(json.dumps(honest))
        rec["modalities"]["visual"].update(visual)
        (folder / name).write_text(json.dumps(rec), encoding="utf-8")

    cases = {
        "reversed": {"kappa_ci95": [0.99, -1.0]},
        "outside": {"kappa": 0.95, "kappa_ci95": [0.7, 0.9]},
        "beyond": {"kappa_ci95": [0.7, 1.5]},
        "float_n": {"n": 1e9},
        "huge_n": {"n": 10**12},
        "negative_n": {"n": -1},
    }
    for name, visual in cases.items():
        crafted(f"{name}.json", **visual)
    good.unlink()
    crafted("real.json")
    (folder / f"{IDENT.key}.json").symlink_to(folder / "real.json")
    records, notes = read_records(tmp_path)
    assert records == {}
    assert len(notes) == len(cases) + 2  # and real.json: filed under a name that is not its key
    text = "\n".join(notes)
    assert "[0.99, -1.0] is not ordered" in text and "does not contain kappa 0.95" in text
    assert "out of range" in text and text.count("not a whole number") == 3
    assert "a symbolic link, not read" in text


def test_interval_holding_kappa_at_its_ends_is_a_record(tmp_path: Path) -> None:
    """The checks refuse only the impossible: an interval of one point equal to kappa (perfect agreement) and
    a modality of zero items, both what `avb judge agree` writes, read back."""
    stats = AgreementStats(n=MIN_ITEMS, agreement=1.0, kappa=1.0, kappa_ci95=(1.0, 1.0))
    rec = CalibrationRecord(
        identity=IDENT,
        graders=("alice",),
        overall=stats,
        modalities={"visual": stats, "audio": AgreementStats(n=0)},
    )
    write_record(tmp_path, rec)
    assert read_records(tmp_path) == ({IDENT.key: rec}, [])
