"""Repair end to end on odd but real media: a 1-frame fixed.mp4 and one at another frame rate and size.

Neither may crash; each gets the official treatment (format items fail where the stream differs, edit scores
what it can and says why in warnings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenticvbench.media import probe, run_ffmpeg
from agenticvbench.verifiers.repair import score_repair

PROFILE = {
    "format": {"duration_s": 4.0},
    "injection": {"variant": "v04_color_grade_shift", "start_s": 1.0, "end_s": 2.0, "target_scene_index": 0},
    "narrative": {"scene_list": [{"index": 0, "start_s": 0.0, "end_s": 4.0}]},
}
REPORT = "## Diagnosis\n- type: colour\n- start: 1.0\n- end: 2.0\n"


def _encode(out: Path, *, seconds: float, size: str, rate: int, frames: int | None = None) -> Path:
    args = [
        "-y",
        "-f",
        "lavfi",
        "-i",
        f"testsrc2=size={size}:rate={rate}:duration={seconds}",
        "-f",
        "lavfi",
        "-i",
        f"sine=frequency=330:sample_rate=48000:duration={seconds}",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        "-ar",
        "48000",
        "-ac",
        "2",
        "-shortest",
    ]
    if frames is not None:
        args += ["-frames:v", str(frames)]
    run_ffmpeg([*args, str(out)], check=True)
    return out


@pytest.fixture(scope="module")
def media(tmp_path_factory):
    d = tmp_path_factory.mktemp("repair-edge")
    return {
        "source": _encode(d / "source.mp4", seconds=4, size="96x54", rate=24),
        "one_frame": _encode(d / "one.mp4", seconds=4, size="96x54", rate=24, frames=1),
        "other": _encode(d / "other.mp4", seconds=4, size="64x36", rate=30),
        "report": (d / "report.md", (d / "report.md").write_text(REPORT))[0],
    }


def _score(media, fixed: Path, tmp_path: Path):
    return score_repair(
        fixed,
        media["report"],
        media["source"],
        profile=PROFILE,
        variant="v04_color_grade_shift",
        task_id=65,
        cell="demo/edge",
        cache_dir=tmp_path,
        workers=1,
    )


@pytest.mark.slow
def test_one_frame_fix_is_scored_not_crashed(media, tmp_path):
    assert probe(media["one_frame"]).video.nb_frames in (1, None)
    out = _score(media, media["one_frame"], tmp_path)
    assert out.status == "scored" and 0.0 <= out.final_score <= 1.0
    assert out.components["localization"] == 1.0
    assert out.detail["format"]["items"]["resolution"]["pass"] is True
    assert any(w.startswith("D-R7") for w in out.warnings), out.warnings


def test_other_size_and_rate_fails_those_format_items_only(media, tmp_path):
    out = _score(media, media["other"], tmp_path)
    items = out.detail["format"]["items"]
    assert items["resolution"]["pass"] is False and items["fps"]["pass"] is False
    assert items["video_codec"]["pass"] is True and items["audio_sample_rate"]["pass"] is True
    assert out.status == "scored" and out.components["format"] == pytest.approx(5 / 7)
    edit = out.detail["edit"]
    # audio is the same tone: full audio budget (v04: 0.1 of 60). Video matches frame *indices* within +/-10
    # (official rule), so a 30-fps fix of a 24-fps source drifts out of the band: little video credit.
    assert edit["audio"]["sub"] == pytest.approx(6.0, abs=0.05)
    assert edit["video"]["sub"] < 54.0 * 0.5
