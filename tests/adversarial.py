"""A small builder of hostile run directories, for the regression tests of docs/security.md.

`AdversarialRun.from_run(good_run, dest)` copies a real (demo) run and then lets a test plant one hostile thing:
a symlink out of the task folder, a FIFO, a sparse multi-GB file, a second folder for one id, an edited result,
a deep `run.json`, and so on. Every helper returns the path it created so the test can name it in assertions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import imageio_ffmpeg

from agenticvbench.analysis.run_summary import RunSummary
from agenticvbench.results.model import Result


def ffmpeg(*args: str) -> None:
    """Run the bundled ffmpeg quietly; raises on failure."""
    subprocess.run([imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-y", *args], check=True, timeout=120)


@dataclass
class AdversarialRun:
    """A run directory under construction (`root`), one hostile change per helper."""

    root: Path

    @classmethod
    def from_run(cls, good: Path, dest: Path) -> AdversarialRun:
        """A copy of run `good` at `dest` (results folder left out), ready to be tampered with."""
        shutil.copytree(good, dest, symlinks=True, ignore=shutil.ignore_patterns("avb-results"))
        return cls(dest)

    @classmethod
    def empty(cls, dest: Path) -> AdversarialRun:
        """An empty run directory."""
        dest.mkdir(parents=True)
        return cls(dest)

    def folder(self, task_id: int | str) -> Path:
        """The task folder (`output/` when the run uses one), created if absent."""
        d = self.root / str(task_id)
        out = d / "output"
        if out.is_dir():
            return out
        d.mkdir(parents=True, exist_ok=True)
        return d

    def write(self, task_id: int | str, name: str, data: bytes | str) -> Path:
        """Replace output `name` of a task with `data`."""
        p = self.folder(task_id) / name
        self.remove(p)
        p.write_bytes(data.encode() if isinstance(data, str) else data)
        return p

    @staticmethod
    def remove(p: Path) -> None:
        """Remove whatever is at `p` (file, link, FIFO or folder)."""
        if p.is_symlink() or (p.exists() and not p.is_dir()):
            p.unlink()
        elif p.is_dir():
            shutil.rmtree(p)

    def symlink(self, task_id: int | str, name: str, target: str | Path) -> Path:
        """Output `name` becomes a symlink to `target`."""
        p = self.folder(task_id) / name
        self.remove(p)
        p.symlink_to(target)
        return p

    def hardlink(self, task_id: int | str, name: str, target: Path) -> Path:
        """Output `name` becomes a hard link to `target` (same inode, so realpath stays inside the run)."""
        p = self.folder(task_id) / name
        self.remove(p)
        os.link(target, p)
        return p

    def copy(self, task_id: int | str, name: str, source: Path) -> Path:
        """Output `name` becomes a plain byte copy of `source`."""
        p = self.folder(task_id) / name
        self.remove(p)
        shutil.copyfile(source, p)
        return p

    def fifo(self, task_id: int | str, name: str) -> Path:
        """Output `name` becomes a FIFO nobody writes to (a blocking open would hang forever)."""
        p = self.folder(task_id) / name
        self.remove(p)
        os.mkfifo(p)
        return p

    def directory(self, task_id: int | str, name: str) -> Path:
        """Output `name` becomes a folder."""
        p = self.folder(task_id) / name
        self.remove(p)
        p.mkdir()
        return p

    def sparse(self, task_id: int | str, name: str, size: int) -> Path:
        """Output `name` becomes a sparse file of `size` bytes (no disk used, all zeros when read)."""
        p = self.folder(task_id) / name
        self.remove(p)
        with open(p, "wb") as fh:
            fh.truncate(size)
        return p

    def run_json(self, data: bytes | str | dict[str, object]) -> Path:
        """Replace `run.json` with `data` (a dict is written as JSON)."""
        p = self.root / "run.json"
        self.remove(p)
        text = json.dumps(data) if isinstance(data, dict) else data
        p.write_bytes(text.encode() if isinstance(text, str) else text)
        return p

    def move_task(self, task_id: int, new_name: str) -> Path:
        """Rename task folder `task_id` to `new_name` (e.g. '038', '²')."""
        dest = self.root / new_name
        (self.root / str(task_id)).rename(dest)
        return dest

    def results(self) -> Path:
        """The run's own results folder."""
        return self.root / "avb-results"


def deep_json(depth: int) -> str:
    """A JSON document nested `depth` lists deep."""
    return "[" * depth + "]" * depth


def long_media(path: Path, seconds: int = 40_000) -> Path:
    """A ~2 KB video whose header declares `seconds` of duration (two frames, far apart)."""
    ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "color=s=16x16:r=1:d=2",
        "-vf",
        f"setpts=N*{seconds}/TB",
        "-fps_mode",
        "passthrough",
        "-c:v",
        "libx264",
        str(path),
    )
    return path


