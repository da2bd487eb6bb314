"""The repair verifier end to end: combination, official JSON, statuses, malformed and missing inputs.

Most tests replace the edit rubric (`verifiers.repair.edit.score_edit`) with a recording fake, because they are
about format, localisation and plumbing, not about the (slow) edit measurement; the fake is injected through
`sys.modules` so these tests do not depend on the edit module's internals.
"""

from __future__ import annotations

import json
import shutil
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agenticvbench.dataset.tasks import RepairTask
from agenticvbench.errors import MediaError
from agenticvbench.runs.submission import Submission
from agenticvbench.verifiers import get_verifier
from agenticvbench.verifiers.base import VerifyContext
from agenticvbench.verifiers.repair import RepairVerifier, score_repair

GOLDEN_DIR = Path(__file__).parents[1] / "data" / "repair-edit"
PROFILE = json.loads((GOLDEN_DIR / "expected.json").read_text(encoding="utf-8"))["profile"]
VARIANT = "v01_frozen_scene"
SOURCE = GOLDEN_DIR / "source.mp4"
GOOD_REPORT = "# Report\n\n## Diagnosis\n- type: frozen\n- start: 0:08\n- end: 0:10\n"
OFFICIAL_KEYS = {
    "task_id",
    "cell",
    "variant",
    "format_score",
    "format_max",
    "localization_score",
    "localization_max",
    "edit_score",
    "edit_max",
    "final_score",
    "detail",
    "error",
}


@dataclass
class FakeEditResult:
    score: float
    detail: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


class FakeEdit:
    """Stands in for `score_edit`: records its calls, returns a fixed score or raises."""

    def __init__(self, score: float = 45.0, exc: Exception | None = None, warnings: list[str] | None = None):
        self.score, self.exc, self.warnings = score, exc, warnings or []
        self.calls: list[dict[str, Any]] = []

    def __call__(self, fixed: Path, source: Path, **kw: Any) -> FakeEditResult:
        self.calls.append({"fixed": fixed, "source": source, **kw})
        if self.exc is not None:
            raise self.exc
        detail = {
            "score": self.score,
            "max": 60.0,
            "window_s": list(kw["window"]) if kw["window"] else None,
            "chunks": [{"start_s": 0.0, "end_s": 10.0}],
        }
        return FakeEditResult(self.score, detail, list(self.warnings), {"decode_s": 0.5})


@pytest.fixture
def fake_edit(monkeypatch):
    def install(**kw: Any) -> FakeEdit:
        fake = FakeEdit(**kw)
        mod = types.ModuleType("agenticvbench.verifiers.repair.edit")
        mod.score_edit = fake  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "agenticvbench.verifiers.repair.edit", mod)
        return fake

    return install


def _report(tmp_path: Path, text: str | bytes = GOOD_REPORT) -> Path:
    p = tmp_path / "report.md"
    p.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return p


def _score(fixed, report, **kw):
    kw.setdefault("profile", PROFILE)
    kw.setdefault("variant", VARIANT)
    return score_repair(fixed, report, kw.pop("source", SOURCE), task_id=7, cell="demo/v1", **kw)


def test_combination_and_official_json(tmp_path, fake_edit):
    fake = fake_edit(score=45.0, warnings=["D-R6: tails unsampled"])
    out = _score(GOLDEN_DIR / "f_copy.mp4", _report(tmp_path), cache_dir=tmp_path / "c", workers=3)
    assert out.status == "scored" and out.reason == ""
    assert out.final_score == pytest.approx((5 * 1.0 + 35 * 1.0 + 60 * 0.75) / 100)
    assert out.adjusted_final_score is None
    assert out.components == {"format": 1.0, "localization": 1.0, "edit": 0.75}
    off = out.official
    assert set(off) == OFFICIAL_KEYS and off["task_id"] == "7" and off["error"] == ""
    assert (off["format_max"], off["localization_max"], off["edit_max"]) == (5.0, 35.0, 60.0)
    assert off["final_score"] == out.final_score and out.detail is off["detail"]
    assert out.detail["edit"]["chunks"] == [{"start_s": 0.0, "end_s": 10.0}]
    (call,) = fake.calls
    assert call["duration_s"] == 20.0 and call["window"] == (8.0, 10.0)
    assert (call["video_share"], call["audio_share"], call["w_in"], call["w_out"]) == (0.6, 0.4, 2.5, 1.0)
    assert call["cache_dir"] == tmp_path / "c" and call["workers"] == 3
    assert "D-R6: tails unsampled" in out.warnings and any(w.startswith("D-R11") for w in out.warnings)
    assert out.timings["edit_decode_s"] == 0.5


def test_missing_both_files_is_missing(tmp_path, fake_edit):
    fake = fake_edit()
    out = _score(tmp_path / "fixed.mp4", tmp_path / "report.md")
    assert out.status == "missing" and out.final_score == 0.0 and fake.calls == []
    assert "missing fixed.mp4 and report.md" in out.reason
    assert out.detail["localization"]["error"] == "missing report.md"
    assert out.detail["format"]["error"] == out.detail["edit"]["error"] == "missing fixed.mp4"


