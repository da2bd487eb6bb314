"""The viewer decodes in a separate process, bounded like a scoring task: a file whose decoding needs more than the
memory cap, or more than the time limit, makes no thumbnail, the page says why, and the next file still decodes."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest
from test_view_thumbs import grey_video

from agenticvbench.view.decoder import Decoder
from agenticvbench.view.thumbs import Thumbnailer


def big_frames(path: Path, width: int = 4096, height: int = 2160, n: int = 3) -> Path:
    """A short 4K video: each decoded frame alone is 13 MiB of yuv420p (scoring allows frames up to 4096x4096)."""
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=5)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for k in range(n):
            img = np.full((height, width, 3), 40 * k, dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


def test_over_the_memory_cap_no_thumbnail_and_a_reason(tmp_path: Path) -> None:
    """Why: `avb view` decoded agent files in its own process with no bound; a file built to need a lot of memory
    (4K frames here, 40 M declared samples in the hostile review) drove it to 3-4 GiB. Under a 16 MiB cap the
    decoder process fails the job, the thumbnailer names the cap and keeps no frame, and the same process then
    decodes a small video under an ordinary cap."""
    thumbs = Thumbnailer(tmp_path / "cache", progress=False)
    thumbs.decoder = Decoder(cap_mb=16)
    try:
        big = big_frames(tmp_path / "big.mp4")
        assert thumbs.frames(big, [0.0, 0.4]) == [None, None]
        assert "memory cap of 16 MiB" in thumbs.problem(big)
        assert not list((tmp_path / "cache" / "view-thumbs").glob("*.jpg"))
        thumbs.decoder.cap_mb = 1024  # the same process, a cap an ordinary decode fits in
        small = grey_video(tmp_path / "small.mp4", width=64, height=36)
        assert all(thumbs.frames(small, [0.5, 1.0])) and thumbs.problem(small) == ""
    finally:
        thumbs.close()


def test_a_job_past_its_time_is_stopped_and_the_decoder_replaced(tmp_path: Path) -> None:
    """A job that does not finish in time (here: any job, with a limit shorter than starting a process) makes no
    thumbnail and says so; the decoder process is replaced, so the next job with time to spare decodes."""
    video = grey_video(tmp_path / "v.mp4", width=64, height=36)
    thumbs = Thumbnailer(tmp_path / "cache", progress=False)
    thumbs.decoder = Decoder(timeout_s=0.001)
    try:
        assert thumbs.frames(video, [0.5]) == [None]
        assert "took longer than 0.001 s" in thumbs.problem(video)
        again = Thumbnailer(tmp_path / "cache", progress=False)
        again.decoder = thumbs.decoder
        thumbs.decoder.timeout_s = 120.0
        (name,) = again.frames(video, [0.5])
        assert name is not None and again.made == 1
    finally:
        thumbs.close()


@pytest.mark.parametrize("cap", [0, 4096])
def test_the_cap_setting_is_the_scoring_one(monkeypatch: pytest.MonkeyPatch, cap: int) -> None:
    """The decoder's cap is the per-task cap scoring uses (`$AVB_TASK_MEMORY_MB`), 0 turning it off."""
    monkeypatch.setenv("AVB_TASK_MEMORY_MB", str(cap))
    assert Decoder().cap_mb == cap


@pytest.mark.slow  # scores a task of the demo
def test_the_page_says_why_no_frames_are_shown(demo, hostile_run, score_run, tmp_path) -> None:
    """A recap page whose output could not be decoded under the cap names the cap among its notes, instead of
    showing empty frame boxes with no reason."""
    from agenticvbench.view import build_model
    from agenticvbench.view.pages import Site, task_context

    run = hostile_run("perfect")
    score_run(run.root, [1])
    model = build_model([run.root], dataset=demo.mirror, local=False, resamples=0)
    thumbs = Thumbnailer(tmp_path / "cache", progress=False)
    thumbs.decoder = Decoder(cap_mb=16)
    try:
        ctx = task_context(model, Site(public=False), thumbs, 0, 1)
    finally:
        thumbs.close()
    assert ctx["players"] and thumbs.made == 0
    assert any("no frames shown" in n and "memory cap of 16 MiB" in n for n in ctx["output_notes"])
