"""Measure a synthetic repair source and write its ground-truth profile in the official `profile.json` schema.

The official profiles carry `format`, `visual`, `narrative`, `sound` and `injection`. Only
`format.duration_s`, the scene list and the injection drive scoring; the descriptive statistics are measured
here so a demo profile looks and reads like a real one. Definitions (ours; the upstream ones are not published):
luminance = mean of the grey frame; sharpness = variance of the grey Laplacian / 100; motion = mean absolute
grey difference to the previous frame of the same scene; mean_rgb = per-channel mean; phash = the 64-bit DCT
perceptual hash (imagehash style) of the scene's middle frame; sound levels from 100 ms RMS windows;
`integrated_lufs`, `loudness_range_lu` and `true_peak_dbfs` from ffmpeg's `ebur128` filter.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from agenticvbench.media import decode_audio, iter_frames, probe, run_ffmpeg


def _phash(gray: np.ndarray) -> str:
    small = cv2.resize(gray, (32, 32), interpolation=cv2.INTER_AREA).astype(np.float32)
    low = cv2.dct(small)[:8, :8]
    bits = (low > np.median(low)).flatten()
    return f"{int(''.join('1' if b else '0' for b in bits), 2):016x}"


def scene_stats(
    path: Path, bounds: Sequence[tuple[float, float]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-scene statistics (`narrative.scene_list`) and frame-level ranges (`visual`) for `path`."""
    acc: list[dict[str, Any]] = [
        {"n": 0, "lum": 0.0, "sharp": 0.0, "motion": 0.0, "nm": 0, "rgb": np.zeros(3), "mid": None}
        for _ in bounds
    ]
    ranges: dict[str, list[float]] = {"sharpness": [], "luminance": [], "motion": []}
    prev: tuple[int, np.ndarray] | None = None
    for frame in iter_frames(path, pix_fmt="bgr24", threads=False):
        t = frame.time
        k = next((i for i, (a, b) in enumerate(bounds) if a - 1e-6 <= t < b - 1e-6), len(bounds) - 1)
        img = frame.image
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        a = acc[k]
        lum = cv2.mean(gray)[0]
        sharp = float(cv2.meanStdDev(cv2.Laplacian(gray, cv2.CV_64F))[1][0, 0] ** 2) / 100.0
        a["n"] += 1
        a["lum"] += lum
        a["sharp"] += sharp
        a["rgb"] += np.array(cv2.mean(img)[2::-1])
        if a["mid"] is None and t >= (bounds[k][0] + bounds[k][1]) / 2:
            a["mid"] = gray
        ranges["sharpness"].append(sharp)
        ranges["luminance"].append(lum)
        if prev is not None and prev[0] == k:
            m = cv2.mean(cv2.absdiff(gray, prev[1]))[0]
            a["motion"] += m
            a["nm"] += 1
            ranges["motion"].append(m)
        prev = (k, gray)
    scenes = []
    for i, ((start, end), a) in enumerate(zip(bounds, acc, strict=True)):
        n = max(1, a["n"])
        mid = a["mid"] if a["mid"] is not None else np.zeros((8, 8), np.uint8)
        scenes.append(
            {
                "index": i,
                "start_s": round(start, 6),
                "end_s": round(end, 6),
                "duration_s": round(end - start, 6),
                "sharpness": round(a["sharp"] / n, 2),
                "luminance": round(a["lum"] / n, 2),
                "motion": round(a["motion"] / max(1, a["nm"]), 3),
                "mean_rgb": [round(float(c) / n, 2) for c in a["rgb"]],
                "phash": _phash(mid),
            }
        )
    visual = {
        "shot_boundaries_s": [round(a, 6) for a, _ in bounds],
        **{
            f"{k}_range": [round(min(v), 3 if k == "motion" else 2), round(max(v), 3 if k == "motion" else 2)]
            for k, v in ranges.items()
            if v
        },
    }
    return scenes, visual


def _ebur128(path: Path) -> dict[str, float]:
    proc = run_ffmpeg(
        ["-nostats", "-i", str(path), "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-"],
        check=True,
    )
    text = proc.stderr.decode("utf-8", "replace")
    summary = text[text.rfind("Summary:") :]
    out = {}
    for key, name in (("I", "integrated_lufs"), ("LRA", "loudness_range_lu"), ("Peak", "true_peak_dbfs")):
        m = re.search(rf"^\s*{key}:\s*(-?[\d.]+|-inf)", summary, re.M)
        out[name] = float(m.group(1)) if m and m.group(1) != "-inf" else -70.0
    return out


def sound_stats(path: Path) -> dict[str, Any]:
    """The profile's `sound` block for the first audio stream of `path`."""
    a = probe(path).audio
    assert a is not None, f"{path} has no audio"
    x = decode_audio(path, sample_rate=48000, mono=True).astype(np.float64)
    win = 4800
    n = len(x) // win
    rms = np.sqrt(np.mean(x[: n * win].reshape(n, win) ** 2, axis=1)) if n else np.zeros(1)
    db = 20 * np.log10(np.maximum(rms, 1e-9))
    return {
        "noise_floor_dbfs": round(float(np.percentile(db, 5)), 2),
        "rms_db_p50": round(float(np.percentile(db, 50)), 2),
        "rms_db_p95": round(float(np.percentile(db, 95)), 2),
        "audio_duration_s": round(a.duration if a.duration is not None else len(x) / 48000, 3),
        **_ebur128(path),
        "sample_rate": a.sample_rate,
        "channels": a.channels,
        "codec": a.codec_name,
    }


def format_block(path: Path) -> dict[str, Any]:
    """The profile's `format` block (ffprobe vocabulary), measured on the source."""
    info = probe(path)
    v = info.video
    assert v is not None and v.width and v.height, f"{path} has no video"
    g = math.gcd(v.width, v.height)
    return {
        "resolution": {"w": v.width, "h": v.height},
        "framerate": round(v.fps or 0.0, 3),
        "duration_s": round(info.duration or 0.0, 3),
        "codec": v.codec_name,
        "container": info.format_name,
        "pix_fmt": v.pix_fmt,
        "aspect_ratio": f"{v.width // g}:{v.height // g}",
        "bitrate_bps": info.bit_rate,
        "nb_frames": v.nb_frames,
    }


def scene_ref(scenes: list[dict[str, Any]], index: int) -> dict[str, Any]:
    """The short scene dict embedded in injections (`index`, `start_s`, `end_s`, `duration_s`)."""
    s = scenes[index]
    return {k: s[k] for k in ("index", "start_s", "end_s", "duration_s")}


def measure_source(source: Path, source_name: str, bounds: Sequence[tuple[float, float]]) -> dict[str, Any]:
    """Every profile block except `injection` (shared by all cells cut from one source)."""
    scenes, visual = scene_stats(source, bounds)
    return {
        "source_file": source_name,
        "format": format_block(source),
        "visual": visual,
        "narrative": {"scene_count": len(scenes), "scene_list": scenes},
        "sound": sound_stats(source),
    }
