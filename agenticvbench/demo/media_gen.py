"""Synthetic media for the demo benchmark: lavfi scenes, cuts and injected defects, byte-for-byte reproducible.

Everything goes through `agenticvbench.media.run_ffmpeg` (the bundled ffmpeg). Determinism comes from lavfi
sources with fixed seeds, single-threaded x264, `+bitexact` muxing/encoding and no metadata; on one machine
(one ffmpeg build) the same call always writes the same bytes. Text cards are drawn with OpenCV's built-in
Hershey font, so no system font (and no drawtext/fontconfig) is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from agenticvbench.media import run_ffmpeg

SAMPLE_RATE = 48000
_GLOBAL = ["-v", "error", "-y", "-filter_complex_threads", "1"]
BITEXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1"]
_GRADIENT_PALETTE = (
    ("0x2040a0", "0xe08030"),
    ("0x108060", "0xf0d040"),
    ("0x602080", "0x40c0e0"),
    ("0xa02020", "0x3050c0"),
    ("0x204020", "0xd0a0f0"),
)
#: FFmpeg's own Opus encoder, not libopus: libopus picks its SIMD code by CPU at run time and its float paths are not
#: bit-exact, so the same demo built on an AVX-512 host and an AVX2 host had other Opus packets (and repair edit
#: scores 2.6e-4 apart). FFmpeg's encoder writes the same packets on every x86-64 level (checked down to SSE4.2).
_AUDIO_ARGS = {
    "aac": ["-c:a", "aac", "-b:a", "64k"],
    "opus": ["-c:a", "opus", "-strict", "experimental", "-b:a", "48k"],
}


@dataclass(frozen=True)
class Scene:
    """One shot: a look (see `_video_source`), a duration, and a chord (Hz; empty = silence).

    `look` is one of `testsrc2`, `bars`, `gradients`, `mandelbrot`, `box:<bg>:<fg>:<x0>:<x1>` (a square
    moving from x0 to x1 px over a plain background), `black`, or `card:<TEXT>` (big centred text).
    `vf` is appended to the shot's video chain (e.g. `hue=h=60` for a distractor take).
    """

    look: str
    duration: float
    chord: tuple[float, ...] = (220.0,)
    vf: str = ""
    seed: int = 1


@dataclass(kw_only=True, frozen=True)
class Format:
    """Output geometry and codecs. `audio` is `aac`, `opus` or None (video only)."""

    width: int = 320
    height: int = 180
    fps: int = 24
    audio: str | None = "aac"
    crf: int = 30
    preset: str = "superfast"


def text_card(path: Path, text: str, fmt: Format, *, bg: tuple[int, int, int] = (70, 30, 20)) -> Path:
    """Draw `text` (big, white, centred, OpenCV Hershey font) on a plain BGR background and save it as PNG."""
    img = np.zeros((fmt.height, fmt.width, 3), np.uint8)
    img[:] = bg
    lines = text.split("|")
    font, thick = cv2.FONT_HERSHEY_DUPLEX, 2
    scale = 1.0 * fmt.width / 320
    sizes = [cv2.getTextSize(line, font, scale, thick)[0] for line in lines]
    line_h = max(h for _, h in sizes) + int(14 * scale)
    y = (fmt.height - line_h * len(lines)) // 2 + line_h - int(7 * scale)
    for line, (w, _) in zip(lines, sizes, strict=True):
        cv2.putText(img, line, ((fmt.width - w) // 2, y), font, scale, (255, 255, 255), thick, cv2.LINE_AA)
        y += line_h
    cv2.rectangle(img, (8, 8), (fmt.width - 9, fmt.height - 9), (200, 200, 200), 1)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), img):
        raise OSError(f"cannot write {path}")
    return path


def _frames(duration: float, fps: int) -> int:
    n = duration * fps
    if abs(n - round(n)) > 1e-6:
        raise ValueError(f"scene duration {duration}s is not a whole number of frames at {fps} fps")
    return int(round(n))


def _moving_square(
    base: str, fg: str, side: int, x0: float, x1: float, y: int, scene: Scene, fmt: Format, uid: str
) -> str:
    """`base` with a `side`-px square moving linearly from x0 to x1 (overlay evaluates `t` per frame)."""
    d = f"{scene.duration:g}"
    speed = (x1 - x0) / scene.duration
    return (
        f"{base}[bg{uid}];color=c={fg}:s={side}x{side}:r={fmt.fps}:d={d}[fg{uid}];"
        f"[bg{uid}][fg{uid}]overlay=x='{x0:g}+{speed:g}*t':y={y}:shortest=1"
    )


def _video_source(scene: Scene, fmt: Format, uid: str) -> str:
    """The filter chain (possibly several `;`-joined chains with labels suffixed by `uid`) making one shot."""
    s, r, d = f"{fmt.width}x{fmt.height}", fmt.fps, f"{scene.duration:g}"
    kind, _, arg = scene.look.partition(":")
    if kind == "testsrc2":
        return f"testsrc2=s={s}:r={r}:d={d}"
    if kind == "bars":
        side = fmt.width // 8
        bars = f"smptebars=s={s}:r={r}:d={d}"
        return _moving_square(bars, "white", side, 0, fmt.width - side, fmt.height // 3, scene, fmt, uid)
    if kind == "gradients":  # explicit colours and line: the defaults are random even with a seed
        c0, c1 = _GRADIENT_PALETTE[scene.seed % len(_GRADIENT_PALETTE)]
        return (
            f"gradients=s={s}:r={r}:d={d}:speed=0.04:seed={scene.seed}:c0={c0}:c1={c1}"
            f":x0=0:y0=0:x1={fmt.width}:y1={fmt.height}"
        )
    if kind == "mandelbrot":
        return f"mandelbrot=s={s}:r={r}:end_scale=0.05,trim=duration={d}"
    if kind == "black":
        return f"color=c=black:s={s}:r={r}:d={d}"
    if kind == "box":
        bg, fg, x0, x1 = arg.split(":")
        side = fmt.height // 4
        plain = f"color=c={bg}:s={s}:r={r}:d={d}"
        return _moving_square(
            plain, fg, side, float(x0), float(x1), (fmt.height - side) // 2, scene, fmt, uid
        )
    raise ValueError(f"unknown look {scene.look!r}")


def _audio_source(scene: Scene, uid: str) -> str:
    """A chord of sines (peak 0.5; `sine` makes 1/8 amplitude) with a 2 Hz tremolo, or digital silence."""
    d = f"{scene.duration:g}"
    fmt = f"aformat=sample_fmts=fltp:sample_rates={SAMPLE_RATE}:channel_layouts=stereo"
    if not scene.chord:
        return f"anullsrc=channel_layout=stereo:sample_rate={SAMPLE_RATE}:duration={d},{fmt}"
    tones = ";".join(f"sine=f={f:g}:r={SAMPLE_RATE}:d={d}[t{uid}_{k}]" for k, f in enumerate(scene.chord))
    labels = "".join(f"[t{uid}_{k}]" for k in range(len(scene.chord)))
    return (
        f"{tones};{labels}amix=inputs={len(scene.chord)}:normalize=0,volume={4.0 / len(scene.chord):g},"
        f"tremolo=f=2:d=0.2,{fmt}"
    )


def _encode_args(fmt: Format, *, audio: bool) -> list[str]:
    args = ["-c:v", "libx264", "-preset", fmt.preset, "-crf", str(fmt.crf), "-pix_fmt", "yuv420p"]
    args += ["-g", str(2 * fmt.fps), "-threads", "1"]
    if audio and fmt.audio:
        args += _audio_args(fmt.audio)
    return [*args, *BITEXACT]


def _audio_args(audio: str) -> list[str]:
    return [*_AUDIO_ARGS[audio], "-ar", str(SAMPLE_RATE), "-ac", "2"]


def _ffmpeg(src: Path, out: Path, *args: str) -> Path:
    """Run ffmpeg on the input `src` with the output options `args`, writing `out`."""
    run_ffmpeg([*_GLOBAL, "-i", str(src), *args, str(out)], check=True)
    return out


def render_many(jobs: Sequence[tuple[Path, Sequence[Scene]]], fmt: Format, *, workdir: Path) -> list[Path]:
    """Render several clips (each a list of scenes played back to back) in ONE ffmpeg process.

    One process for many small outputs keeps the build fast (ffmpeg start-up dominates tiny clips).
    Card scenes are drawn to PNGs under `workdir`.
    """
    inputs: list[str] = []
    n_inputs = 0
    graph: list[str] = []
    outputs: list[str] = []
    for j, (out, scenes) in enumerate(jobs):
        labels = []
        for i, sc in enumerate(scenes):
            _frames(sc.duration, fmt.fps)
            extra = f",{sc.vf}" if sc.vf else ""
            if sc.look.startswith("card:"):
                png = text_card(workdir / f"card-{j}-{i}.png", sc.look[5:], fmt)
                inputs += ["-loop", "1", "-framerate", str(fmt.fps), "-t", f"{sc.duration:g}", "-i", str(png)]
                graph.append(f"[{n_inputs}:v]format=yuv420p,setsar=1{extra}[v{j}_{i}]")
                n_inputs += 1
            else:
                graph.append(f"{_video_source(sc, fmt, f'{j}_{i}')},format=yuv420p,setsar=1{extra}[v{j}_{i}]")
            labels.append(f"[v{j}_{i}]")
            if fmt.audio:
                graph.append(f"{_audio_source(sc, f'{j}_{i}')}[a{j}_{i}]")
                labels.append(f"[a{j}_{i}]")
        audio_out = f"[ao{j}]" if fmt.audio else ""
        graph.append(
            f"{''.join(labels)}concat=n={len(scenes)}:v=1:a={int(bool(fmt.audio))}[vo{j}]{audio_out}"
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        audio_map = ["-map", f"[ao{j}]"] if fmt.audio else []
        outputs += ["-map", f"[vo{j}]", *audio_map, *_encode_args(fmt, audio=True), str(out)]
    run_ffmpeg([*_GLOBAL, *inputs, "-filter_complex", ";".join(graph), *outputs], check=True)
    return [out for out, _ in jobs]


def render(out: Path, scenes: Sequence[Scene], fmt: Format, *, workdir: Path) -> Path:
    """Render one clip from `scenes` (see `render_many`)."""
    return render_many([(out, scenes)], fmt, workdir=workdir)[0]


def cut(src: Path, out: Path, segments: Sequence[tuple[float, float]], fmt: Format) -> Path:
    """Re-encode the `segments` ([t0, t1] seconds) of `src` back to back, scaled to `fmt`'s size."""
    graph, labels = [], []
    has_audio = fmt.audio is not None
    for i, (t0, t1) in enumerate(segments):
        graph.append(
            f"[0:v]trim=start={t0:g}:end={t1:g},setpts=PTS-STARTPTS,"
            f"scale={fmt.width}:{fmt.height},setsar=1[v{i}]"
        )
        labels.append(f"[v{i}]")
        if has_audio:
            graph.append(f"[0:a]atrim=start={t0:g}:end={t1:g},asetpts=PTS-STARTPTS[a{i}]")
            labels.append(f"[a{i}]")
    graph.append(
        f"{''.join(labels)}concat=n={len(segments)}:v=1:a={int(has_audio)}[v]" + ("[a]" if has_audio else "")
    )
    maps = ["-map", "[v]", *(["-map", "[a]"] if has_audio else [])]
    return _ffmpeg(src, out, "-filter_complex", ";".join(graph), *maps, *_encode_args(fmt, audio=True))