def test_missing_report_zeroes_only_localisation(tmp_path, fake_edit):
    fake_edit(score=60.0)
    out = _score(GOLDEN_DIR / "f_copy.mp4", None)
    assert out.status == "scored" and out.final_score == pytest.approx(0.65)
    assert out.detail["localization"]["error"] == "missing report.md" and "missing report.md" in out.reason


def test_missing_fixed_zeroes_format_and_edit(tmp_path, fake_edit):
    fake = fake_edit()
    out = _score(tmp_path / "fixed.mp4", _report(tmp_path))
    assert out.status == "scored" and fake.calls == []
    assert out.final_score == pytest.approx(0.35)
    assert out.detail["edit"] == {"score": 0.0, "max": 60.0, "error": "missing fixed.mp4"}
    assert out.detail["format"]["error"] == "missing fixed.mp4"


@pytest.mark.parametrize("content", [b"", b"\x13\x37not a video" * 50], ids=["zero-byte", "corrupt"])
def test_unreadable_fixed_scores_zero_for_format_and_edit(tmp_path, fake_edit, content):
    """The official scorer gives format 0 (ffprobe fails) and edit 0 (every chunk fails), not a crash.

    A file that cannot even be probed is not handed to the edit rubric at all."""
    fake = fake_edit()
    fixed = tmp_path / "fixed.mp4"
    fixed.write_bytes(content)
    out = _score(fixed, _report(tmp_path))
    assert out.status == "scored" and out.final_score == pytest.approx(0.35) and fake.calls == []
    assert out.detail["edit"]["score"] == 0.0 and "cannot probe fixed.mp4" in out.detail["edit"]["error"]
    assert "format:" in out.reason and "edit:" in out.reason


def test_fixed_without_audio(tmp_path, fake_edit):
    """D-R8: no audio stream fails every edit chunk upstream (edit 0); format loses 2 of 7 items."""
    fake_edit(exc=MediaError("no audio stream"))
    out = _score(GOLDEN_DIR / "f_noaudio.mp4", _report(tmp_path))
    assert out.detail["format"]["score"] == pytest.approx(25 / 7)
    assert out.detail["edit"]["score"] == 0.0
    assert any(w.startswith("D-R8") for w in out.warnings)
    assert out.final_score == pytest.approx((5 * (5 / 7) + 35) / 100)


def test_edit_media_error_is_edit_zero(tmp_path, fake_edit):
    fake_edit(exc=MediaError("decode failed at frame 12"))
    out = _score(GOLDEN_DIR / "f_copy.mp4", _report(tmp_path))
    assert out.status == "scored" and out.detail["edit"]["score"] == 0.0
    assert "decode failed" in out.detail["edit"]["error"] and out.final_score == pytest.approx(0.40)


def test_d_r8_note_not_duplicated_when_edit_reports_it(tmp_path, fake_edit):
    fake_edit(score=0.0, warnings=["D-R8: from edit"])
    out = _score(GOLDEN_DIR / "f_noaudio.mp4", _report(tmp_path))
    assert [w for w in out.warnings if w.startswith("D-R8")] == ["D-R8: from edit"]


@pytest.mark.parametrize(
    "data",
    [GOOD_REPORT.encode("utf-16"), "- note: \u00e9t\u00e9\n- start: 8\n- end: 10\n".encode("latin-1")],
    ids=["utf-16", "latin-1"],
)
def test_non_utf8_report_is_scored_like_upstream(tmp_path, fake_edit, data):
    """The official scorer reads report.md as UTF-8 with undecodable bytes replaced and scores the task: so do we
    (status scored, the edit rubric runs), with a warning naming the encoding problem."""
    fake = fake_edit()
    out = _score(GOLDEN_DIR / "f_copy.mp4", _report(tmp_path, data))
    assert out.status == "scored" and len(fake.calls) == 1
    assert any("not valid UTF-8" in w for w in out.warnings)


def test_report_warnings_reach_the_outcome(tmp_path, fake_edit):
    fake_edit()
    out = _score(GOLDEN_DIR / "f_copy.mp4", _report(tmp_path, "- start: 8s\n- end: 10s\n"))
    assert out.components["localization"] == 0.0
    assert sum(w.startswith("D-R9") for w in out.warnings) == 2
    assert out.extra["localization_parse"]["rule"] == "first start/end in the file"


@pytest.mark.parametrize(
    ("profile", "variant", "needle"),
    [
        ({**PROFILE, "format": {}}, VARIANT, "profile.format.duration_s"),
        (PROFILE, "v42_unknown", "unknown repair variant"),
        ({k: v for k, v in PROFILE.items() if k != "narrative"}, VARIANT, "profile.narrative"),
        # regressions: these raised TypeError (windows not iterable) or hung the edit chunk planner (huge duration)
        (
            {**PROFILE, "injection": {**PROFILE["injection"], "windows": 5}},
            VARIANT,
            "profile.injection.windows",
        ),
        (
            {**PROFILE, "format": {**PROFILE["format"], "duration_s": 1e300}},
            VARIANT,
            "profile.format.duration_s",
        ),
    ],
)
def test_bad_profile_is_malformed(tmp_path, fake_edit, profile, variant, needle):
    fake = fake_edit()
    out = _score(GOLDEN_DIR / "f_copy.mp4", _report(tmp_path), profile=profile, variant=variant)
    assert out.status == "malformed" and out.final_score == 0.0 and needle in out.reason
    assert fake.calls == [] and out.official["error"]


