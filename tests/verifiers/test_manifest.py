"""The shared solution.json reader: every malformed shape is a clean outcome, never an exception."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from agenticvbench.media import run_ffmpeg
from agenticvbench.verifiers.manifest import (
    MAX_MANIFEST_BYTES,
    interval_length,
    loose_clip_id,
    manifest_end,
    read_manifest,
    video_consistency,
    within,
)


def _write(tmp_path: Path, content: str | bytes) -> Path:
    p = tmp_path / "solution.json"
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


def test_ok_manifest_returns_segments(tmp_path: Path) -> None:
    p = _write(tmp_path, json.dumps({"segments": [{"source": "1"}, {"source": 2}], "_comment": "x"}))
    read = read_manifest(p)
    assert read.ok and read.status == "ok" and read.error == "" and not read.crashes_official
    assert read.segments == [{"source": "1"}, {"source": 2}]


def test_missing_file_official_text() -> None:
    read = read_manifest(Path("/nonexistent/solution.json"))
    assert read.status == "missing"
    assert read.error == "solution.json not found at /nonexistent/solution.json"


def test_missing_file_none_uses_expected_path() -> None:
    read = read_manifest(None, expected="/run/37/solution.json")
    assert read.status == "missing" and read.error == "solution.json not found at /run/37/solution.json"


def test_directory_is_not_a_manifest(tmp_path: Path) -> None:
    d = tmp_path / "solution.json"
    d.mkdir()
    assert read_manifest(d).status == "missing"


@pytest.mark.parametrize(
    ("content", "needle", "crashes"),
    [
        ("[1, 2]", "top level is a list", True),
        ('"text"', "top level is a str", True),
        ("42", "top level is an int", True),
        ("null", "top level is null", True),
        (
            '{"segments": [{"source": "1"}, {"source": "2"}, "3"]}',
            "segments[2] is a str, expected an object",
            True,
        ),
        ('{"segments": [[1, 2]]}', "segments[0] is a list, expected an object", True),
        ('{"segments": [null]}', "segments[0] is null, expected an object", True),
        ('{"clips": []}', "solution.json: segments is not a list", False),
        ('{"segments": {"0": {"source": "1"}}}', "solution.json: segments is not a list", False),
        ('{"segments": null}', "solution.json: segments is not a list", False),
        ("", "solution.json: invalid JSON", False),
        ("{'segments': []}", "solution.json: invalid JSON", False),
        ('{"segments": [', "solution.json: invalid JSON", False),
    ],
)
def test_malformed_shapes(tmp_path: Path, content: str, needle: str, crashes: bool) -> None:
    """D-S1: the official scorer crashes on non-object top levels and segments; we return `malformed`."""
    read = read_manifest(_write(tmp_path, content))
    assert read.status == "malformed" and not read.ok
    assert needle in read.error
    assert read.error.startswith("solution.json")
    assert read.crashes_official is crashes
    assert read.segments == []


def test_non_utf8_is_malformed(tmp_path: Path) -> None:
    read = read_manifest(_write(tmp_path, b'{"segments": [{"source": "\xff\xfe"}]}'))
    assert read.status == "malformed"
    assert read.error.startswith("solution.json: not UTF-8")


def test_huge_file_is_malformed_without_parsing(tmp_path: Path) -> None:
    """A valid JSON document padded beyond the size cap is still rejected: a manifest is a few KB."""
    p = _write(tmp_path, '{"segments": []}' + " " * MAX_MANIFEST_BYTES)
    read = read_manifest(p)
    assert read.status == "malformed"
    assert "over the" in read.error and str(MAX_MANIFEST_BYTES) in read.error
    assert read_manifest(p, max_bytes=MAX_MANIFEST_BYTES * 2).ok


def test_file_growing_past_the_cap_while_read_is_malformed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size check and the capped read are two steps; a file that grows in between makes `read_capped` raise
    TooLargeError (which has no `strerror`): still a clean `malformed` result, never a crash (found by mypy)."""
    from agenticvbench.fsutil import TooLargeError
    from agenticvbench.verifiers import manifest

    def grown(path: Path, max_bytes: int) -> bytes:
        raise TooLargeError(f"{path}: over {max_bytes} bytes")

    monkeypatch.setattr(manifest, "read_submitted", grown)
    read = read_manifest(_write(tmp_path, '{"segments": []}'))
    assert read.status == "malformed" and "unreadable" in read.error and "over" in read.error


