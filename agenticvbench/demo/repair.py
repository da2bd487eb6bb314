"""Demo repair tasks (65-67): synthetic sources, broken clips with real injected defects, inline profiles, runs.

Two sources, like the real cells that share one source per variant group: `demo1` (24 fps, AAC, as the real
v1 source) and `demo2` (25 fps, Opus, as the real v2-v7 sources). Defects: a video freeze (v01), a colour
grade shift (v04) and a pink-noise burst (v05), each on a window inside one scene.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.demo.common import BuildContext, repair_report, row, url, write_text
from agenticvbench.demo.media_gen import (
    Format,
    Scene,
    inject_color_shift,
    inject_freeze,
    inject_noise_burst,
    oracle_copy,
    render,
    strip_audio,
)
from agenticvbench.demo.profile import measure_source, scene_ref
from agenticvbench.demo.sizes import DemoSize

SOURCES: dict[str, tuple[Format, tuple[Scene, ...]]] = {
    "demo1": (
        Format(fps=24, audio="aac"),
        (
            Scene("bars", 3.0, (294.0, 370.0)),
            Scene("testsrc2", 4.5, (262.0, 330.0)),
            Scene("gradients", 3.5, (196.0, 247.0), seed=3),
            Scene("box:0x402010:white:20:260", 3.0, (220.0, 277.0)),
        ),
    ),
    "demo2": (
        Format(fps=25, audio="opus"),
        (
            Scene("testsrc2", 4.0, (330.0, 415.0), vf="hue=h=40"),
            Scene("gradients", 3.6, (247.0, 311.0), seed=5),
            Scene("box:0x203040:yellow:280:20", 4.0, (175.0, 220.0)),
            Scene("bars", 3.6, (262.0, 392.0)),
        ),
    ),
}


@dataclass(kw_only=True, frozen=True)
class RepairSpec:
    """One demo repair task: its cell, source, defect window and defect parameters."""

    task_id: int
    cell: str
    source: str
    defect: str  # freeze | color | noise
    start: float
    end: float
    scene: int
    params: dict[str, Any] = field(default_factory=dict)
    full_urls: bool = False


REPAIRS: tuple[RepairSpec, ...] = (
    RepairSpec(
        task_id=65,
        cell="demo/frozen_video_only",
        source="demo1",
        defect="freeze",
        start=4.0,
        end=5.5,
        scene=1,
        full_urls=True,
    ),
    RepairSpec(
        task_id=66,
        cell="demo/cold_desat",
        source="demo2",
        defect="color",
        start=4.4,
        end=7.2,
        scene=1,
        params={"saturation": 0.55, "contrast": 1.13, "rr": 0.85, "gg": 0.98, "bb": 1.15},
    ),
    RepairSpec(
        task_id=67,
        cell="demo/pink_noise",
        source="demo2",
        defect="noise",
        start=8.8,
        end=11.2,
        scene=2,
        params={"color": "pink", "amplitude": 0.1, "seed": 11},
    ),
)
_REPORT_TYPE = {"freeze": "frozen_frames", "color": "color_grade_shift", "noise": "audio_noise_burst"}

PROMPT = (
    "/workspace/materials/broken.mp4 is a finished edit that was damaged by one technical fault somewhere in its "
    "timeline. Find the fault, repair it so the video matches the undamaged edit as closely as possible, and keep "
    "the delivery format unchanged (container, video and audio codecs, resolution, frame rate, duration, audio "
    "sample rate). Write /workspace/output/fixed.mp4 and /workspace/output/report.md; the report must contain a "
    "`## Diagnosis` section with `- type:`, `- start:` and `- end:` lines (times in seconds)."
)


def bounds_of(scenes: tuple[Scene, ...]) -> list[tuple[float, float]]:
    """Scene [start, end) times of back-to-back scenes."""
    out, t = [], 0.0
    for sc in scenes:
        out.append((round(t, 6), round(t + sc.duration, 6)))
        t += sc.duration
    return out


def _injection(spec: RepairSpec, scenes: list[dict[str, Any]]) -> dict[str, Any]:
    """The profile's `injection` block for `spec`, in the official schema of its variant."""
    ts = scene_ref(scenes, spec.scene)
    dur = round(spec.end - spec.start, 6)
    common = {
        "rng_seed": spec.params.get("seed", 0),
        "start_s": spec.start,
        "end_s": spec.end,
        "duration_s": dur,
    }
    target = {"target_scene_index": spec.scene, "target_scene": ts}
    if spec.defect == "freeze":
        window = {**target, "insert_at_source_s": spec.start, "start_s": spec.start, "end_s": spec.end}
        return {
            "variant": "v01_frozen_scene",
            "subtask": "demo_frozen_video_only",
            **common,
            "mode": "frozen_video_only",
            "freeze_audio": False,
            "windows": [{**window, "duration_s": dur, "frames": None}],
            **target,
        }
    if spec.defect == "color":
        return {
            "variant": "v04_color_grade_shift",
            "subtask": "demo_cold_desat",
            **common,
            **target,
            **spec.params,
            "grade_name": "cold_desat",
        }
    return {
        "variant": "v05_noise_floor_spike",
        "subtask": "demo_pink",
        **common,
        **target,
        "noise_color": spec.params["color"],
        "noise_amplitude": spec.params["amplitude"],
    }


