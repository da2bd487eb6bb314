"""Screening of a submission's media inputs before the verifier runs, and the result's integrity flags.

Rejections (the engine scores the task `malformed`, reason from `InputRejected`):

- a submitted media file byte-identical (same SHA-256) to one of the task's verifier-only references (the repair
  source video): an agent that found the reference would otherwise score 0.99999;
- a media header declaring a duration absurd for the family, or a frame larger than 4096x4096 pixels (or 8192 on
  a side), checked on the probe (header) before any frame is decoded.

Flags (the official score is kept, the result's `integrity` list names the hole, a warning says it loudly):

- `audio_only`: a media output with audio but no video stream (repair: edit 0, as the official scorer, whose
  OpenCV cannot open it; format and localisation still score);
- `rotation`: a video carrying a display rotation matrix (players rotate it, frame comparisons do not);
- `identical_to_input`: a repair output byte-identical to the agent's own broken input;
- `degenerate_video`: a video stream with a single frame, or fewer frames than the file has seconds (repair: the
  official edit rubric compares the frames it finds and skips the chunks without any, so one frame and the full
  audio keep nearly the whole video budget);
- `verifier_reference`: a submitted file byte-identical to a verifier-only reference of *another* task of the
  dataset (`leaks`): the agent saw verifier-only material.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from agenticvbench.errors import AVBError, MediaError
from agenticvbench.fsutil import file_sha256
from agenticvbench.leaks import DatasetReference, leaked_references
from agenticvbench.submission import InputRejected, Submission
from agenticvbench.tasks import Task

MEDIA_SUFFIXES: frozenset[str] = frozenset({".mp4", ".mov", ".m4v", ".mkv", ".webm", ".avi", ".wav", ".m4a"})
#: Longest plausible output per family, in seconds (benchmark outputs run seconds to minutes).
MAX_DURATION_S: dict[str, float] = {"recap": 4 * 3600.0, "sequencing": 3600.0, "assembly": 3600.0,
                                    "repair": 3600.0}
MAX_FRAME_SIDE = 8192  # pixels; 8K UHD is 7680 wide
MAX_FRAME_PIXELS = 4096 * 4096  # covers 4K UHD and DCI 4K; 8192x8192 10-bit 4:4:4 peaks at 2.4 GB when scored
FLAGS: dict[str, str] = {
    "audio_only": "has audio but no video stream; only format and localisation can score",
    "rotation": "carries a display rotation matrix; players rotate it but frame comparisons do not",
    "identical_to_input": "is byte-identical to the task's own input given to the agent",
    "degenerate_video": "has a degenerate video stream; the official edit rubric scores the frames present and "
                        "skips chunks without any",
    "verifier_reference": "is byte-identical to a verifier-only reference of another task, which agents never see",
}


@dataclass
class Screening:
    """What screening found: integrity flag codes and the warnings that announce them."""

    flags: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def flag(self, code: str, path: Path, detail: str = "") -> None:
        """Record flag `code` for `path` once, with a loud warning (the official score is kept); `detail` is
        appended to the flag's sentence."""
        if code not in self.flags:
            self.flags.append(code)
        self.warnings.append(f"INTEGRITY {code}: {path.name} {FLAGS[code]}{detail}; official score kept, review "
                             "this output")


@lru_cache(maxsize=256)
def _sha_cached(real: str, size: int, mtime_ns: int, ino: int) -> str:
    return file_sha256(real)


def reference_sha256(path: Path) -> str:
    """SHA-256 of a dataset file (trusted), hashed once per process per (file, size, mtime)."""
    real = os.path.realpath(path)
    st = os.stat(real)
    return _sha_cached(real, st.st_size, st.st_mtime_ns, st.st_ino)


def _same_bytes(path: Path, sha: str, candidates: list[Path]) -> Path | None:
    size = path.stat().st_size
    for c in candidates:
        try:
            if c.is_file() and c.stat().st_size == size and reference_sha256(c) == sha:
                return c
        except OSError:
            continue
    return None


