"""Trivial strategies: outputs that do no work, one writer per (strategy, family).

Each strategy writes, for one task, the files an agent that did nothing useful would leave in its task folder.
They are scored by the normal engine, so their numbers are what the official rules pay for doing no work:

- `nothing` (every family): an empty task folder;
- `copy_input`: recap `final.mp4` = the film, byte for byte; repair `fixed.mp4` = the broken video, byte for byte,
  with an empty `report.md`;
- `black_picture` (recap): a black picture at the film's size and frame rate over the film's audio, cut to the
  middle of the brief's duration range (the film's length when the rubric states none);
- `one_frame` (repair): the broken video's first frame (re-encoded, h264) over its full audio (copied), empty report;
- `whole_window` (repair): the broken video, and a report whose diagnosis window covers the whole video (one
  window per fault for the multi-fault cells);
- `one_frame_whole_window` (repair): both of the above;
- `given_order` (sequencing): the clips in the order the task's materials list them (file-name order);
- `numeric_order` (sequencing): the clips sorted by their number;
- `first_candidate` (assembly): the clips, sorted by number, cut into one group per slot; the first of each group;
- `random_picks` (assembly, 5 seeded repetitions): one clip drawn from each slot's group (seed = task id, rep).

The assembly groups assume the candidates are numbered slot by slot; where they are shuffled (the demo), the pick
is still a fixed choice made without looking, which is what a floor needs. docs/baselines.md gives the reasons.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agenticvbench.dataset.tasks import AssemblyTask, RecapTask, RepairTask, SequencingTask, Task
from agenticvbench.errors import TaskError
from agenticvbench.fsutil import atomic_write_text
from agenticvbench.integrity.screen import MEDIA_SUFFIXES, given_orders

#: Bump when any writer's output changes: written run folders of another version are rewritten.
WRITER_VERSION = "1"
RANDOM_REPS = 5
Writer = Callable[[Task, Path, int], None]
#: The video encoding of every re-encoded baseline output.
H264 = ("-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-threads", "1")


@dataclass(frozen=True)
class Strategy:
    """A trivial strategy: its name, the families it applies to, what it writes, and how many seeded reps."""

    name: str
    families: tuple[str, ...]
    description: str
    reps: int = 1

    def write(self, task: Task, folder: Path, rep: int = 1) -> None:
        """Write this strategy's outputs for `task` into `folder` (created)."""
        folder.mkdir(parents=True, exist_ok=True)
        writer = _WRITERS.get((self.name, task.family))
        if writer is None:
            raise ValueError(f"strategy {self.name} does not apply to the {task.family} family")
        writer(task, folder, rep)


def _media(task: Task) -> Path:
    """The task's first agent-visible media file (the recap film, the repair broken video)."""
    found = [p for p in task.materials() if p.suffix.lower() in MEDIA_SUFFIXES]
    if not found:
        raise TaskError(task.task_id, "reference_file_urls", "no media file among the task's materials")
    return found[0]


def _copy(src: Path, dst: Path) -> None:
    tmp = dst.with_name(f".{dst.name}.partial")
    shutil.copyfile(src, tmp)
    tmp.replace(dst)


def _ffmpeg(args: list[str], dst: Path) -> None:
    from agenticvbench.demo.media_gen import BITEXACT
    from agenticvbench.media import run_ffmpeg

    tmp = dst.with_name(f".{dst.name}.partial{dst.suffix}")
    run_ffmpeg(["-v", "error", "-y", *args, *BITEXACT, str(tmp)], check=True)
    tmp.replace(dst)


def _nothing(task: Task, folder: Path, rep: int) -> None:
    """An empty task folder: the family's output is missing."""


def _recap_copy(task: Task, folder: Path, rep: int) -> None:
    _copy(_media(task), folder / "final.mp4")


