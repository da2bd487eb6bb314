"""ffmpeg filter parsing, and the d=0 black/freeze pass against the official per-item commands."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenticvbench.media import filters as ff
from agenticvbench.media import run_ffmpeg


def test_parse_blackdetect() -> None:
    text = ("[Parsed_blackdetect_0 @ 0x1] black_start:1.5 black_end:4.5 black_duration:3\n"
            "[blackdetect @ 0x2] black_start:5 black_end:5.958 black_duration:0.958\n")
    assert ff.parse_blackdetect(text) == [ff.Run(1.5, 4.5), ff.Run(5.0, 5.958)]


def test_parse_freezedetect_pairs_and_open_end() -> None:
    text = ("[freezedetect @ 0x1] lavfi.freezedetect.freeze_start: 2.08\n"
            "[freezedetect @ 0x1] lavfi.freezedetect.freeze_duration: 1.92\n"
            "[freezedetect @ 0x1] lavfi.freezedetect.freeze_end: 4\n"
            "[freezedetect @ 0x1] lavfi.freezedetect.freeze_start: 6\n")
    runs = ff.parse_freezedetect(text)
    assert runs == [ff.Run(2.08, 4.0), ff.Run(6.0, None)]
    assert runs[0].duration == pytest.approx(1.92) and runs[1].duration is None


def test_parse_volumedetect_and_loudnorm() -> None:
    text = ("[Parsed_volumedetect_0 @ 0x1] n_samples: 96000\n[Parsed_volumedetect_0 @ 0x1] mean_volume: -21.1 dB\n"
            "[Parsed_volumedetect_0 @ 0x1] max_volume: -18.1 dB\n")
    assert ff.parse_volumedetect(text) == ff.VolumeStats(-21.1, -18.1)
    assert ff.parse_volumedetect("nothing here") is None
    loud = 'junk {"a": 1}\n[Parsed_loudnorm_0 @ 0x1]\n{\n\t"input_i" : "-23.05",\n\t"input_tp" : "-5.00"\n}\n'
    assert ff.parse_loudnorm_json(loud) == {"input_i": "-23.05", "input_tp": "-5.00"}
    assert ff.parse_loudnorm_json("no json") is None
    assert ff.parse_yavg("[Parsed_metadata_1 @ 0x1] lavfi.signalstats.YAVG=111.884\n") == pytest.approx(111.884)


@pytest.fixture(scope="module")
def runs_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """7.2 s at 24 fps: a ~1.9 s freeze (2.08-4 s), a 1 s black run (6-7 s), short tail."""
    out = tmp_path_factory.mktemp("filters") / "runs.mp4"
    graph = ("testsrc2=s=96x64:r=24:d=2,tpad=stop_mode=clone:stop_duration=2[a];testsrc2=s=96x64:r=24:d=2[b];"
             "color=c=black:s=96x64:r=24:d=1[c];testsrc2=s=96x64:r=24:d=0.2[d];[a][b][c][d]concat=n=4:v=1:a=0[v]")
    run_ffmpeg(["-y", "-filter_complex", graph, "-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", str(out)], check=True)
    return out


@pytest.fixture(scope="module")
def d0_runs(runs_clip: Path) -> tuple[list[ff.Run], list[ff.Run] | None]:
    return ff.detect_black_and_freeze(runs_clip)


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
        assert len(ours_black) == 1 and len(ours_freeze) == 2  # the 1.9 s freeze and the 1 s black (frozen) run