#: The injector of each defect; a spec's `params` are its keyword arguments.
_INJECT: dict[str, Callable[..., Path]] = {
    "freeze": inject_freeze,
    "color": inject_color_shift,
    "noise": inject_noise_burst,
}


#: The hand-written task of each defect: generated tasks take its cell and parameters.
_BY_DEFECT = {spec.defect: spec for spec in REPAIRS}
_LOOKS = ("bars", "testsrc2", "gradients", "box")


def _source_scenes(rng: random.Random, length: int, width: int, height: int) -> tuple[Scene, ...]:
    """Whole-second scenes (so windows fall on whole frames at 24 and 25 fps) adding up to `length`."""
    n = max(4, round(length / 15))
    durs = [length // n + (1 if k < length % n else 0) for k in range(n)]
    scenes = []
    for k, d in enumerate(durs):
        look = _LOOKS[(k + rng.randrange(4)) % 4] if k else _LOOKS[k % 4]
        if look == "box":
            side = height // 4
            x0, x1 = (20, width - side - 20) if rng.random() < 0.5 else (width - side - 20, 20)
            look = f"box:0x{rng.randrange(16, 96):02x}{rng.randrange(16, 64):02x}20:white:{x0}:{x1}"
        base = rng.choice([175.0, 196.0, 220.0, 262.0, 294.0])
        scenes.append(Scene(look, float(d), (base, round(base * 1.26, 1)), seed=k + 1))
    return tuple(scenes)


def repair_plan(size: DemoSize) -> tuple[dict[str, tuple[Format, tuple[Scene, ...]]], tuple[RepairSpec, ...]]:
    """The sources and repair tasks of `size`: the hand-written ones for `small`; else sources of
    `size.repair_source_s` seconds, each shared by `size.repair_per_source` cells (freeze, colour, noise)."""
    if size.hand_written:
        return SOURCES, REPAIRS
    sources: dict[str, tuple[Format, tuple[Scene, ...]]] = {}
    specs = []
    for i, tid in enumerate(size.ids("repair")):
        j = i // size.repair_per_source
        name = f"demo{j + 1}"
        if name not in sources:
            rng = random.Random(1000 + j)
            w, h = size.repair_frames[j % len(size.repair_frames)]
            fmt = Format(
                width=w,
                height=h,
                fps=24 if j % 2 == 0 else 25,
                audio="aac" if j % 2 == 0 else "opus",
                crf=size.crf,
                preset=size.preset,
            )
            length = int(rng.uniform(*size.repair_source_s))
            sources[name] = (fmt, _source_scenes(rng, length, w, h))
        scenes = sources[name][1]
        rng = random.Random(tid)
        defect = ("freeze", "color", "noise")[i % 3]
        k = rng.randrange(1, len(scenes))
        s0 = sum(sc.duration for sc in scenes[:k])
        span = max(1, min(3, int(scenes[k].duration) - 2))
        params = dict(_BY_DEFECT[defect].params)
        if defect == "noise":
            params["seed"] = tid
        specs.append(
            RepairSpec(
                task_id=tid,
                cell=_BY_DEFECT[defect].cell,
                source=name,
                defect=defect,
                start=s0 + 1,
                end=s0 + 1 + span,
                scene=k,
                params=params,
                full_urls=i % 2 == 0,
            )
        )
    return sources, tuple(specs)


def build_sources(
    ctx: BuildContext, sources: dict[str, tuple[Format, tuple[Scene, ...]]], name: str
) -> dict[str, Any]:
    """Render source `name` into the mirror and measure its profile blocks (all but `injection`)."""
    fmt, scenes = sources[name]
    src = ctx.mirror / f"repair/sources/{name}_source.mp4"
    render(src, scenes, fmt, workdir=ctx.work / name)
    return measure_source(src, src.name, bounds_of(scenes))


def _clock(t: float) -> str:
    return f"{int(t // 60)}:{t % 60:05.2f}"


def build_repair_task(
    ctx: BuildContext, spec: RepairSpec, i: int, fmt: Format, base: dict[str, Any]
) -> dict[str, Any]:
    """Write one broken clip and the runs' fixed.mp4/report.md (variant `i`); return its row (inline profile).

    `fmt` is the source's format and `base` its measured profile blocks (`build_sources`).
    """
    src_rel = f"repair/sources/{spec.source}_source.mp4"
    broken_rel = f"repair/materials/{spec.task_id}/broken.mp4"
    source, broken = ctx.mirror / src_rel, ctx.mirror / broken_rel
    broken.parent.mkdir(parents=True, exist_ok=True)
    _INJECT[spec.defect](source, broken, spec.start, spec.end, fmt, **spec.params)
    profile = {**base, "injection": _injection(spec, base["narrative"]["scene_list"])}

    def report(folder: Path, start: str, end: str, note: str) -> None:
        write_text(
            folder / "report.md", repair_report(spec.task_id, _REPORT_TYPE[spec.defect], start, end, note)
        )

    # perfect: the source's pictures and sound, its video re-encoded losslessly (a byte copy or a remux of the
    # verifier-only source is malformed), and the exact window (every third task writes M:SS.ff timestamps).
    perfect = ctx.task_dir("perfect", spec.task_id)
    oracle_copy(source, perfect / "fixed.mp4", "restored by the demo perfect run")
    fmt_t = _clock if i % 3 == 1 else (lambda t: f"{t:g}")
    report(perfect, fmt_t(spec.start), fmt_t(spec.end), "Located by comparing neighbouring frames and audio.")
    # partial: did nothing to the video, window 0.5 s late at both ends.
    partial = ctx.task_dir("partial", spec.task_id, output=i % 4 == 0)
    shutil.copyfile(broken, partial / "fixed.mp4")
    report(partial, f"{spec.start + 0.5:g}", f"{spec.end + 0.5:g}", "Approximate window.")
    # broken run: a truncated fixed.mp4 and no report; or a video-only fixed.mp4 and unparseable times; or an
    # empty folder. Made from the task's input, as an agent's would be: it never sees the verifier-only source.
    b = ctx.task_dir("broken", spec.task_id)
    if i % 3 == 0:
        with broken.open("rb") as fh:
            (b / "fixed.mp4").write_bytes(fh.read(4096))
    elif i % 3 == 1:
        strip_audio(broken, b / "fixed.mp4")
        report(b, f"{spec.start:g}s", f"{spec.end:g}s", "Times carry units.")
    rubric = {"cell": spec.cell, "profile": profile}
    return row(
        spec.task_id,
        "repair",
        PROMPT,
        [url(broken_rel, full=spec.full_urls)],
        rubric,
        vrefs=[url(src_rel, full=not spec.full_urls)],
    )


def source_path(mirror: Path, task_id: int) -> Path:
    """The mirror path of a demo repair task's source (for tests and the demo report)."""
    spec = next(s for s in REPAIRS if s.task_id == task_id)
    return mirror / f"repair/sources/{spec.source}_source.mp4"