def _window(start: float, end: float) -> str:
    return f"gte(t,{start:g})*lt(t,{end:g})"


def _regrade(src: Path, out: Path, graph: str, fmt: Format) -> Path:
    """Re-encode the video of `src` through the filter `graph` (output `[v]`); audio copied untouched."""
    video = _encode_args(fmt, audio=False)
    return _ffmpeg(src, out, "-filter_complex", graph, "-map", "[v]", "-map", "0:a", *video, "-c:a", "copy")


def inject_freeze(src: Path, out: Path, start: float, end: float, fmt: Format) -> Path:
    """v01-style defect: the frames in [start, end) all show the frame at `start`; audio is copied untouched."""
    first, last = _frames(start, fmt.fps), _frames(end, fmt.fps) - 1
    graph = f"[0:v]split[a][b];[a][b]freezeframes=first={first}:last={last}:replace={first}[v]"
    return _regrade(src, out, graph, fmt)


def inject_color_shift(
    src: Path,
    out: Path,
    start: float,
    end: float,
    fmt: Format,
    *,
    saturation: float,
    contrast: float,
    rr: float,
    gg: float,
    bb: float,
) -> Path:
    """v04-style defect: a colour grade (eq + channel gains) applied to [start, end) only; audio copied."""
    w = _window(start, end)
    graph = (
        f"[0:v]eq=saturation={saturation:g}:contrast={contrast:g}:enable='{w}',"
        f"colorchannelmixer=rr={rr:g}:gg={gg:g}:bb={bb:g}:enable='{w}'[v]"
    )
    return _regrade(src, out, graph, fmt)


