"""Benchmark: scoring time of a whole sequencing + assembly run (28 + 18 = 46 tasks, 8-13 clips each).

Builds a run directory of manifests in a temp dir (a mix of perfect, shuffled, near-miss-id and wrong-count
answers), then times only the `verify()` calls over all 46 tasks: the median of several repetitions.
Then times the same run through the engine (`verify_run`: input hashing, resume check, atomic result files),
serially and from a warm resume. Target: well under a second.
Usage: `python benchmarks/bench_seq_asm.py [--reps 7] [--keep DIR]` (`--keep` leaves `DIR/run` and a
`DIR/mirror` dataset behind, for timing `avb verify DIR/run --dataset DIR/mirror` as a whole process).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agenticvbench.dataset.tasks import Task, task_from_row
from agenticvbench.runs.submission import Submission
from agenticvbench.verifiers import get_verifier
from agenticvbench.verifiers.base import VerifyContext


def _row(task_id: int, family: str, rubric: dict[str, Any]) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "task_family": family,
        "prompt": "bench",
        "verifier_reference_urls": None,
        "reference_file_urls": [f"{family}/materials/{task_id}.zip"],
        "rubric_json": json.dumps(rubric),
    }


def _write(folder: Path, sources: list[Any], lengths: list[float]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    segs, t = [], 0.0
    for s, length in zip(sources, lengths, strict=True):
        segs.append(
            {"output": [round(t, 3), round(t + length, 3)], "source": s, "source_range": [0.0, length]}
        )
        t += length
    (folder / "solution.json").write_text(json.dumps({"segments": segs}, indent=2), encoding="utf-8")


def build_run(root: Path, seed: int = 0) -> list[tuple[Task, Submission]]:
    """Create the 46 task folders under `root` and return (task, submission) pairs."""
    rng = random.Random(seed)
    pairs: list[tuple[Task, Submission]] = []
    for i, task_id in enumerate(range(37, 65)):
        n = rng.randint(8, 13)
        correct = [str(c) for c in rng.sample(range(1, n + 1), n)]
        task = task_from_row(_row(task_id, "sequencing", {"correct_order": correct, "n_slots": n}))
        pred: list[Any] = list(correct)
        if i % 4 == 1:
            rng.shuffle(pred)
        elif i % 4 == 2:
            pred = [f"{c}.mp4" for c in pred]  # near miss: zeroed, with a D-S2 warning
        elif i % 4 == 3:
            a, b = rng.sample(range(n), 2)
            pred[a], pred[b] = pred[b], pred[a]
        _write(root / str(task_id), pred, [rng.uniform(0.8, 4.0) for _ in pred])
        pairs.append((task, Submission(task_id, root / str(task_id))))
    for i, task_id in enumerate(range(83, 101)):
        n = rng.randint(8, 13)
        correct = [f"{c}.mp4" for c in rng.sample(range(1, 3 * n + 1), n)]
        durs = [round(rng.uniform(0.8, 4.0), 3) for _ in correct]
        task = task_from_row(
            _row(
                task_id,
                "assembly",
                {
                    "correct_assembly_in_slot_order": correct,
                    "correct_assembly_durations": durs,
                    "n_slots": n,
                    "film": "bench",
                    "duration_sec": round(sum(durs), 3),
                },
            )
        )
        picks: list[Any] = [c[:-4] for c in correct]
        if i % 3 == 1:
            picks = [p if rng.random() < 0.6 else str(rng.randint(1, 3 * n)) for p in picks]
        elif i % 3 == 2:
            picks[0] = picks[0] + ".MP4"
        _write(root / str(task_id), picks, durs)
        pairs.append((task, Submission(task_id, root / str(task_id))))
    return pairs


def main() -> None:
    """Print the median time of scoring all 46 tasks, and the mean headline per family as a sanity check."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--keep", type=Path, default=None, help="build here and keep the run and a mirror")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        pairs = build_run(base / "run")
        ctx = VerifyContext(cache_dir=Path(tmp) / "cache")
        verifiers = {fam: get_verifier(fam) for fam in ("sequencing", "assembly")}
        times, outcomes = [], []
        for _ in range(args.reps):
            t0 = time.perf_counter()
            outcomes = [verifiers[task.family].verify(task, sub, ctx) for task, sub in pairs]
            times.append(time.perf_counter() - t0)
        engine_times = _time_engine(base, [t for t, _ in pairs], args.reps)
    for fam in ("sequencing", "assembly"):
        scores = [o.headline for (t, _), o in zip(pairs, outcomes, strict=True) if t.family == fam]
        print(f"{fam}: {len(scores)} tasks, mean adjusted_final_score {statistics.mean(scores):.4f}")
    print(
        f"verify() over {len(pairs)} tasks: median {statistics.median(times) * 1000:.2f} ms "
        f"(min {min(times) * 1000:.2f} ms, max {max(times) * 1000:.2f} ms, {args.reps} reps)"
    )
    for label, ts in engine_times.items():
        print(
            f"verify_run over {len(pairs)} tasks, {label}: median {statistics.median(ts) * 1000:.1f} ms "
            f"(min {min(ts) * 1000:.1f}, max {max(ts) * 1000:.1f})"
        )


def _time_engine(base: Path, tasks: list[Task], reps: int) -> dict[str, list[float]]:
    """Time the engine over the run: rescoring everything (--force, serial) and resuming (nothing to do)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from agenticvbench.scoring.engine import verify_run

    (base / "mirror" / "data").mkdir(parents=True, exist_ok=True)
    rows = [_row(t.task_id, t.family, json.loads(t.rubric_json)) for t in tasks]
    pq.write_table(pa.Table.from_pylist(rows), base / "mirror" / "data" / "train-00000-of-00001.parquet")
    out: dict[str, list[float]] = {"force, --jobs 1": [], "resume, --jobs 1": []}
    for label, force in (("force, --jobs 1", True), ("resume, --jobs 1", False)):
        for _ in range(reps):
            t0 = time.perf_counter()
            verify_run(base / "run", tasks=tasks, jobs=1, force=force, cache_dir=base / "cache")
            out[label].append(time.perf_counter() - t0)
    return out


if __name__ == "__main__":
    main()
