"""The one media toolkit: every probe, decode and ffmpeg call in the project goes through here."""

from agenticvbench.media.ffmpeg import ffmpeg_exe, run_ffmpeg
from agenticvbench.media.probe import ProbeResult, StreamInfo, probe
from agenticvbench.media.video import VideoFrame, decode_audio, iter_frames

__all__ = [
    "ProbeResult",
    "StreamInfo",
    "VideoFrame",
    "decode_audio",
    "ffmpeg_exe",
    "iter_frames",
    "probe",
    "run_ffmpeg",
]
