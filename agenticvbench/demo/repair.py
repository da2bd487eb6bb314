"""Demo repair tasks (65-67): synthetic sources, broken clips with real injected defects, inline profiles, runs.

Two sources, like the real cells that share one source per variant group: `demo1` (24 fps, AAC, as the real
v1 source) and `demo2` (25 fps, Opus, as the real v2-v7 sources). Defects: a video freeze (v01), a colour
grade shift (v04) and a pink-noise burst (v05), each on a window inside one scene.
"""

from __future__ import annotations

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
    remux,
    render,
    strip_audio,
)
from agenticvbench.demo.profile import measure_source, scene_ref

SOURCES: dict[str, tuple[Format, tuple[Scene, ...]]] = {
    "demo1": (Format(fps=24, audio="aac"), (
        Scene("bars", 3.0, (294.0, 370.0)),
        Scene("testsrc2", 4.5, (262.0, 330.0)),
        Scene("gradients", 3.5, (196.0, 247.0), seed=3),
        Scene("box:0x402010:white:20:260", 3.0, (220.0, 277.0)))),
    "demo2": (Format(fps=25, audio="opus"), (
        Scene("testsrc2", 4.0, (330.0, 415.0), vf="hue=h=40"),
        Scene("gradients", 3.6, (247.0, 311.0), seed=5),
        Scene("box:0x203040:yellow:280:20", 4.0, (175.0, 220.0)),
        Scene("bars", 3.6, (262.0, 392.0)))),
}


@dataclass(frozen=True)
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
    RepairSpec(65, "demo/frozen_video_only", "demo1", "freeze", 4.0, 5.5, 1, full_urls=True),
    RepairSpec(66, "demo/cold_desat", "demo2", "color", 4.4, 7.2, 1,
               {"saturation": 0.55, "contrast": 1.13, "rr": 0.85, "gg": 0.98, "bb": 1.15}),
    RepairSpec(67, "demo/pink_noise", "demo2", "noise", 8.8, 11.2, 2,
               {"color": "pink", "amplitude": 0.1, "seed": 11}),
)
_REPORT_TYPE = {"freeze": "frozen_frames", "color": "color_grade_shift", "noise": "audio_noise_burst"}

PROMPT = (
    "/workspace/materials/broken.mp4 is a finished edit that was damaged by one technical fault somewhere in its "
    "timeline. Find the fault, repair it so the video matches the undamaged edit as closely as possible, and keep "
    "the delivery format unchanged (container, video and audio codecs, resolution, frame rate, duration, audio "
    "sample rate). Write /workspace/output/fixed.mp4 and /workspace/output/report.md; the report must contain a "
    "`## Diagnosis` section with `- type:`, `- start:` and `- end:` lines (times in seconds).")


def bounds_of(scenes: tuple[Scene, ...]) -> list[tuple[float, float]]:
    """Scene [start, end) times of back-to-back scenes."""
    out, t = [], 0.0
    for sc in scenes:
        out.append((round(t, 6), round(t + sc.duration, 6)))
        t += sc.duration
    return out


def _injection(spec: RepairSpec) -> Callable[[list[dict[str, Any]]], dict[str, Any]]:
    def make(scenes: list[dict[str, Any]]) -> dict[str, Any]:
        ts = scene_ref(scenes, spec.scene)
        dur = round(spec.end - spec.start, 6)
        common = {"rng_seed": spec.params.get("seed", 0), "start_s": spec.start, "end_s": spec.end,
                  "duration_s": dur}
        if spec.defect == "freeze":
            window = {"target_scene_index": spec.scene, "target_scene": ts, "insert_at_source_s": spec.start,
                      "start_s": spec.start, "end_s": spec.end, "duration_s": dur, "frames": None}
            return {"variant": "v01_frozen_scene", "subtask": "demo_frozen_video_only", **common,
                    "mode": "frozen_video_only", "freeze_audio": False, "windows": [window],
                    "target_scene_index": spec.scene, "target_scene": ts}
        if spec.defect == "color":
            return {"variant": "v04_color_grade_shift", "subtask": "demo_cold_desat", **common,
                    "target_scene_index": spec.scene, "target_scene": ts, **spec.params, "grade_name": "cold_desat"}
        return {"variant": "v05_noise_floor_spike", "subtask": "demo_pink", **common,
                "target_scene_index": spec.scene, "target_scene": ts,
                "noise_color": spec.params["color"], "noise_amplitude": spec.params["amplitude"]}
    return make


