"""The repair family's part of the Harbor export (`verifiers.HarborParts`): the `fixed.mp4` + `report.md`
contract, the gold files (the verifier-only source, and the truth windows of the cell's profile) and the scorer's
arguments with the source and profile as verifier-only references. Importing it loads no decoder."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from agenticvbench.verifiers import HarborParts
from agenticvbench.verifiers.repair.report_grammar import seconds_text


def contract(task: Any, out: str) -> list[str]:
    """The instruction's output contract: the repaired video and the `## Diagnosis` report grammar."""
    return [
        f"- `{out}/fixed.mp4`: the repaired video, in the same delivery format as the damaged input "
        "(container, video and audio codecs, resolution, frame rate, duration, audio sample rate).",
        f"- `{out}/report.md`: a `## Diagnosis` section with one field per line:",
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


def gold(task: Any, source: Path | None) -> tuple[dict[str, str], dict[str, Path], str]:
    """`fixed.mp4` = the verifier-only source (`source`, else fetched with the task's `verifier_references()`),
    which the gold writer re-encodes losslessly, and a `report.md` whose windows are the truth regions of the
    cell's profile; the note says when the rubric caps its localisation score."""
    from agenticvbench.verifiers.repair import source_of
    from agenticvbench.verifiers.repair.profiles import derive

    spec = derive(task.profile, task.variant)
    lines = [
        f"# Repair report, task {task.task_id} (gold, derived from the ground-truth profile)",
        "",
        "## Diagnosis",
        f"- type: {task.variant}",
    ]
    if spec.multi_region:
        for k, region in enumerate(spec.regions, start=1):
            lines += [
                f"- window_{k}_start: {seconds_text(region.truth[0])}",
                f"- window_{k}_end: {seconds_text(region.truth[1])}",
            ]
    elif spec.regions:
        lines += [
            f"- start: {seconds_text(spec.regions[0].truth[0])}",
            f"- end: {seconds_text(spec.regions[0].truth[1])}",
        ]
    lines += ["", "## Repair trajectory", "Replaced the whole video with the undamaged source.", ""]
    error = spec.localization_error
    note = f"localisation scores 0 by the official rubric: {error}" if error else ""
    return {"report.md": "\n".join(lines)}, {"fixed.mp4": source or source_of(task)}, note


def score_args(task: Any) -> tuple[list[str], dict[str, Any]]:
    """`avb score repair` on the outputs, with the source and profile as references; a shipped cell is named,
    an inline profile (demo tasks) passed as the file."""
    from agenticvbench.verifiers.repair import source_of

    inline = isinstance(json.loads(task.rubric_json).get("profile"), dict)
    args = [
        '--fixed-mp4 "$OUT/fixed.mp4"',
        '--report-md "$OUT/report.md"',
        '--source-mp4 "$TESTS/reference/source.mp4"',
        '--profile "$TESTS/reference/profile.json"' if inline else f"--cell {shlex.quote(task.cell)}",
        "--workers 2",
    ]
    return args, {"source.mp4": source_of(task), "profile.json": task.profile}


HARBOR = HarborParts(contract=contract, score_args=score_args, gold=gold)