def inject_noise_burst(
    src: Path, out: Path, start: float, end: float, fmt: Format, *, color: str, amplitude: float, seed: int
) -> Path:
    """v05-style defect: seeded coloured noise mixed into the audio over [start, end); video stream-copied."""
    w = _window(start, end)
    graph = (
        f"anoisesrc=color={color}:amplitude={amplitude:g}:seed={seed}:r={SAMPLE_RATE},"
        f"aformat=channel_layouts=stereo,volume=0:enable='not({w})'[n];"
        f"[0:a][n]amix=inputs=2:normalize=0:duration=first[a]"
    )
    assert fmt.audio is not None
    audio = _audio_args(fmt.audio)
    return _ffmpeg(
        src, out, "-filter_complex", graph, "-map", "0:v", "-map", "[a]", "-c:v", "copy", *audio, *BITEXACT
    )


def remux(src: Path, out: Path, comment: str) -> Path:
    """Stream-copy every stream of `src` into a new file tagged with `comment` (same frames, other bytes)."""
    return _ffmpeg(src, out, "-map", "0", "-c", "copy", *BITEXACT, "-metadata", f"comment={comment}")


def _decode_lead(src: Path) -> int:
    """How many frames the first video packet of `src` is decoded ahead of its display (B-frame reordering):
    (its pts - its dts) / its duration; 0 without video or timestamps."""
    import av

    with av.open(str(src)) as container:
        if not container.streams.video:
            return 0
        for packet in container.demux(container.streams.video[0]):
            if packet.pts is None or packet.dts is None or not packet.duration:
                return 0
            return max(0, round((packet.pts - packet.dts) / packet.duration))
    return 0