def test_missing_source_gives_official_zeros(tmp_path, fake_edit):
    fake = fake_edit()
    out = _score(GOLDEN_DIR / "f_copy.mp4", _report(tmp_path), source=tmp_path / "nope.mp4")
    assert out.status == "scored" and fake.calls == [] and out.final_score == pytest.approx(0.35)
    assert out.detail["edit"]["error"] == "missing source.mp4"


def test_unexpected_edit_failure_propagates(tmp_path, fake_edit):
    """D-R1: a broken metric library must become an engine `error`, never a silent edit 0."""
    fake_edit(exc=ImportError("No module named 'skimage'"))
    with pytest.raises(ImportError):
        _score(GOLDEN_DIR / "f_copy.mp4", _report(tmp_path))


class _Task(RepairTask):
    def verifier_references(self, *, progress: bool = False) -> list[Path]:
        if self.verifier_reference_urls is None:
            raise AssertionError("source fetched although it was not needed")
        return [Path(u) for u in self.verifier_reference_urls]


def _task(source: Path | None) -> _Task:
    return _Task(
        task_id=70,
        prompt="",
        reference_file_urls=[],
        rubric_json='{"cell": "demo/v1"}',
        verifier_reference_urls=None if source is None else [str(source.with_suffix(".json")), str(source)],
        cell="demo/v1",
        variant=VARIANT,
        profile=PROFILE,
    )


def test_registered_verifier(tmp_path, fake_edit):
    fake = fake_edit(score=60.0)
    v = get_verifier("repair")
    assert isinstance(v, RepairVerifier) and v.family == "repair" and v.version
    folder = tmp_path / "70"
    folder.mkdir()
    shutil.copy(GOLDEN_DIR / "f_copy.mp4", folder / "fixed.mp4")
    _report(folder)
    sub = Submission(70, folder)
    task = _task(SOURCE)
    assert v.input_files(task, sub) == [folder / "fixed.mp4", folder / "report.md", SOURCE]
    out = v.verify(task, sub, VerifyContext(cache_dir=tmp_path / "cache", threads=4))
    assert out.status == "scored" and out.final_score == pytest.approx(1.0)
    assert out.official["task_id"] == "70" and out.official["cell"] == "demo/v1"
    assert fake.calls[0]["cache_dir"] == tmp_path / "cache" / "repair-edit" and fake.calls[0]["workers"] == 4


def test_verifier_missing_submission_needs_no_source(tmp_path, fake_edit):
    fake_edit()
    out = get_verifier("repair").verify(
        _task(None), Submission(70, tmp_path), VerifyContext(cache_dir=tmp_path)
    )
    assert out.status == "missing" and out.final_score == 0.0


def test_verifier_broken_source_raises(tmp_path, fake_edit):
    """A corrupt verifier reference is the dataset's fault: the engine must report `error`, not score 0."""
    fake_edit()
    bad = tmp_path / "src.mp4"
    bad.write_bytes(b"nope")
    folder = tmp_path / "70"
    folder.mkdir()
    _report(folder)
    with pytest.raises(MediaError):
        get_verifier("repair").verify(_task(bad), Submission(70, folder), VerifyContext(cache_dir=tmp_path))


# --- the real edit rubric: the only media-heavy tests here (about 10 s each on a busy 2-core box) ---


@pytest.mark.parametrize(
    ("name", "edit_of_60", "fmt_of_5"),
    [
        ("f_copy.mp4", 59.99985231497116, 5.0),
        ("f_noaudio.mp4", 0.0, 25 / 7),
    ],
)
@pytest.mark.slow
def test_real_end_to_end_against_golden(tmp_path, name, edit_of_60, fmt_of_5):
    """Official numbers from tests/data/repair-edit/expected.json (default shares, window [8, 10]).

    The no-audio file reproduces D-R8: every edit chunk fails upstream, so edit is exactly 0 and a warning says so.
    """
    out = _score(GOLDEN_DIR / name, _report(tmp_path), cache_dir=tmp_path / "cache", workers=2)
    assert out.status == "scored"
    assert out.detail["format"]["score"] == fmt_of_5 and out.components["localization"] == 1.0
    expected_final = (fmt_of_5 + 35.0 + edit_of_60) / 100
    assert abs(out.final_score - expected_final) <= 0.005
    assert abs(out.detail["edit"]["score"] - edit_of_60) <= 0.3  # 0.005 of the 0..1 final
    if edit_of_60 == 0.0:
        assert out.detail["edit"]["score"] == 0.0 and any(w.startswith("D-R8") for w in out.warnings)
