"""Shot detection through the toolkit's frame reader must equal PySceneDetect's own backends."""

from __future__ import annotations

from pathlib import Path

import pytest
from scenedetect import ContentDetector, detect

from agenticvbench.media import run_ffmpeg
from agenticvbench.media.scenes import ShotDetection


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Cuts at 0.75 s and 2.0 s (blue, testsrc2, smptebars) at 24 fps, then a 1 s hold of the last frame."""
    out = tmp_path_factory.mktemp("scenes") / "cuts.mp4"
    graph = (
        "color=c=blue:s=128x72:r=24:d=0.75[a];testsrc2=s=128x72:r=24:d=1.25[b];"
        "smptebars=s=128x72:r=24:d=1,tpad=stop_mode=clone:stop_duration=1[c];[a][b][c]concat=n=3:v=1:a=0[v]"
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


@pytest.mark.parametrize("backend", ["pyav", "opencv"])
def test_same_shots_as_scenedetect_backends(clip: Path, backend: str) -> None:
    ours = ShotDetection(clip).run()  # same contract as `scenedetect.detect`: no cut, no scene
    theirs = [
        (a.seconds, b.seconds) for a, b in detect(str(clip), ContentDetector(threshold=27.0), backend=backend)
    ]
    assert len(ours) == 3
    assert [t for pair in ours for t in pair] == pytest.approx([t for pair in theirs for t in pair], abs=1e-5)
    assert [round(b - a, 3) for a, b in ours] == [0.75, 1.25, 2.0]
