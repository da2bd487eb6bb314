"""Time `load_tasks` over a 100-row local mirror (loading the task table from a mirror in < 1 s).

The mirror holds only the parquet (no media: loading the table never touches them). Rows are real-shaped:
36 recap rows with 28-item rubrics, 28 sequencing rows of 13 clips, 18 repair rows naming real cells (so each
resolves its shipped profile.json) and 18 assembly rows. Prints the first call in a fresh process (which pays
for lazy imports) and the median of 5 further calls.

    python benchmarks/bench_load_tasks.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agenticvbench.dataset.loader import PARQUET_PATH
from agenticvbench.dataset.tasks import FAMILY_ID_RANGES, load_cells
from agenticvbench.demo.build import write_parquet

HUB = "https://huggingface.co/datasets/Anonymous47621123/AgenticVBench_100/resolve/main/"
KINDS = [
    ("ffprobe_duration_range", {"min": 50.0, "max": 70.0}),
    ("ffprobe_resolution_eq", {"width": 1920, "height": 1080}),
    ("ffprobe_video_codec_in", {"codecs": ["h264", "hevc"]}),
    ("ffprobe_audio_streams", {"eq": 1, "min": None, "max": None}),
    ("ffmpeg_blackdetect_max_run", {"max_seconds": 1.0}),
    ("librosa_silence_max_run", {"max_seconds": 2.0, "threshold_db": -40.0}),
    ("scenedetect_max_shot_duration", {"max_seconds": 8.0}),
]


def recap_items(n: int = 28) -> list[dict[str, Any]]:
    """A rubric of `n` items mixing python, llm and compound items, with one negative weight."""
    items: list[dict[str, Any]] = []
    for k in range(n):
        crit = (
            f"Criterion {k}: the recap must satisfy a realistic, sentence-long requirement about its content."
        )
        if k % 3 == 0:
            kind, params = KINDS[k % len(KINDS)]
            items.append(
                {
                    "id": f"p{k}",
                    "pillar": k % 4,
                    "dispatch": "python",
                    "kind": kind,
                    "params": params,
                    "criterion": crit,
                    "weight": -1.0 if k == 3 else 1.0,
                }
            )
        elif k % 3 == 1:
            items.append(
                {
                    "id": f"l{k}",
                    "pillar": k % 4,
                    "dispatch": "llm",
                    "criterion": crit,
                    "prompt": crit + " Answer strictly about the video you are shown.",
                    "weight": 1.0,
                }
            )
        else:
            items.append(
                {
                    "id": f"c{k}",
                    "pillar": k % 4,
                    "dispatch": "compound",
                    "criterion": crit,
                    "weight": 2.0,
                    "stages": [
                        {
                            "dispatch": "python",
                            "kind": "ffprobe_duration_range",
                            "params": {"min": 30, "max": 90},
                            "save_as": "dur",
                        },
                        {"dispatch": "llm", "prompt": "Duration: {dur}. " + crit},
                    ],
                }
            )
    return items


def rows() -> list[dict[str, Any]]:
    """The 100 rows, in the real id ranges."""
    prompt = "You are a video editor. " * 60
    cells = sorted(load_cells())[:18]
    out = []
    for family, ids in FAMILY_ID_RANGES.items():
        for i, tid in enumerate(ids):
            vrefs = None
            if family == "recap":
                refs, rubric = [f"{HUB}recap/materials/{tid}/film.mp4"], recap_items()
            elif family == "sequencing":
                order = [str(x) for x in (6, 12, 3, 13, 2, 4, 9, 11, 1, 8, 10, 7, 5)]
                refs, rubric = (
                    [f"sequencing/materials/{tid}.zip"],
                    {"correct_order": order, "n_slots": 13, "provenance": {"film": f"film {tid}"}},
                )
            elif family == "repair":
                cell = cells[i]
                refs, rubric = [f"repair/materials/{tid}/broken.mp4"], {"cell": cell}
                vrefs = [f"repair/sources/{cell.split('/')[0]}_source.mp4"]
            else:
                refs, rubric = (
                    [f"{HUB}assembly/materials/{tid}.zip"],
                    {
                        "correct_assembly_in_slot_order": ["3.mp4", "7.mp4", "5.mp4", "11.mp4"],
                        "correct_assembly_durations": [2.0, 1.5, 1.5, 2.0],
                        "n_slots": 4,
                        "film": f"film {tid}",
                        "duration_sec": 7.0,
                    },
                )
            out.append(
                {
                    "task_id": tid,
                    "task_family": family,
                    "prompt": prompt,
                    "reference_file_urls": refs,
                    "verifier_reference_urls": vrefs,
                    "rubric_json": json.dumps(rubric),
                }
            )
    return out


def main() -> None:
    """Build the mirror, time the loads, print the numbers."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="write the mirror here instead of a temporary folder")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mirror = args.keep or Path(tmp)
        write_parquet(mirror / PARQUET_PATH, rows())
        from agenticvbench.dataset.loader import load_tasks

        t0 = time.perf_counter()
        tasks = load_tasks(dataset=mirror)
        cold = time.perf_counter() - t0
        assert len(tasks) == 100
        warm = []
        for _ in range(5):
            t0 = time.perf_counter()
            load_tasks(dataset=mirror)
            warm.append(time.perf_counter() - t0)
        print(
            f"load_tasks over a 100-row mirror: first call {cold * 1000:.0f} ms (includes lazy imports), "
            f"median of 5 further calls {statistics.median(warm) * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
