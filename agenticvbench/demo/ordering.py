"""Demo sequencing (37, 38) and assembly (83, 84) tasks: clip zips, rubrics and the three runs' manifests.

Sequencing: one story, cut into shots, shuffled into `1.mp4..N.mp4`; a yellow square keeps moving across
the cuts, so the order can be recovered by eye. Assembly: four storyboard slots with three takes each (the
right one, an off-grade take and a mirrored longer take), audio stripped as in the real materials.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from agenticvbench.demo.common import BuildContext, manifest, row, url, write_json, write_text, write_zip
from agenticvbench.demo.media_gen import Format, Scene, render_many
from agenticvbench.demo.sizes import DemoSize

FMT = Format(width=320, height=180, fps=24, audio="aac")
FMT_SILENT = Format(width=320, height=180, fps=24, audio=None)


@dataclass(kw_only=True, frozen=True)
class SeqSpec:
    """A sequencing task: the story's shots in true order and the clip id each shot is published under."""

    task_id: int
    title: str
    shots: tuple[Scene, ...]
    correct_order: tuple[str, ...]
    full_urls: bool
    fmt: Format = FMT


def _story(
    bgs: list[str], fg: str, durations: list[float], x_from: float, x_to: float, base_hz: float
) -> tuple[Scene, ...]:
    n = len(durations)
    step = (x_to - x_from) / n
    return tuple(
        Scene(
            f"box:{bg}:{fg}:{x_from + i * step:g}:{x_from + (i + 1) * step:g}",
            d,
            (base_hz * (1 + 0.125 * i),),
        )
        for i, (bg, d) in enumerate(zip(bgs, durations, strict=True))
    )


SEQUENCING: tuple[SeqSpec, ...] = (
    SeqSpec(
        task_id=37,
        title="The Paper Boat",
        shots=_story(
            ["0x101830", "0x182848", "0x203860", "0x304878", "0x486090", "0x6078a8"],
            "yellow",
            [1.5, 1.0, 1.5, 1.0, 1.5, 1.0],
            0,
            280,
            220.0,
        ),
        correct_order=("4", "1", "6", "2", "5", "3"),
        full_urls=True,
    ),
    SeqSpec(
        task_id=38,
        title="Night Bus",
        shots=_story(
            ["0x402010", "0x502818", "0x603020", "0x703828", "0x804030"],
            "cyan",
            [1.0, 1.5, 1.0, 1.5, 1.0],
            280,
            0,
            262.0,
        ),
        correct_order=("2", "5", "1", "4", "3"),
        full_urls=False,
    ),
)


@dataclass(frozen=True)
class AsmSpec:
    """An assembly task: per slot, the correct take's clip id, its distractor ids and its look."""

    task_id: int
    film: str
    slots: tuple[tuple[str, tuple[str, str], str, float], ...]  # (correct, distractors, look, duration)
    full_urls: bool
    fmt: Format = FMT_SILENT


ASSEMBLY: tuple[AsmSpec, ...] = (
    AsmSpec(
        83,
        "Demo Film A: The Harbour",
        (
            ("3.mp4", ("1.mp4", "8.mp4"), "box:0x203040:white:20:200", 2.0),
            ("7.mp4", ("2.mp4", "10.mp4"), "testsrc2", 1.5),
            ("5.mp4", ("12.mp4", "6.mp4"), "bars", 1.5),
            ("11.mp4", ("4.mp4", "9.mp4"), "gradients", 2.0),
        ),
        False,
    ),
    AsmSpec(
        84,
        "Demo Film B: Market Day",
        (
            ("2.mp4", ("6.mp4", "11.mp4"), "gradients", 1.5),
            ("9.mp4", ("1.mp4", "5.mp4"), "box:0x304010:orange:260:40", 2.0),
            ("12.mp4", ("3.mp4", "8.mp4"), "bars", 1.0),
            ("4.mp4", ("7.mp4", "10.mp4"), "testsrc2", 1.5),
        ),
        True,
    ),
)
_DISTRACTOR_VF = ("hue=h=150:s=0.6,eq=brightness=-0.08", "hflip")

SEQ_PROMPT = (
    "You are given {n} video clips, 1.mp4 to {n}.mp4, in /workspace/materials. They are the shots of one short "
    'film, "{title}", in shuffled order. Put them back in story order. Write /workspace/output/solution.mp4 '
    "(the clips concatenated in your order) and /workspace/output/solution.json of the form "
    '{{"segments": [{{"output": [t0, t1], "source": "<clip id without .mp4>", '
    '"source_range": [s0, s1]}}, ...]}}, one segment per clip, in order.'
)
ASM_PROMPT = (
    'Assemble a {n_slots}-shot cut of "{film}" ({dur:g} s). For each storyboard slot there are three candidate '
    "takes among the clips 1.mp4 to {n_clips}.mp4 in /workspace/materials (audio removed). Pick the take that "
    "matches the storyboard for each slot, in slot order. Write /workspace/output/solution.mp4 and "
    '/workspace/output/solution.json ({{"segments": [{{"output": [t0, t1], "source": "<clip>.mp4", '
    '"source_range": [s0, s1]}}, ...]}}), exactly one segment per slot.'
)