def oracle_copy(src: Path, out: Path, comment: str) -> Path:
    """The oracle's answer built from a verifier-only source: its video re-encoded losslessly (x264 `-qp 0`,
    same pixel format, timestamps and key frames, so every decoded frame is the source's), every other stream
    copied. The video's decode timestamps lead its display by as many frames as the source's do (the edit list
    an MP4 muxer writes from them moves where a seek lands), so per-chunk audio extraction starts at the same
    packets and the sound scores what the source's does.

    A remux would hand back the source's very packets, which scoring refuses as a copy of the reference."""
    lead = _decode_lead(src)
    shift = ["-bsf:v", f"setts=dts=DTS-{lead}*DURATION"] if lead else []
    lossless = ["-c:v", "libx264", "-qp", "0", "-preset", "ultrafast", "-threads", "1"]
    timing = ["-fps_mode", "passthrough", "-force_key_frames", "source", *shift]
    return _ffmpeg(
        src, out, "-map", "0", "-c", "copy", *lossless, *timing, *BITEXACT, "-metadata", f"comment={comment}"
    )


def strip_audio(src: Path, out: Path) -> Path:
    """Copy `src` without its audio streams (video stream-copied)."""
    return _ffmpeg(src, out, "-map", "0:v", "-c:v", "copy", "-an", *BITEXACT)
