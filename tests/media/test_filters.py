"""ffmpeg filter parsing, and the d=0 black/freeze pass against the official per-item commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenticvbench.media import filters as ff
from agenticvbench.media import run_ffmpeg


def test_parse_blackdetect() -> None:
    text = (
        "[Parsed_blackdetect_0 @ 0x1] black_start:1.5 black_end:4.5 black_duration:3\n"
        "[blackdetect @ 0x2] black_start:5 black_end:5.958 black_duration:0.958\n"
    )
    assert ff.parse_blackdetect(text) == [ff.Run(1.5, 4.5), ff.Run(5.0, 5.958)]


def test_parse_freezedetect_pairs_and_open_end() -> None:
    text = (
        "[freezedetect @ 0x1] lavfi.freezedetect.freeze_start: 2.08\n"
        "[freezedetect @ 0x1] lavfi.freezedetect.freeze_duration: 1.92\n"
        "[freezedetect @ 0x1] lavfi.freezedetect.freeze_end: 4\n"
        "[freezedetect @ 0x1] lavfi.freezedetect.freeze_start: 6\n"
    )
    runs = ff.parse_freezedetect(text)
    assert runs == [ff.Run(2.08, 4.0), ff.Run(6.0, None)]
    assert runs[0].duration == pytest.approx(1.92) and runs[1].duration is None


def test_parse_volumedetect_and_loudnorm() -> None:
    text = (
        "[Parsed_volumedetect_0 @ 0x1] n_samples: 96000\n[Parsed_volumedetect_0 @ 0x1] mean_volume: -21.1 dB\n"
        "[Parsed_volumedetect_0 @ 0x1] max_volume: -18.1 dB\n"
    )
    assert ff.parse_volumedetect(text) == ff.VolumeStats(-21.1, -18.1)
    assert ff.parse_volumedetect("nothing here") is None
    loud = 'junk {"a": 1}\n[Parsed_loudnorm_0 @ 0x1]\n{\n\t"input_i" : "-23.05",\n\t"input_tp" : "-5.00"\n}\n'
    assert ff.parse_loudnorm_json(loud) == {"input_i": "-23.05", "input_tp": "-5.00"}
    assert ff.parse_loudnorm_json("no json") is None
    assert ff.parse_yavg("[Parsed_metadata_1 @ 0x1] lavfi.signalstats.YAVG=111.884\n") == pytest.approx(
        111.884
    )


@pytest.fixture(scope="module")
def runs_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """7.2 s at 24 fps: a ~1.9 s freeze (2.08-4 s), a 1 s black run (6-7 s), short tail."""
    out = tmp_path_factory.mktemp("filters") / "runs.mp4"
    graph = (
        "testsrc2=s=96x64:r=24:d=2,tpad=stop_mode=clone:stop_duration=2[a];testsrc2=s=96x64:r=24:d=2[b];"
        "color=c=black:s=96x64:r=24:d=1[c];testsrc2=s=96x64:r=24:d=0.2[d];[a][b][c][d]concat=n=4:v=1:a=0[v]"
    )
    run_ffmpeg(
        [
            "-y",
            "-filter_complex",
            graph,
            "-map",
            "[v]",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
            str(out),
        ],
        check=True,
    )
    return out


@pytest.fixture(scope="module")
def d0_runs(runs_clip: Path) -> tuple[list[ff.Run], list[ff.Run] | None]:
    res = ff.video_pass(runs_clip)
    return res.black or [], res.freeze


def _official(path: Path, vf: str) -> str:
    return run_ffmpeg(["-i", str(path), "-vf", vf, "-an", "-f", "null", "-"]).stderr.decode()


@pytest.mark.parametrize("max_s", [0.02, 0.5, 0.9, 1.5, 1.95, 3.0])
def test_d0_pass_gives_official_verdicts(runs_clip: Path, d0_runs: tuple, max_s: float) -> None:
    """Why d=0 is safe: the official commands use d=max/2, and filtering our d=0 runs by `duration > max`
    must count exactly the runs the official output counts, for every max (including max below one frame)."""
    black, freeze = d0_runs
    ours_black = [(r.start, r.end) for r in black if r.duration > max_s]
    ours_freeze = [(r.start, r.end) for r in freeze or [] if r.end is not None and r.duration > max_s]
    official_black = ff.parse_blackdetect(_official(runs_clip, f"blackdetect=d={max_s / 2}:pix_th=0.10"))
    official_freeze = ff.parse_freezedetect(_official(runs_clip, f"freezedetect=n=0.003:d={max_s / 2}"))
    off_black = [(r.start, r.end) for r in official_black if r.duration > max_s]
    off_freeze = [(r.start, r.end) for r in official_freeze if r.end is not None and r.duration > max_s]
    assert ours_black == off_black
    assert ours_freeze == off_freeze
    if max_s == 0.5:
        assert (
            len(ours_black) == 1 and len(ours_freeze) == 2
        )  # the 1.9 s freeze and the 1 s black (frozen) run


def test_error_lines_keeps_only_errors_and_recollapses_repeats() -> None:
    """The combined pass logs at info level with level tags; what `-v error` would print must come back:
    error lines untagged, continuations kept, warnings and info dropped, and equal errors that info lines
    separated collapsed again into ffmpeg's `Last message repeated` form."""
    log = (
        "[in#0 @ 0x1] [info] Input #0, mov\n"
        "[h264 @ 0x2] [error] error while decoding MB 1 5\n"
        "[Parsed_blackdetect_0 @ 0x3] [info] black_start:0 black_end:1 black_duration:1\n"
        "[h264 @ 0x2] [error] error while decoding MB 1 5\n"
        "    Last message repeated 2 times\n"
        "[vist#0:0/h264 @ 0x4] [warning] corrupt decoded frame\n"
        "[error] Error opening output file\n"
        "second line of that error\n"
        "[in#0 @ 0x1] [info] done\n"
        "not an error\n"
    )
    assert ff.error_lines(log) == (
        "[h264 @ 0x2] error while decoding MB 1 5\n"
        "    Last message repeated 3 times\n"
        "Error opening output file\nsecond line of that error"
    )
    assert ff.error_lines("[in#0 @ 0x1] [info] Input #0\n") == ""