def test_deeply_nested_json_is_malformed(tmp_path: Path) -> None:
    read = read_manifest(_write(tmp_path, "[" * 200_000 + "]" * 200_000))
    assert read.status == "malformed"


def test_nan_and_infinity_parse_like_the_official_reader(tmp_path: Path) -> None:
    """Python's json (and so the official scorer) accepts NaN/Infinity; they must not crash or count as valid."""
    p = _write(
        tmp_path,
        '{"segments": [{"output": [0, NaN], "source": "1"}, '
        '{"output": [1, Infinity], "source": "2"}, {"output": [-Infinity, 2], "source": "3"}]}',
    )
    read = read_manifest(p)
    assert read.ok and len(read.segments) == 3
    assert math.isnan(read.segments[0]["output"][1])
    assert [interval_length(s["output"]) for s in read.segments] == [None, None, None]
    assert manifest_end(read.segments) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ([0, 2], 2.0),
        ([1.5, 3.0], 1.5),
        ([2, 2], 0.0),
        ([3, 1], None),
        ([0], None),
        ([0, 1, 2], None),
        (["0", "1"], None),
        ([True, 2], None),
        (None, None),
        ("0-1", None),
        ([0, float("nan")], None),
    ],
)
def test_interval_length(value: object, expected: float | None) -> None:
    assert interval_length(value) == expected


def test_manifest_end_uses_largest_valid_end() -> None:
    segs = [{"output": [0, 2]}, {"output": [5, 7.5]}, {"output": [2, 5]}, {"output": "bad"}, {}]
    assert manifest_end(segs) == 7.5


def test_within() -> None:
    assert within(1.09, 1.0, 0.1) and not within(1.11, 1.0, 0.1)
    assert within(10.4, 10.0, 0.1, 0.05) and not within(10.6, 10.0, 0.1, 0.05)


@pytest.mark.parametrize(
    ("value", "key"),
    [
        ("3", "3"),
        (3, "3"),
        (3.0, "3"),
        ("3.0", "3"),
        (" 3 ", "3"),
        ("3.mp4", "3"),
        ("3.MP4", "3"),
        ("3.MP4.mp4", "3"),
        ("3.0.mp4", "3"),
        ("clip3.mp4", "3"),
        ("clip_03", "3"),
        ("/workspace/materials/3.mp4", "3"),
        ("C:\\clips\\3.mp4", "3"),
        ("intro.mp4", "intro"),
        ("", ""),
    ],
)
def test_loose_clip_id(value: object, key: str) -> None:
    assert loose_clip_id(value) == key


def test_video_consistency_absent() -> None:
    assert video_consistency(None, [{"output": [0, 1]}]) == {"present": False, "tolerance_s": 0.5}


def test_video_consistency_probes_existing_file(tmp_path: Path) -> None:
    """D-S3 extra: a 1 s video matches a manifest ending at 1.0 s but not one ending at 3.0 s."""
    video = tmp_path / "solution.mp4"
    run_ffmpeg(
        [
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=32x32:rate=10:duration=1",
            "-pix_fmt",
            "yuv420p",
            "-y",
            str(video),
        ],
        check=True,
        timeout=60,
    )
    good = video_consistency(video, [{"output": [0, 0.5]}, {"output": [0.5, 1.0]}])
    assert good["present"] and good["consistent"] is True
    assert abs(good["video_duration_s"] - 1.0) < 0.2 and good["manifest_end_s"] == 1.0
    bad = video_consistency(video, [{"output": [0, 3.0]}])
    assert bad["consistent"] is False
    assert video_consistency(video, [{"output": [0, float("nan")]}])["consistent"] is False


def test_video_consistency_corrupt_file(tmp_path: Path) -> None:
    video = tmp_path / "solution.mp4"
    video.write_bytes(b"not a video at all")
    out = video_consistency(video, [{"output": [0, 1]}])
    assert out["present"] and out["consistent"] is False and "probe_error" in out