def brief_duration(task: RecapTask, film_s: float) -> float:
    """The middle of the brief's duration range (the first `ffprobe_duration_range` item), else `film_s`."""
    for item in task.items:
        params = item.get("params") or {}
        if item.get("kind") == "ffprobe_duration_range" and isinstance(params, dict):
            lo, hi = params.get("min"), params.get("max")
            if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and 0 <= lo <= hi:
                return min(film_s, (float(lo) + float(hi)) / 2) if film_s > 0 else (float(lo) + float(hi)) / 2
    return film_s


def _recap_black(task: Task, folder: Path, rep: int) -> None:
    from agenticvbench.media import probe

    assert isinstance(task, RecapTask)
    film = _media(task)
    info = probe(film)
    video = info.video
    w, h = (video.width or 640, video.height or 360) if video else (640, 360)
    fps = (video.fps if video else None) or 25.0
    seconds = brief_duration(task, float(info.duration or 0.0))
    args = ["-f", "lavfi", "-i", f"color=c=black:s={w}x{h}:r={fps:g}", "-i", str(film), "-map", "0:v:0"]
    if info.audio is not None:
        args += ["-map", "1:a:0", "-c:a", "aac", "-b:a", "128k"]
    _ffmpeg([*args, "-t", f"{seconds:.3f}", *H264], folder / "final.mp4")


def _repair_copy(task: Task, folder: Path, rep: int) -> None:
    _copy(_media(task), folder / "fixed.mp4")
    atomic_write_text(folder / "report.md", "")


def _one_frame(task: Task, folder: Path) -> None:
    """The broken video's first frame (h264) over its full audio, stream-copied."""
    args = ["-i", str(_media(task)), "-map", "0:v:0", "-map", "0:a:0?", "-vf", "select=eq(n\\,0)"]
    _ffmpeg([*args, "-fps_mode", "passthrough", *H264, "-c:a", "copy"], folder / "fixed.mp4")


def _repair_one_frame(task: Task, folder: Path, rep: int) -> None:
    _one_frame(task, folder)
    atomic_write_text(folder / "report.md", "")


def whole_window_report(task: RepairTask, duration_s: float) -> str:
    """A report whose diagnosis covers [0, duration]: one window per fault of the task's cell."""
    from agenticvbench.harbor.gold import seconds_text
    from agenticvbench.verifiers.repair.profiles import derive

    spec = derive(task.profile, task.variant)
    end = seconds_text(round(duration_s, 3))
    lines = ["# Repair report (baseline: the whole video)", "", "## Diagnosis", "- type: unknown"]
    if spec.multi_region:
        for k in range(1, len(spec.regions) + 1):
            lines += [f"- window_{k}_start: 0.0", f"- window_{k}_end: {end}"]
    else:
        lines += ["- start: 0.0", f"- end: {end}"]
    return "\n".join([*lines, ""])


def _repair_report_whole(task: Task, folder: Path) -> None:
    from agenticvbench.media import probe

    assert isinstance(task, RepairTask)
    duration = float(probe(_media(task)).duration or 0.0)
    atomic_write_text(folder / "report.md", whole_window_report(task, duration))


def _repair_whole_window(task: Task, folder: Path, rep: int) -> None:
    _copy(_media(task), folder / "fixed.mp4")
    _repair_report_whole(task, folder)


def _repair_one_frame_whole(task: Task, folder: Path, rep: int) -> None:
    _one_frame(task, folder)
    _repair_report_whole(task, folder)


def manifest_text(sources: list[str], durations: list[float] | None = None) -> str:
    """A `solution.json` with one segment per source, back to back (`durations` seconds each, else 1 s)."""
    segments, t = [], 0.0
    for i, src in enumerate(sources):
        d = durations[i] if durations else 1.0
        segments.append(
            {"output": [round(t, 6), round(t + d, 6)], "source": src, "source_range": [0.0, round(d, 6)]}
        )
        t += d
    return json.dumps({"segments": segments}, indent=2) + "\n"


def _by_number(stem: str, name: str) -> tuple[float, str]:
    """Sort key of a clip: the number its stem is (stems that are not numbers last), then its name."""
    return (int(stem) if stem.isascii() and stem.isdigit() else float("inf"), name)