def _check_header(path: Path, family: str) -> tuple[bool, bool]:
    """Probe the header; raise `InputRejected` for absurd duration/size. Returns (has_video, has_audio);
    (True, True) when the file cannot be probed (the verifier reports that in its own words)."""
    from agenticvbench.media import probe

    try:
        info = probe(path)
    except MediaError:
        return True, True
    limit = MAX_DURATION_S.get(family, 3600.0)
    durations = [d for d in [info.duration, *(s.duration for s in info.streams)] if d is not None]
    longest = max(durations, default=0.0)
    if longest > limit:
        raise InputRejected(f"{path}: the header declares {longest:.0f} s, absurd for a {family} output "
                            f"(limit {limit:.0f} s); not decoded")
    for s in info.streams:
        w, h = s.width or 0, s.height or 0
        if s.codec_type == "video" and (max(w, h) > MAX_FRAME_SIDE or w * h > MAX_FRAME_PIXELS):
            raise InputRejected(f"{path}: the header declares a {w}x{h} frame, over the limit of {MAX_FRAME_SIDE} "
                                f"px on a side and {MAX_FRAME_PIXELS} pixels; not decoded")
    return info.video is not None, info.audio is not None


def degenerate_video(path: Path) -> str:
    """Why the video stream of `path` is degenerate ('' when it is not, or when its frame count is unknown): a
    single frame, or fewer frames than the file has seconds. Frames come from the header (`nb_frames`), else
    the stream's duration times its frame rate; nothing is decoded."""
    from agenticvbench.media import probe

    try:
        info = probe(path)
    except MediaError:
        return ""
    video = info.video
    if video is None:
        return ""
    frames: float | None = video.nb_frames
    if frames is None and video.duration is not None and video.fps:
        frames = video.duration * video.fps
    if frames is None:
        return ""
    longest = max([d for d in [info.duration, *(s.duration for s in info.streams)] if d is not None], default=0.0)
    if frames <= 1 or frames < longest:
        return f" ({frames:.0f} frame(s) in a {longest:.1f} s file)"
    return ""


def _rotation(path: Path) -> float:
    """The display rotation of the first video frame (0 when none or unreadable)."""
    import av

    from agenticvbench.media.container import open_input

    try:
        with open_input(path, need="video") as container:
            for frame in container.decode(video=0):
                return float(getattr(frame, "rotation", 0) or 0)
    except (MediaError, av.FFmpegError, OSError, ValueError):
        return 0.0
    return 0.0


def _flag_leaks(screening: Screening, task: Task, submitted: dict[Path, str],
                refs: Iterable[DatasetReference]) -> None:
    """Flag `verifier_reference` for each submitted file identical to another task's verifier-only reference."""
    for p, ref in leaked_references(task.task_id, submitted, refs, reference_sha256):
        ids = ", ".join(str(i) for i in ref.task_ids)
        screening.flag("verifier_reference", p, f" ({ref.name} of task {ids})")


def screen_inputs(task: Task, submission: Submission, hashes: dict[Path, str],
                  dataset_refs: Iterable[DatasetReference] = ()) -> Screening:
    """Screen the submitted media among `hashes` (input path -> SHA-256); raises `InputRejected` (malformed).
    `dataset_refs` lists the dataset's verifier-only references (`leaks.dataset_references`)."""
    screening = Screening()
    _flag_leaks(screening, task, {p: h for p, h in hashes.items() if submission.owns(p)}, dataset_refs)
    media = [p for p in hashes if submission.owns(p) and p.suffix.lower() in MEDIA_SUFFIXES]
    if not media:
        return screening
    if task.verifier_reference_urls:
        refs = task.verifier_references()
        for p in media:
            if (ref := _same_bytes(p, hashes[p], refs)) is not None:
                raise InputRejected(f"{p}: identical to the verifier-only reference {ref.name} of task "
                                    f"{task.task_id} (same SHA-256); a submission may not contain it")
    for p in media:
        has_video, has_audio = _check_header(p, task.family)
        if has_audio and not has_video:
            screening.flag("audio_only", p)
        elif has_video and _rotation(p):
            screening.flag("rotation", p)
        if has_video and (why := degenerate_video(p)):
            screening.flag("degenerate_video", p, why)
    if task.family == "repair" and task.reference_file_urls:
        try:
            inputs = task.materials()
        except (AVBError, OSError) as exc:
            screening.warnings.append(f"integrity: could not compare with the task's inputs ({exc})")
            inputs = []
        for p in media:
            if _same_bytes(p, hashes[p], inputs) is not None:
                screening.flag("identical_to_input", p)
    return screening
