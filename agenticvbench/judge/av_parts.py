"""Audio and video parts of a judge request: bounded encodings of the judged video, and the chat parts carrying them.

- **Audio** (`encode_audio`): the first audio stream, mono, at `audio_sample_rate`, as MP3 capped at
  `audio_bitrate_kbps` or as 16-bit WAV; only the item's time range when it names one, never longer than
  `audio_max_s`, and never more than `max_audio_bytes` inline (the length is cut to fit the byte cap first).
- **Video** (`encode_video`): H.264 at `video_fps`, the longer side at most `max_side`, mono AAC at the audio
  bitrate, at most `video_max_s` long; a result over the endpoint's `video_max_bytes` is refused (the caller falls
  back to frames and audio).

Parts: an `input_audio` part (OpenAI chat completions: base64 `data` and `format` wav|mp3), an `audio_url` part
(vLLM: a `data:audio/...;base64,` URL), a `video_url` part (vLLM: a `data:video/mp4;base64,` URL). The tiny
payloads of capability probes come from the same builders (`probe_part`).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenticvbench.errors import MediaError
from agenticvbench.judge.settings import JudgeSettings
from agenticvbench.media import run_ffmpeg
from agenticvbench.memo import Memo

_MIME = {"mp3": "audio/mpeg", "wav": "audio/wav"}
_probe_payloads = Memo(memoise_failures=False)


@dataclass(frozen=True)
class EncodedMedia:
    """Bytes sent inline, their format, and the span of the video they cover (seconds)."""

    data: bytes
    fmt: str
    start: float
    end: float


def _span(duration: float, time_range: tuple[float, float] | None, max_s: float) -> tuple[float, float]:
    start, end = time_range if time_range is not None else (0.0, duration if duration > 0 else max_s)
    return start, min(end, start + max_s)


def encode_audio(
    path: str | Path, s: JudgeSettings, *, duration: float, time_range: tuple[float, float] | None = None
) -> EncodedMedia:
    """The bounded audio of `path` (module docstring); raises MediaError when it has no decodable audio."""
    start, end = _span(duration, time_range, s.audio_max_s)
    bytes_per_s = s.audio_bitrate_kbps * 125 if s.audio_format == "mp3" else s.audio_sample_rate * 2
    end = min(end, start + max(1.0, (s.max_audio_bytes - 4096) / bytes_per_s))
    codec = (
        ["-c:a", "libmp3lame", "-b:a", f"{s.audio_bitrate_kbps}k", "-f", "mp3"]
        if s.audio_format == "mp3"
        else ["-c:a", "pcm_s16le", "-f", "wav"]
    )
    args = ["-ss", f"{start:.3f}", "-t", f"{end - start:.3f}", "-i", str(path), "-map", "0:a:0", "-vn"]
    proc = run_ffmpeg([*args, "-ac", "1", "-ar", str(s.audio_sample_rate), *codec, "pipe:1"])
    if proc.returncode != 0 or not proc.stdout:
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no audio stream"]
        raise MediaError(f"{path}: cannot encode its audio ({tail[0][:160]})")
    if len(proc.stdout) > s.max_audio_bytes:
        raise MediaError(f"{path}: audio part over the {s.max_audio_bytes}-byte inline cap")
    return EncodedMedia(proc.stdout, s.audio_format, start, end)


def encode_video(
    path: str | Path, s: JudgeSettings, *, duration: float, time_range: tuple[float, float] | None = None
) -> EncodedMedia:
    """The bounded video of `path` (module docstring); raises MediaError when it cannot be encoded or exceeds
    `video_max_bytes`."""
    start, end = _span(duration, time_range, s.video_max_s)
    scale = f"scale='if(gt(iw,ih),min({s.max_side},iw),-2)':'if(gt(iw,ih),-2,min({s.max_side},ih))'"
    args = [
        "-ss",
        f"{start:.3f}",
        "-t",
        f"{end - start:.3f}",
        "-i",
        str(path),
        "-map",
        "0:v:0",
        "-map",
        "0:a:0?",
    ]
    args += ["-vf", f"fps={s.video_fps:g},{scale}", "-c:v", "libx264", "-preset", "veryfast", "-crf", "32"]
    args += ["-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "1", "-b:a", f"{s.audio_bitrate_kbps}k"]
    args += ["-movflags", "frag_keyframe+empty_moov", "-f", "mp4", "pipe:1"]
    proc = run_ffmpeg(args)
    if proc.returncode != 0 or not proc.stdout:
        raise MediaError(f"{path}: cannot encode a video part")
    if len(proc.stdout) > s.video_max_bytes:
        raise MediaError(
            f"video part is {len(proc.stdout)} bytes, over the endpoint's {s.video_max_bytes}-byte limit"
        )
    return EncodedMedia(proc.stdout, "mp4", start, end)


def audio_part(media: EncodedMedia, style: str) -> dict[str, Any]:
    """An audio chat part: `input_audio` (OpenAI) or `audio_url` (vLLM) carrying `media` inline."""
    b64 = base64.b64encode(media.data).decode("ascii")
    if style == "audio_url":
        return {"type": "audio_url", "audio_url": {"url": f"data:{_MIME[media.fmt]};base64,{b64}"}}
    return {"type": "input_audio", "input_audio": {"data": b64, "format": media.fmt}}


def video_part(media: EncodedMedia) -> dict[str, Any]:
    """A `video_url` chat part carrying `media` (MP4) inline."""
    return {
        "type": "video_url",
        "video_url": {"url": "data:video/mp4;base64," + base64.b64encode(media.data).decode()},
    }


def _tiny(kind: str, fmt: str) -> bytes:
    """A minimal payload of `kind` (a 16x16 grey JPEG, 0.2 s of silence, a 2-frame 16x16 MP4)."""
    if kind == "image":
        src, out = ["-f", "lavfi", "-i", "color=c=gray:s=16x16:d=0.04", "-frames:v", "1"], ["-f", "mjpeg"]
    elif kind == "audio":
        src = ["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "0.2"]
        out = (
            ["-c:a", "libmp3lame", "-b:a", "32k", "-f", "mp3"]
            if fmt == "mp3"
            else ["-c:a", "pcm_s16le", "-f", "wav"]
        )
    else:
        src = ["-f", "lavfi", "-i", "color=c=gray:s=16x16:r=10:d=0.2"]
        out = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-movflags", "frag_keyframe+empty_moov", "-f", "mp4"]
    proc = run_ffmpeg([*src, *out, "pipe:1"], check=True)
    return proc.stdout


def probe_part(kind: str, *, audio_format: str = "mp3", audio_style: str = "input_audio") -> dict[str, Any]:
    """The smallest chat part of `kind` (image | audio | video), for a capability probe (payloads made once)."""
    fmt = audio_format if kind == "audio" else kind
    data = _probe_payloads.get((kind, fmt), lambda: _tiny(kind, fmt))
    if kind == "image":
        url = "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")
        return {"type": "image_url", "image_url": {"url": url, "detail": "low"}}
    media = EncodedMedia(data, fmt if kind == "audio" else "mp4", 0.0, 0.2)
    return audio_part(media, audio_style) if kind == "audio" else video_part(media)
