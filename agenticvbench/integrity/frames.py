"""`degenerate_video`: a video that shows far fewer frames than the seconds it claims to cover.

The official edit rubric weights each chunk of the source by the frames it finds there and skips chunks without
any, so a `fixed.mp4` of one frame (even one packet declared to last 14 s) over the full audio keeps most of the
edit points. Spans and durations are the submitter's to write; the frames are counted instead, on the demuxed
packets of the first video stream (one non-empty packet per frame for the codecs benchmark media use; nothing is
decoded), against the seconds the video has to cover: the longer of its own audio and the task's source.

The video is degenerate when it shows fewer than `MIN_FRAMES_PER_S` frames per second of that length on average,
or leaves a gap longer than `MAX_GAP_S` without a new frame: between two frames, before the first one, or after
the last one until the end. One long frame, the first and last frame alone, a frame-rate header that lies and a
variable-frame-rate file with sparse frames all fall under one of the two; an honest film, however still, has a
frame every 1/24-1/60 s.
"""

from __future__ import annotations

import numpy as np

from agenticvbench.integrity.identity import MediaContent

MIN_FRAMES_PER_S = 1.0
MAX_GAP_S = 3.0


def sparse_frames(content: MediaContent, source_s: float | None) -> str:
    """Why the first video stream of `content` is degenerate against its audio or `source_s` ("" when it is
    not, or when there is no video or nothing to compare with)."""
    video, audio = content.first("video"), content.first("audio")
    if video is None or not len(content.frame_times):
        return ""
    cover = max(audio.span if audio is not None else 0.0, source_s or 0.0)
    if cover <= 0:
        return ""
    times = content.frame_times
    n = len(times)
    if n / cover < MIN_FRAMES_PER_S:
        return f" ({n} frame(s) over {cover:.1f} s)"
    origin = min(s.start for s in (video, audio) if s is not None and s.start is not None)
    edges = np.concatenate([[origin], times, [origin + cover]])
    gaps = np.diff(edges)
    at = int(np.argmax(gaps))
    if gaps[at] > MAX_GAP_S:
        return f" (no new frame for {gaps[at]:.1f} s from {max(edges[at] - origin, 0.0):.1f} s)"
    return ""