def _break(spec: RepairSpec, source: Path, out: Path, fmt: Format) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    if spec.defect == "freeze":
        inject_freeze(source, out, spec.start, spec.end, fmt)
    elif spec.defect == "color":
        inject_color_shift(source, out, spec.start, spec.end, fmt, **spec.params)
    else:
        inject_noise_burst(source, out, spec.start, spec.end, fmt, color=spec.params["color"],
                           amplitude=spec.params["amplitude"], seed=spec.params["seed"])


def build_repair(ctx: BuildContext) -> list[dict[str, Any]]:
    """Write sources, broken clips and the runs' fixed.mp4/report.md; return the dataset rows (inline profiles)."""
    base: dict[str, dict[str, Any]] = {}
    for name, (fmt, scenes) in SOURCES.items():
        src = ctx.mirror / f"repair/sources/{name}_source.mp4"
        render(src, scenes, fmt, workdir=ctx.work / name)
        base[name] = measure_source(src, src.name, bounds_of(scenes))
    rows = []
    for spec in REPAIRS:
        fmt = SOURCES[spec.source][0]
        src_rel = f"repair/sources/{spec.source}_source.mp4"
        broken_rel = f"repair/materials/{spec.task_id}/broken.mp4"
        source, broken = ctx.mirror / src_rel, ctx.mirror / broken_rel
        _break(spec, source, broken, fmt)
        profile = {**base[spec.source], "injection": _injection(spec)(base[spec.source]["narrative"]["scene_list"])}
        kind = _REPORT_TYPE[spec.defect]
        # perfect: the source's streams, remuxed (a byte copy of the verifier-only source is malformed), and the
        # exact window (task 66 writes M:SS.f timestamps).
        perfect = ctx.task_dir("perfect", spec.task_id)
        remux(source, perfect / "fixed.mp4", "restored by the demo perfect run")
        fmt_t = (lambda t: f"0:{t:05.2f}") if spec.task_id == 66 else (lambda t: f"{t:g}")
        write_text(perfect / "report.md", repair_report(spec.task_id, kind, fmt_t(spec.start), fmt_t(spec.end),
                                                        "Located by comparing neighbouring frames and audio."))
        # partial: did nothing to the video, window 0.5 s late at both ends.
        partial = ctx.task_dir("partial", spec.task_id, output=spec.task_id == 65)
        shutil.copyfile(broken, partial / "fixed.mp4")
        write_text(partial / "report.md", repair_report(spec.task_id, kind, f"{spec.start + 0.5:g}",
                                                        f"{spec.end + 0.5:g}", "Approximate window."))
        rubric = {"cell": spec.cell, "profile": profile}
        rows.append(row(spec.task_id, "repair", PROMPT, [url(broken_rel, full=spec.full_urls)], rubric,
                        vrefs=[url(src_rel, full=not spec.full_urls)]))
    # broken run: 65 a truncated fixed.mp4 and no report; 66 a video-only fixed.mp4 and unparseable times;
    # 67 an empty folder.
    b65 = ctx.task_dir("broken", 65)
    src65 = ctx.mirror / "repair/sources/demo1_source.mp4"
    (b65 / "fixed.mp4").write_bytes(src65.read_bytes()[:4096])
    b66 = ctx.task_dir("broken", 66)
    strip_audio(ctx.mirror / "repair/sources/demo2_source.mp4", b66 / "fixed.mp4")
    write_text(b66 / "report.md", repair_report(66, "color_grade_shift", "4.4s", "7.2s", "Times carry units."))
    ctx.task_dir("broken", 67)
    return rows


def source_path(mirror: Path, task_id: int) -> Path:
    """The mirror path of a demo repair task's source (for tests and the demo report)."""
    spec = next(s for s in REPAIRS if s.task_id == task_id)
    return mirror / f"repair/sources/{spec.source}_source.mp4"