def _id_num(clip: str) -> int:
    return int(clip.split(".")[0])


def _steps(rng: random.Random, lo: float, hi: float) -> float:
    """A duration in [lo, hi] on a half-second grid (whole frames at 24 fps)."""
    return rng.randint(int(lo * 2), int(hi * 2)) / 2


def _palette(rng: random.Random, n: int) -> list[str]:
    r, g, b = rng.randrange(16, 96), rng.randrange(16, 96), rng.randrange(16, 96)
    step = max(1, 120 // max(1, n))
    return [f"0x{min(255, r + i * step):02x}{min(255, g + i * step // 2):02x}{b:02x}" for i in range(n)]


def _looks(rng: random.Random, width: int, height: int) -> list[str]:
    """Distinct-looking shots for storyboard slots (moving squares scaled to the frame)."""
    travel = width - height // 4
    looks = ["testsrc2", "bars", "gradients"]
    for fg in ("white", "orange", "yellow", "cyan", "magenta"):
        bg = _palette(rng, 1)[0]
        x0, x1 = sorted((rng.randint(0, travel), rng.randint(0, travel)), reverse=rng.random() < 0.5)
        looks.append(f"box:{bg}:{fg}:{x0}:{x1}")
    rng.shuffle(looks)
    return looks


def _clip_format(size: DemoSize, audio: str | None) -> Format:
    """The 24-fps clip format of a generated size."""
    w, h = size.clip_frame
    return Format(width=w, height=h, fps=24, audio=audio, crf=size.crf, preset=size.preset)


def sequencing_specs(size: DemoSize) -> tuple[SeqSpec, ...]:
    """The sequencing tasks of `size` (the hand-written ones for `small`, else generated from the task id)."""
    if size.hand_written:
        return SEQUENCING
    fmt = _clip_format(size, "aac")
    specs = []
    for i, tid in enumerate(size.ids("sequencing")):
        rng = random.Random(tid)
        n = rng.randint(*size.seq_shots)
        durs = [_steps(rng, *size.shot_s) for _ in range(n)]
        travel = fmt.width - fmt.height // 4
        x_from, x_to = (0, travel) if rng.random() < 0.5 else (travel, 0)
        shots = _story(
            _palette(rng, n),
            rng.choice(["yellow", "cyan", "white", "orange"]),
            durs,
            x_from,
            x_to,
            rng.choice([196.0, 220.0, 262.0]),
        )
        order = [str(k) for k in range(1, n + 1)]
        rng.shuffle(order)
        specs.append(
            SeqSpec(
                task_id=tid,
                title=f"Synthetic Story {tid}",
                shots=shots,
                correct_order=tuple(order),
                full_urls=i % 2 == 0,
                fmt=fmt,
            )
        )
    return tuple(specs)


def assembly_specs(size: DemoSize) -> tuple[AsmSpec, ...]:
    """The assembly tasks of `size` (the hand-written ones for `small`, else generated from the task id)."""
    if size.hand_written:
        return ASSEMBLY
    fmt = _clip_format(size, None)
    specs = []
    for i, tid in enumerate(size.ids("assembly")):
        rng = random.Random(tid)
        n = rng.randint(*size.asm_slots)
        ids = [f"{k}.mp4" for k in range(1, 3 * n + 1)]
        rng.shuffle(ids)
        looks = _looks(rng, fmt.width, fmt.height)
        slots = tuple(
            (ids[3 * k], (ids[3 * k + 1], ids[3 * k + 2]), looks[k % len(looks)], _steps(rng, *size.shot_s))
            for k in range(n)
        )
        specs.append(AsmSpec(tid, f"Synthetic Film {tid}", slots, i % 2 == 1, fmt))
    return tuple(specs)


def build_sequencing_task(ctx: BuildContext, spec: SeqSpec, i: int) -> dict[str, Any]:
    """Write one sequencing zip and the runs' manifests/videos (variant `i`); return its dataset row."""
    clips_dir = ctx.work / f"seq{spec.task_id}"
    by_id = {cid: shot for cid, shot in zip(spec.correct_order, spec.shots, strict=True)}
    partial_order = list(spec.correct_order)
    if i % 2 == 0:  # first two swapped
        partial_order[0], partial_order[1] = partial_order[1], partial_order[0]
    else:  # rotated by one
        partial_order = partial_order[1:] + partial_order[:1]
    perfect_mp4 = ctx.task_dir("perfect", spec.task_id, output=i % 4 == 0) / "solution.mp4"
    partial_mp4 = ctx.task_dir("partial", spec.task_id) / "solution.mp4"
    jobs = [(clips_dir / f"{cid}.mp4", [by_id[cid]]) for cid in sorted(by_id, key=int)]
    jobs += [(perfect_mp4, list(spec.shots)), (partial_mp4, [by_id[c] for c in partial_order])]
    render_many(jobs, spec.fmt, workdir=clips_dir)
    rel = f"sequencing/materials/{spec.task_id}.zip"
    write_zip(ctx.mirror / rel, [(f"{cid}.mp4", clips_dir / f"{cid}.mp4") for cid in sorted(by_id, key=int)])
    durs = [by_id[c].duration for c in spec.correct_order]
    write_json(perfect_mp4.parent / "solution.json", manifest(list(spec.correct_order), durs))
    write_json(
        partial_mp4.parent / "solution.json",
        manifest(partial_order, [by_id[c].duration for c in partial_order]),
    )
    rubric = {
        "correct_order": list(spec.correct_order),
        "n_slots": len(spec.correct_order),
        "provenance": {
            "film": spec.title,
            "source": "agenticvbench.demo (synthetic)",
            "n_shots": len(spec.shots),
            "shuffle_seed": spec.task_id,
        },
    }
    prompt = SEQ_PROMPT.format(n=len(spec.shots), title=spec.title)
    if i % 2 == 0:  # broken run: truncated JSON (odd variants: no folder at all)
        first = spec.correct_order[0]
        write_text(
            ctx.task_dir("broken", spec.task_id) / "solution.json",
            f'{{"segments": [{{"output": [0, {by_id[first].duration:g}], "source": "{first}", ',
        )
    return row(spec.task_id, "sequencing", prompt, [url(rel, full=spec.full_urls)], rubric)


def build_assembly_task(ctx: BuildContext, spec: AsmSpec, i: int) -> dict[str, Any]:
    """Write one assembly zip and the runs' manifests/videos (variant `i`); return its dataset row."""
    work = ctx.work / f"asm{spec.task_id}"
    jobs, correct, durs = [], [], []
    for good, distractors, look, dur in spec.slots:
        correct.append(good)
        durs.append(dur)
        jobs.append((work / good, [Scene(look, dur, ())]))
        for vf, clip in zip(_DISTRACTOR_VF, distractors, strict=True):
            jobs.append((work / clip, [Scene(look, dur + (0.5 if vf == "hflip" else 0.0), (), vf=vf)]))
    perfect_mp4 = ctx.task_dir("perfect", spec.task_id) / "solution.mp4"
    jobs.append((perfect_mp4, [Scene(look, dur, ()) for _, _, look, dur in spec.slots]))
    render_many(jobs, spec.fmt, workdir=work)
    names = sorted((p.name for p, _ in jobs[:-1]), key=_id_num)
    rel = f"assembly/materials/{spec.task_id}.zip"
    write_zip(ctx.mirror / rel, [(n, work / n) for n in names])
    write_json(perfect_mp4.parent / "solution.json", manifest(correct, durs))
    picks: list[Any] = list(correct)
    if i % 2 == 0:  # two slots wrong, the first right one as a bare id
        picks[0] = str(_id_num(correct[0]))
        picks[1] = spec.slots[1][1][0]
        picks[-1] = spec.slots[-1][1][1]
    else:  # an int id, a padded name, and a case mismatch that does not normalise
        picks[1] = _id_num(correct[1])
        if len(picks) > 2:
            picks[2] = f" {correct[2]} "
        picks[-1] = correct[-1].upper()
    write_json(ctx.task_dir("partial", spec.task_id) / "solution.json", manifest(picks, durs))
    rubric = {
        "correct_assembly_in_slot_order": correct,
        "correct_assembly_durations": durs,
        "n_slots": len(correct),
        "film": spec.film,
        "duration_sec": sum(durs),
    }
    prompt = ASM_PROMPT.format(n_slots=len(correct), film=spec.film, dur=sum(durs), n_clips=len(names))
    if i % 2 == 0:  # broken run: a bare list of segments, too few of them
        write_json(
            ctx.task_dir("broken", spec.task_id) / "solution.json",
            manifest(correct[:2], durs[:2])["segments"],
        )
    else:  # broken run: one segment is a bare string
        bad = manifest(correct, durs)
        bad["segments"][1] = correct[1]
        write_text(ctx.task_dir("broken", spec.task_id) / "solution.json", json.dumps(bad, indent=2) + "\n")
    return row(spec.task_id, "assembly", prompt, [url(rel, full=spec.full_urls)], rubric)
