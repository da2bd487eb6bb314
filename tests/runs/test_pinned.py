"""`agenticvbench.runs.pinned`: a pinned file is read through its descriptor by every reader, whatever its name
now points to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from adversarial import ffmpeg

from agenticvbench.media import probe, run_ffmpeg
from agenticvbench.runs.pinned import PinError, pin_inputs, pinned, read_submitted, source_for
from agenticvbench.runs.submission import cap_for


def _video(path: Path, size: str) -> Path:
    ffmpeg("-f", "lavfi", "-i", f"color=s={size}:r=5:d=1", "-c:v", "libx264", str(path))
    return path


def _caps(name: str) -> int:
    return cap_for(name, 10 << 20)


def test_decoders_and_ffmpeg_read_the_pinned_file_after_the_name_is_replaced(tmp_path):
    """PyAV and the ffmpeg binary are handed the descriptor, so renaming another file over the name after the
    hash changes nothing they read; messages still name the file, never the /proc path."""
    task = tmp_path / "37"
    task.mkdir()
    target = _video(task / "final.mp4", "32x16")
    other = _video(tmp_path / "other.mp4", "64x48")
    with pin_inputs([target], task, _caps) as pins:
        os.replace(other, target)
        assert source_for(target).startswith(f"/proc/{os.getpid()}/fd/")
        info = probe(target)
        assert (info.video.width, info.video.height) == (32, 16) and info.path == str(target)
        proc = run_ffmpeg(["-i", str(target), "-f", "null", "-"])
        log = proc.stderr.decode()
        assert "32x16" in log and "64x48" not in log and "/fd/" not in log and str(target) in log
        assert "replaced by another file" in pins[target].drift()
    assert pinned(target) is None and probe(target).video.width == 64


def test_text_outputs_are_read_once(tmp_path):
    """solution.json / report.md keep the bytes that were hashed; the parsers get those, not a second read."""
    task = tmp_path / "38"
    task.mkdir()
    sol = task / "solution.json"
    sol.write_text('{"segments": []}')
    with pin_inputs([sol], task, _caps) as pins:
        sol.write_text('{"segments": [1]}')
        assert read_submitted(sol, 1000) == b'{"segments": []}'
        assert "changed while it was scored" in pins[sol].drift()


def test_a_path_that_escapes_the_task_folder_at_open_time_is_refused(tmp_path):
    """The containment check runs on the opened descriptor: a file outside the task folder is never pinned."""
    task = tmp_path / "39"
    task.mkdir()
    outside = tmp_path / "secret.json"
    outside.write_text("{}")
    with pytest.raises(PinError, match="outside the task folder"), pin_inputs([outside], task, _caps):
        pass
    fifo = task / "solution.json"
    os.mkfifo(fifo)
    with pytest.raises(PinError, match="FIFO"), pin_inputs([fifo], task, _caps):
        pass
