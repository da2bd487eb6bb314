"""The output contract of each family, as written into an exported task's `instruction.md`.

An agent that follows it produces exactly what `avb verify` and `avb score` read: the file names, the folder,
and the `solution.json` manifest schema (sequencing, assembly) or the `report.md` line grammar (repair).
"""

from __future__ import annotations

from agenticvbench.dataset.tasks import (
    OUTPUT_FILES,
    AssemblyTask,
    RecapTask,
    RepairTask,
    SequencingTask,
    Task,
)

MATERIALS_DIR = "/workspace/materials"
OUTPUT_DIR = "/workspace/output"

_MANIFEST = """\
`{out}/solution.json` is a JSON object with one key, `segments`, a list with one object per {unit}, in {order}:

```json
{{"segments": [
  {{"output": [0.0, 2.5], "source": "{example}", "source_range": [0.0, 2.5]}},
  {{"output": [2.5, 4.0], "source": "{example2}", "source_range": [0.0, 1.5]}}
]}}
```

- `source` names the clip {id_rule}. The list order of the `source` values is what is scored.
- `output` is the segment's [start, end] in seconds on your output timeline; `source_range` the [start, end]
  used from the clip.
- Also write `{out}/solution.mp4`, the clips concatenated in that order (checked for consistency with the
  manifest, not scored by the official formula)."""


def _manifest(ids: list[str], unit: str, order: str) -> str:
    """The `solution.json` contract, its examples spelled like the task's clip ids (with or without `.mp4`)."""
    if ids and all(i.lower().endswith(".mp4") for i in ids):
        rule, ex1, ex2 = "by its file name, including `.mp4` (for example `3.mp4`)", "3.mp4", "7.mp4"
    else:
        rule, ex1, ex2 = "by its file name without `.mp4` (for example `3` for `3.mp4`)", "3", "7"
    return _MANIFEST.format(out=OUTPUT_DIR, unit=unit, order=order, id_rule=rule, example=ex1, example2=ex2)


def contract(task: Task) -> str:
    """The markdown section stating where materials are and exactly which outputs are scored."""
    files = ", ".join(f"`{f}`" for f in OUTPUT_FILES[task.family])
    head = [
        "## Where things are",
        "",
        f"- Your input materials are in `{MATERIALS_DIR}/`.",
        f"- Write every output into `{OUTPUT_DIR}/` (it exists and is empty). Only this folder is kept and "
        f"scored; the files read are {files}.",
        "",
        "## Output contract",
        "",
    ]
    body: list[str]
    if isinstance(task, SequencingTask):
        body = [_manifest(task.correct_order, "clip", "story order (every clip exactly once)")]
    elif isinstance(task, AssemblyTask):
        order = f"slot order (exactly {task.n_slots} segments, one take per slot)"
        body = [_manifest(task.correct_assembly_in_slot_order, "storyboard slot", order)]
    elif isinstance(task, RepairTask):
        body = [
            f"- `{OUTPUT_DIR}/fixed.mp4`: the repaired video, in the same delivery format as the damaged input "
            "(container, video and audio codecs, resolution, frame rate, duration, audio sample rate).",
            f"- `{OUTPUT_DIR}/report.md`: a `## Diagnosis` section with one field per line:",
            "",
            "```markdown",
            "## Diagnosis",
            "- type: <what kind of fault>",
            "- start: 12.4",
            "- end: 15.0",
            "```",
            "",
            "  Times are bare seconds (`12.4`), `M:SS(.f)` or `H:MM:SS(.f)`, with no unit. The first `- start:` and "
            "`- end:` lines of the file are read. If the damage sits in several separate windows, give one "
            "`- window_N_start:` / `- window_N_end:` pair per window (N = 1, 2, ...).",
        ]
    elif isinstance(task, RecapTask):
        body = [
            f"- `{OUTPUT_DIR}/final.mp4`: the finished recap video (H.264/AAC in MP4 is safest). It is "
            "checked against the brief above by measurements and by a judge that watches sampled frames."
        ]
    else:  # pragma: no cover - every family is handled above
        body = []
    return "\n".join(head + body) + "\n"


def instruction(task: Task) -> str:
    """The whole `instruction.md`: the task's own prompt, then the contract."""
    return f"{task.prompt.rstrip()}\n\n{contract(task)}"
