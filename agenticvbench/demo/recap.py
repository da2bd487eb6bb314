"""Demo recap tasks (1, 2): short films with a title card, a deliberate silence and clear cuts; rubrics; runs.

Each rubric has the shape of the real `rubric_items`: python items over the ffprobe /
ffmpeg / librosa / scenedetect kinds, llm items (routed by the judge: each task has a visual and an audio item,
task 2 an audio-visual one too), one compound item (python stage with `save_as`, then an llm
stage whose prompt uses `{name}`), one negative-weight item, pillars 0-3, and (as the Hub's union schema does)
some explicit null params. The perfect run's final.mp4 passes every python item; the partial run's fails a few.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, replace
from typing import Any

from agenticvbench.demo.common import BuildContext, row, url, write_text
from agenticvbench.demo.media_gen import Format, Scene, cut, render
from agenticvbench.demo.sizes import DemoSize

FMT = Format(width=320, height=180, fps=24, audio="aac")
FMT_OPUS = Format(width=320, height=180, fps=24, audio="opus")
FMT_SMALL = Format(width=256, height=144, fps=24, audio="aac")


@dataclass(kw_only=True, frozen=True)
class RecapSpec:
    """A recap task: its film, the perfect and partial cuts ([t0, t1] segments) and its rubric."""

    task_id: int
    title: str
    fmt: Format
    scenes: tuple[Scene, ...]
    perfect: tuple[tuple[float, float], ...]
    partial: tuple[tuple[float, float], ...]
    partial_small: bool
    brief: str
    rubric: tuple[dict[str, Any], ...]
    full_urls: bool


def _py(
    id_: str, pillar: int, kind: str, params: dict[str, Any], criterion: str, weight: float = 1.0
) -> dict[str, Any]:
    return {
        "id": id_,
        "pillar": pillar,
        "dispatch": "python",
        "kind": kind,
        "params": params,
        "criterion": criterion,
        "weight": weight,
    }


def _llm(id_: str, pillar: int, prompt: str, criterion: str, weight: float = 1.0) -> dict[str, Any]:
    return {
        "id": id_,
        "pillar": pillar,
        "dispatch": "llm",
        "prompt": prompt,
        "criterion": criterion,
        "weight": weight,
    }


RUBRIC_1: tuple[dict[str, Any], ...] = (
    _py(
        "fmt_duration",
        0,
        "ffprobe_duration_range",
        {"min": 8.0, "max": 16.0},
        "The recap runs between 8 and 16 seconds.",
        2.0,
    ),
    _py(
        "fmt_resolution",
        0,
        "ffprobe_resolution_eq",
        {"width": 320, "height": 180},
        "The recap keeps the film's 320x180 frame.",
    ),
    _py("fmt_video_codec", 0, "ffprobe_video_codec_in", {"codecs": ["h264"]}, "Video is H.264."),
    _py(
        "fmt_one_audio_track",
        0,
        "ffprobe_audio_streams",
        {"eq": 1, "min": None, "max": None},
        "Exactly one audio track.",
    ),
    _py(
        "vis_no_black_gap",
        1,
        "ffmpeg_blackdetect_max_run",
        {"max_seconds": 0.5, "exclude_last_seconds": 0.0, "pix_th": 0.1},
        "No black gap longer than half a second (deducted if violated).",
        -1.0,
    ),
    _py(
        "pol_no_dead_air",
        3,
        "librosa_silence_max_run",
        {"max_seconds": 1.0, "threshold_db": -40.0},
        "No stretch of silence longer than one second.",
    ),
    _py(
        "pol_short_shots",
        3,
        "scenedetect_max_shot_duration",
        {"max_seconds": 4.0},
        "No shot is held longer than four seconds.",
    ),
    _llm(
        "nar_title_card",
        2,
        "Does the video open on a title card that reads 'THE LIGHTHOUSE'?",
        "Opens with the film's title card.",
        2.0,
    ),
    _llm(
        "nar_coverage",
        2,
        "Does the recap show material from the beginning, the middle and the end of the "
        "film (test pattern, colour gradients, colour bars and the orange square), in the film's order?",
        "Covers the whole film in order.",
    ),
    _llm(
        "pol_tone_audible",
        3,
        "Is a steady musical tone audible under the whole recap, with no audio dropouts?",
        "A tone plays under the cut.",
    ),
    {
        "id": "pol_pacing",
        "pillar": 3,
        "dispatch": "compound",
        "weight": 1.0,
        "criterion": "Shots are brisk but readable.",
        "stages": [
            {
                "dispatch": "python",
                "kind": "scenedetect_median_shot_duration",
                "params": {"min": 1.0, "max": 4.0},
                "save_as": "shots",
            },
            {
                "dispatch": "llm",
                "prompt": "A shot analysis of this recap reports: {shots}. Watching the video, is "
                "the pacing brisk but readable, with no shot that feels rushed or stalled?",
            },
        ],
    },
)

RUBRIC_2: tuple[dict[str, Any], ...] = (
    _py(
        "fmt_duration",
        0,
        "ffprobe_duration_range",
        {"min": 6.0, "max": 12.0},
        "The recap runs between 6 and 12 seconds.",
    ),
    _py(
        "fmt_resolution",
        0,
        "ffprobe_resolution_in",
        {"options": [[320, 180], [640, 360]]},
        "A 16:9 delivery size (320x180 or 640x360).",
    ),
    _py("fmt_fps", 0, "ffprobe_fps_range", {"min": 23.0, "max": 25.0}, "Frame rate between 23 and 25 fps."),
    _py("fmt_audio_codec", 0, "ffprobe_audio_codec_in", {"codecs": ["aac", "opus"]}, "Audio is AAC or Opus."),
    _py(
        "pol_loud_enough",
        3,
        "ffmpeg_audio_loudness_min",
        {"threshold_db": -35.0},
        "Mean loudness above -35 dB.",
    ),
    _py(
        "pol_no_dead_air",
        3,
        "librosa_silence_max_run",
        {"max_seconds": 1.0, "threshold_db": -40.0},
        "No stretch of silence longer than one second.",
        1.5,
    ),
    _py(
        "vis_short_shots",
        1,
        "scenedetect_max_shot_duration",
        {"max_seconds": 3.5},
        "No shot is held longer than three and a half seconds.",
    ),
    _py(
        "fmt_decodes_cleanly",
        0,
        "ffmpeg_decode_no_errors",
        {},
        "Decodes without errors (deducted if not).",
        -0.5,
    ),
    _llm(
        "nar_story",
        2,
        "Does this recap show the market's opening title, the cyan square crossing the "
        "frame and the colour-bar finale, ending on a closing card?",
        "Tells the film's story.",
        2.0,
    ),
    _llm(
        "pol_music_bed",
        3,
        "Does music play under the teaser from start to finish, at an even volume?",
        "A steady music bed.",
    ),
    _llm(
        "nar_closing_sound",
        2,
        "Does the sound continue while the closing card 'SEE YOU SOON' is on screen?",
        "Sound over the closing card.",
    ),
    {
        "id": "nar_length_fit",
        "pillar": 2,
        "dispatch": "compound",
        "weight": 1.0,
        "criterion": "The length suits a teaser.",
        "stages": [
            {
                "dispatch": "python",
                "kind": "ffprobe_duration_range",
                "params": {"min": 6.0, "max": 12.0},
                "save_as": "dur",
            },
            {
                "dispatch": "llm",
                "prompt": "Duration check: {dur}. Does this length feel right for a social-media "
                "teaser of the film, neither padded nor truncated?",
            },
        ],
    },
)

RECAPS: tuple[RecapSpec, ...] = (
    RecapSpec(
        task_id=1,
        title="The Lighthouse",
        fmt=FMT,
        scenes=(
            Scene("card:THE LIGHTHOUSE", 3.0, (220.0, 277.0)),
            Scene("testsrc2", 4.0, (262.0, 330.0)),
            Scene("black", 2.0, ()),
            Scene("gradients", 5.0, (196.0, 247.0), seed=3),
            Scene("bars", 4.0, (294.0, 370.0)),
            Scene("box:0x102a50:orange:20:260", 4.0, (175.0, 220.0)),
            Scene("card:THE END", 2.0, (220.0,)),
        ),
        perfect=((0.0, 2.0), (3.5, 6.0), (10.0, 12.5), (15.0, 17.5), (19.0, 21.5)),
        partial=((0.0, 2.0), (5.0, 11.0), (15.0, 17.5)),
        partial_small=True,
        brief="Cut a 8-16 second recap of the film that opens on its title card, covers its beginning, middle "
        "and end in order, keeps the film's format, and has no dead air or black gaps.",
        rubric=RUBRIC_1,
        full_urls=True,
    ),
    RecapSpec(
        task_id=2,
        title="Night Market",
        fmt=FMT_OPUS,
        scenes=(
            Scene("card:NIGHT MARKET|a demo film", 2.5, (247.0, 311.0)),
            Scene("box:0x301020:cyan:280:20", 4.0, (196.0, 294.0)),
            Scene("testsrc2", 4.0, (330.0, 440.0), vf="hue=h=120"),
            Scene("gradients", 2.0, (), seed=7),
            Scene("bars", 4.0, (262.0, 330.0)),
            Scene("card:SEE YOU SOON", 3.5, (220.0, 330.0)),
        ),
        perfect=((0.0, 2.0), (3.0, 5.5), (7.0, 9.5), (13.0, 15.5), (17.0, 18.5)),
        partial=((2.5, 12.5),),
        partial_small=False,
        brief="Make a 6-12 second teaser of the film: title first, then the cyan square, the street scene and "
        "the colour-bar finale, ending on a closing card. Keep it punchy: no held shots, no silence.",
        rubric=RUBRIC_2,
        full_urls=False,
    ),
)

PROMPT = (
    '/workspace/materials/film.mp4 is a short film, "{title}". {brief} Write the recap to '
    "/workspace/output/final.mp4 and a short /workspace/output/report.md describing your cut."
)


def _scaled_look(look: str, k: float) -> str:
    """A look with its pixel coordinates (moving squares) scaled by `k`."""
    if not look.startswith("box:"):
        return look
    _, bg, fg, x0, x1 = look.split(":")
    return f"box:{bg}:{fg}:{round(float(x0) * k)}:{round(float(x1) * k)}"


def _scaled_rubric(rubric: tuple[dict[str, Any], ...], width: int, height: int) -> tuple[dict[str, Any], ...]:
    """`rubric` with its frame-size items asking for `width` x `height` (and half of it, for `_in` items)."""
    out = copy.deepcopy(list(rubric))
    for item in out:
        if item.get("kind") == "ffprobe_resolution_eq":
            item["params"] = {"width": width, "height": height}
            item["criterion"] = f"The recap keeps the film's {width}x{height} frame."
        elif item.get("kind") == "ffprobe_resolution_in":
            item["params"] = {"options": [[width, height], [width // 2, height // 2]]}
            item["criterion"] = f"A 16:9 delivery size ({width}x{height} or {width // 2}x{height // 2})."
    return tuple(out)


def recap_specs(size: DemoSize) -> tuple[RecapSpec, ...]:
    """The recap tasks of `size`: the hand-written ones for `small`; else the two hand-written films stretched
    to `size.recap_film_s` seconds at `size.recap_frame` (cut points scaled with them, shot lengths kept, so
    the rubrics' duration and pacing items still apply)."""
    if size.hand_written:
        return RECAPS
    w, h = size.recap_frame
    specs = []
    for i, tid in enumerate(size.ids("recap")):
        base = RECAPS[i % 2]
        rng = random.Random(tid)
        length = rng.uniform(*size.recap_film_s)
        base_len = sum(sc.duration for sc in base.scenes)
        k = max(1, round(length / base_len))
        fmt = replace(base.fmt, width=w, height=h, crf=size.crf, preset=size.preset)
        scenes = tuple(
            replace(sc, duration=sc.duration * k, look=_scaled_look(sc.look, w / 320)) for sc in base.scenes
        )
        perfect = tuple((t0 * k, t0 * k + (t1 - t0)) for t0, t1 in base.perfect)
        partial = tuple((t0 * k, t0 * k + (t1 - t0)) for t0, t1 in base.partial)
        specs.append(
            replace(
                base,
                task_id=tid,
                title=f"{base.title} {tid}",
                fmt=fmt,
                scenes=scenes,
                perfect=perfect,
                partial=partial,
                rubric=_scaled_rubric(base.rubric, w, h),
                full_urls=i % 2 == 0,
            )
        )
    return tuple(specs)


def build_recap_task(ctx: BuildContext, spec: RecapSpec, i: int) -> dict[str, Any]:
    """Write one film and the runs' final.mp4 files (variant `i`); return its dataset row."""
    rel = f"recap/materials/{spec.task_id}/film.mp4"
    film = render(ctx.mirror / rel, spec.scenes, spec.fmt, workdir=ctx.work / f"recap{spec.task_id}")
    perfect = ctx.task_dir("perfect", spec.task_id, output=i % 4 == 0)
    cut(film, perfect / "final.mp4", spec.perfect, spec.fmt)
    write_text(perfect / "report.md", f"# Recap of {spec.title}\n\nSegments used: {list(spec.perfect)}\n")
    partial = ctx.task_dir("partial", spec.task_id)
    small = replace(FMT_SMALL, crf=spec.fmt.crf, preset=spec.fmt.preset)
    cut(film, partial / "final.mp4", spec.partial, small if spec.partial_small else spec.fmt)
    prompt = PROMPT.format(title=spec.title, brief=spec.brief)
    broken = ctx.task_dir("broken", spec.task_id)
    if i % 2 == 0:  # broken run: an empty final.mp4
        (broken / "final.mp4").write_bytes(b"")
    else:  # broken run: only a report
        write_text(broken / "report.md", "# Recap\n\nRender failed; no final.mp4 was written.\n")
    return row(spec.task_id, "recap", prompt, [url(rel, full=spec.full_urls)], list(spec.rubric))