@pytest.fixture(scope="module")
def damaged_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """4 s of h264 + aac with 40 runs of 20 bytes overwritten (a fixed pattern): video and audio decode errors."""
    work = tmp_path_factory.mktemp("damaged")
    clean = work / "clean.mp4"
    run_ffmpeg(
        [
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=160x120:r=24:d=4",
            "-f",
            "lavfi",
            "-i",
            "sine=d=4",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-g",
            "12",
            "-c:a",
            "aac",
            str(clean),
        ],
        check=True,
    )
    data = bytearray(clean.read_bytes())
    for i in range(40):
        at = len(data) // 4 + i * (len(data) // 60)
        data[at : at + 20] = bytes((at * 7 + j * 31) % 256 for j in range(20))
    out = work / "damaged.mp4"
    out.write_bytes(bytes(data))
    return out


def _normalised(log: str) -> list[str]:
    """Log lines with pointer addresses removed, sorted: decoder threads print in a varying order."""
    import re

    return sorted(re.sub(r"0x[0-9a-f]+", "0x", line) for line in log.splitlines())


@pytest.mark.parametrize("clip", ["damaged", "runs"])
def test_video_pass_equals_the_separate_commands(clip: str, request: pytest.FixtureRequest) -> None:
    """One ffmpeg run for black runs, freeze runs and the decode-error log must give what the separate
    commands give: the same runs, and the same error lines as `ffmpeg -v error -i F -f null -` (audio errors
    included, so the second output really decodes the default audio stream). The runs are compared on the
    clean clip only: on a damaged one, ffmpeg's frame-threaded error concealment varies from run to run (the
    same freezedetect command gave 85, 86 and 87 runs), in either form."""
    path = request.getfixturevalue(f"{clip}_clip")
    combined = ff.video_pass(path, errors=True)
    errors_only = run_ffmpeg(["-v", "error", "-i", str(path), "-f", "null", "-"]).stderr.decode().strip()
    assert _normalised(combined.errors or "") == _normalised(errors_only)
    if clip == "damaged":
        assert "[aac @" in errors_only and "[h264 @" in errors_only
    else:
        runs_only = ff.video_pass(path)
        assert (combined.black, combined.freeze) == (runs_only.black, runs_only.freeze)
        assert combined.errors == "" and combined.black and combined.freeze


def test_metadata_text_cannot_fake_a_run(tmp_path: Path) -> None:
    """A title that reads like blackdetect output is printed in the input dump; only the filters' own lines
    may count as runs (a submission cannot invent or hide runs through its metadata)."""
    out = tmp_path / "titled.mp4"
    run_ffmpeg(
        [
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=s=64x48:r=24:d=1",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-metadata",
            "title=black_start:0 black_end:9 black_duration:9",
            str(out),
        ],
        check=True,
    )
    res = ff.video_pass(out, errors=True)
    assert res.black == [] and res.errors == ""