def audio_only(source: Path, path: Path) -> Path:
    """`source` with its video stream dropped (audio stream-copied)."""
    ffmpeg("-i", str(source), "-map", "0:a", "-c", "copy", str(path))
    return path


def one_frame(source: Path, path: Path) -> Path:
    """`source` cut to its first video frame, with its whole audio stream-copied."""
    ffmpeg(
        "-i",
        str(source),
        "-map",
        "0:v:0",
        "-map",
        "0:a:0",
        "-vf",
        "trim=end_frame=1",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "copy",
        str(path),
    )
    return path


def rotated(source: Path, path: Path, degrees: int = 90) -> Path:
    """`source` stream-copied with a display rotation matrix."""
    ffmpeg("-display_rotation", str(degrees), "-i", str(source), "-c", "copy", str(path))
    return path


def by_id(summary: RunSummary) -> dict[int, Result]:
    """A one-run summary's results by task id."""
    return {r.task_id: r for r in summary.results}


def _iso_boxes(data: bytes | bytearray, start: int, end: int):
    """(type, body offset, end) of the ISO-BMFF boxes in data[start:end], descending into the container boxes."""
    off = start
    while off + 8 <= end:
        size = int.from_bytes(data[off : off + 4], "big")
        kind = bytes(data[off + 4 : off + 8])
        body = off + 8
        if size == 1:
            size, body = int.from_bytes(data[off + 8 : off + 16], "big"), off + 16
        elif size == 0:
            size = end - off
        if size < 8:
            return
        yield kind, body, off + size
        if kind in (b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts"):
            yield from _iso_boxes(data, body, off + size)
        off += size


def scale_durations(source: Path, path: Path, factor: float) -> Path:
    """`source` (an MP4) with every header duration (mvhd, tkhd, mdhd, elst) multiplied by `factor`; the samples
    are untouched, so the packets still span the real length."""
    data = bytearray(source.read_bytes())
    for kind, body, _end in _iso_boxes(data, 0, len(data)):
        v1 = data[body] == 1
        fields = {
            b"mvhd": (20, 8) if v1 else (16, 4),
            b"mdhd": (20, 8) if v1 else (16, 4),
            b"tkhd": (28, 8) if v1 else (20, 4),
        }
        if kind in fields:
            at, width = fields[kind]
            value = int.from_bytes(data[body + at : body + at + width], "big")
            data[body + at : body + at + width] = int(value * factor).to_bytes(width, "big")
        elif kind == b"elst":
            count = int.from_bytes(data[body + 4 : body + 8], "big")
            width = 8 if v1 else 4
            for i in range(count):
                at = body + 8 + i * (2 * width + 4)
                value = int.from_bytes(data[at : at + width], "big")
                data[at : at + width] = int(value * factor).to_bytes(width, "big")
    path.write_bytes(bytes(data))
    return path


def lying_sample_table(source: Path, path: Path, samples: int = 30_000_000) -> Path:
    """`source` (an MP4) whose first `stsz` declares `samples` samples of one byte each (a ~kB file)."""
    data = bytearray(source.read_bytes())
    i = data.find(b"stsz")
    data[i + 8 : i + 16] = (1).to_bytes(4, "big") + samples.to_bytes(4, "big")
    path.write_bytes(bytes(data))
    return path


def appended(source: Path, path: Path, extra: bytes = b"\0" * 64) -> Path:
    """`source` with `extra` bytes after its end (`cat src zeros > out`: demuxers ignore them)."""
    path.write_bytes(source.read_bytes() + extra)
    return path


def prepended(source: Path, path: Path, extra: bytes = b"\0" * 1000) -> Path:
    """`source` behind `extra` bytes (an MPEG-TS demuxer resyncs past them; an MP4 would no longer decode)."""
    path.write_bytes(extra + source.read_bytes())
    return path


def remuxed(source: Path, path: Path, *extra: str) -> Path:
    """Every stream of `source` stream-copied into `path` (its container from the suffix), with options `extra`
    (e.g. `-movflags +faststart`, `-bsf:v h264_metadata=aud=insert`) and a new tag."""
    ffmpeg("-i", str(source), "-map", "0", "-c", "copy", *extra, "-metadata", "title=mine", str(path))
    return path


def with_extra_stream(source: Path, path: Path) -> Path:
    """`source`'s streams copied, plus a second (sine) audio stream and tags."""
    ffmpeg(
        "-i",
        str(source),
        "-f",
        "lavfi",
        "-i",
        "sine=f=300:d=3",
        "-map",
        "0",
        "-map",
        "1:a",
        "-c",
        "copy",
        "-c:a:1",
        "aac",
        "-metadata",
        "comment=restored",
        str(path),
    )
    return path


def reencoded(source: Path, path: Path) -> Path:
    """`source` re-encoded (x264 CRF 23, AAC): every packet differs, the pictures and sound nearly not."""
    ffmpeg("-i", str(source), "-map", "0", "-c:v", "libx264", "-crf", "23", "-c:a", "aac", str(path))
    return path