def _given(task: Task, folder: Path, rep: int) -> None:
    assert isinstance(task, SequencingTask)
    atomic_write_text(folder / "solution.json", manifest_text(given_orders(task)[-1]))


def _numeric(task: Task, folder: Path, rep: int) -> None:
    assert isinstance(task, SequencingTask)
    stems = given_orders(task)[-1]
    ranked = sorted(stems, key=lambda s: _by_number(s, s))
    atomic_write_text(folder / "solution.json", manifest_text(ranked))


def slot_groups(task: AssemblyTask) -> list[list[str]]:
    """The candidate clips (file names) sorted by number, cut into `n_slots` consecutive groups."""
    names = [p.name for p in task.materials() if p.suffix.lower() in MEDIA_SUFFIXES]
    names.sort(key=lambda n: _by_number(Path(n).stem, n))
    n = max(1, task.n_slots)
    size = max(1, len(names) // n)
    return [names[k * size : (k + 1) * size] or names[-1:] for k in range(n)]


def _assembly_manifest(task: AssemblyTask, picks: list[str]) -> str:
    n = max(1, task.n_slots)
    return manifest_text(picks, [task.duration_sec / n] * len(picks) if task.duration_sec else None)


def _first(task: Task, folder: Path, rep: int) -> None:
    assert isinstance(task, AssemblyTask)
    atomic_write_text(folder / "solution.json", _assembly_manifest(task, [g[0] for g in slot_groups(task)]))


def _random(task: Task, folder: Path, rep: int) -> None:
    assert isinstance(task, AssemblyTask)
    rng = random.Random(task.task_id * 1000 + rep)
    picks = [rng.choice(g) for g in slot_groups(task)]
    atomic_write_text(folder / "solution.json", _assembly_manifest(task, picks))


STRATEGIES: tuple[Strategy, ...] = (
    Strategy("nothing", ("recap", "sequencing", "repair", "assembly"), "an empty task folder"),
    Strategy(
        "copy_input",
        ("recap", "repair"),
        "the agent's input as the output (the film; the broken video with an empty report)",
    ),
    Strategy(
        "black_picture", ("recap",), "a black picture over the film's audio, cut to the brief's duration"
    ),
    Strategy("one_frame", ("repair",), "one video frame over the full audio, empty report"),
    Strategy("whole_window", ("repair",), "the broken video, a diagnosis window covering the whole video"),
    Strategy("one_frame_whole_window", ("repair",), "one frame over the full audio, a whole-video window"),
    Strategy("given_order", ("sequencing",), "the clips in the order the materials list them"),
    Strategy("numeric_order", ("sequencing",), "the clips sorted by number"),
    Strategy(
        "first_candidate", ("assembly",), "the first clip of each slot's group (clips sorted by number)"
    ),
    Strategy(
        "random_picks",
        ("assembly",),
        f"a seeded random clip of each slot's group, {RANDOM_REPS} reps",
        reps=RANDOM_REPS,
    ),
)

_WRITERS: dict[tuple[str, str], Writer] = {
    **{("nothing", f): _nothing for f in ("recap", "sequencing", "repair", "assembly")},
    ("copy_input", "recap"): _recap_copy,
    ("copy_input", "repair"): _repair_copy,
    ("black_picture", "recap"): _recap_black,
    ("one_frame", "repair"): _repair_one_frame,
    ("whole_window", "repair"): _repair_whole_window,
    ("one_frame_whole_window", "repair"): _repair_one_frame_whole,
    ("given_order", "sequencing"): _given,
    ("numeric_order", "sequencing"): _numeric,
    ("first_candidate", "assembly"): _first,
    ("random_picks", "assembly"): _random,
}


def get_strategy(name: str) -> Strategy:
    """The strategy called `name`; `ValueError` naming the known ones otherwise."""
    for s in STRATEGIES:
        if s.name == name:
            return s
    raise ValueError(f"unknown strategy {name!r}; known: {', '.join(s.name for s in STRATEGIES)}")
