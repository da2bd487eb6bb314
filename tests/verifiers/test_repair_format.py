"""The repair format rubric: 7 probed items of fixed.mp4 against the real source file (5 points)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenticvbench.media import run_ffmpeg
from agenticvbench.verifiers.repair import format as fmt
from agenticvbench.verifiers.repair.format import ITEMS, score_format, tolerances

GOLDEN_DIR = Path(__file__).parents[1] / "data" / "repair-edit"
EXPECTED = json.loads((GOLDEN_DIR / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", EXPECTED["cases"], ids=[c["fixed"] for c in EXPECTED["cases"]])
def test_golden_format_vectors(case):
    res = score_format(GOLDEN_DIR / case["fixed"], GOLDEN_DIR / "source.mp4")
    assert res.score == case["format_score_of_5"]
    assert {k: v["pass"] for k, v in res.detail["items"].items()} == case["format_items_passed"]
    assert res.detail["max"] == 5.0 and "error" not in res.detail


def _clip(
    path: Path,
    *,
    size: str = "64x36",
    rate: int = 25,
    dur: float = 1.0,
    acodec: str | None = "aac",
    sr: int = 48000,
) -> Path:
    args = ["-y", "-f", "lavfi", "-i", f"testsrc=size={size}:rate={rate}:duration={dur}"]
    if acodec:
        args += ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={sr}:duration={dur}", "-c:a", acodec]
    args += ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25", str(path)]
    run_ffmpeg(args, check=True)
    return path


@pytest.fixture(scope="session")
def clips(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("format-clips")
    return {
        "source": _clip(d / "source.mp4"),
        "same": _clip(d / "same.mp4"),
        "opus": _clip(d / "opus.mp4", acodec="libopus"),
        "sr44": _clip(d / "sr44.mp4", sr=44100),
        "small": _clip(d / "small.mp4", size="32x18"),
        "fps30": _clip(d / "fps30.mp4", rate=30),
        "long": _clip(d / "long.mp4", dur=2.0),
        "mkv": _clip(d / "clip.mkv"),
        "noaudio": _clip(d / "noaudio.mp4", acodec=None),
    }


@pytest.mark.parametrize(
    ("name", "failing"),
    [
        ("same", set()),
        ("opus", {"audio_codec"}),
        ("sr44", {"audio_sample_rate"}),
        ("small", {"resolution"}),
        ("fps30", {"fps"}),
        ("long", {"duration_s"}),
        ("mkv", {"container"}),
        ("noaudio", {"audio_codec", "audio_sample_rate"}),
    ],
)
@pytest.mark.slow
def test_each_item_fails_alone(clips, name, failing):
    res = score_format(clips[name], clips["source"])
    failed = {k for k, v in res.detail["items"].items() if not v["pass"]}
    assert failed == failing
    assert res.score == 5.0 * (7 - len(failing)) / 7


def test_missing_fixed(tmp_path, clips):
    res = score_format(tmp_path / "fixed.mp4", clips["source"])
    assert res.score == 0.0 and res.detail["error"] == "missing fixed.mp4"
    assert score_format(None, clips["source"]).detail["error"] == "missing fixed.mp4"


@pytest.mark.parametrize("content", [b"", b"\x00\x01garbage" * 100], ids=["zero-byte", "corrupt"])
def test_unprobeable_fixed_fails_every_item(tmp_path, clips, content):
    bad = tmp_path / "fixed.mp4"
    bad.write_bytes(content)
    res = score_format(bad, clips["source"])
    assert res.score == 0.0 and "cannot probe fixed.mp4" in res.detail["error"]
    assert set(res.detail["items"]) == set(ITEMS) and not any(v["pass"] for v in res.detail["items"].values())


def test_missing_source_fails_every_item(tmp_path, clips):
    res = score_format(clips["same"], tmp_path / "nope.mp4")
    assert res.score == 0.0 and res.detail["error"] == "missing source.mp4"


def test_default_tolerances():
    assert tolerances("v1_source") == {"duration_s": 0.05, "fps": 0.02}


def test_per_source_tolerance_is_keyed_by_file_stem(monkeypatch, clips):
    """D-R13: the override map is keyed by the --source-mp4 file stem, so renaming the file changes tolerances."""
    monkeypatch.setattr(
        fmt,
        "_config",
        lambda: {"default": {"duration_s": 0.05, "fps": 0.02}, "per_source": {"source": {"duration_s": 2.0}}},
    )
    assert score_format(clips["long"], clips["source"]).score == 5.0
    assert score_format(clips["long"], clips["same"]).score == 5.0 * 6 / 7
