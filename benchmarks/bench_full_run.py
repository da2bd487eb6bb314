"""Benchmark: score a whole benchmark (every family, every run) with the judge off, then on a Dask LocalCluster.

What it prints:
1. Per family, with the process executor (`--jobs`, default 2): wall time, tasks scored, wall per task, mean
   per-task scoring time (the results' `timings.total_s`), peak RSS of the largest worker process.
2. The whole run on a Dask `LocalCluster` with 1 and then 2 worker processes (one thread each): wall, peak RSS
   per worker, and the speedup of 2 workers over 1 (`--dask-workers 2` measures only the 2-worker cluster, for
   when the 1-worker run would take too long; `--families ""` skips part 1).
Every measurement runs in a fresh subprocess with an empty feature cache (cold) and writes its results to a
scratch folder, never into the runs. The machine may be shared: compare ratios within one invocation.

Usage: `python benchmarks/bench_full_run.py [--dataset MIRROR --runs RUN...] [--size small|medium|full]
[--first N] [--tasks IDS] [--jobs 2] [--families F,...] [--no-dask | --dask-workers 1,2] [--json]`.
Without `--dataset` the demo of `--size` (`avb demo --size`) is built or reused (its build time is printed) and
its three runs are scored; `--first N` builds only the first N tasks of each family; `--tasks` scores only the
given task ids (e.g. `65,1`).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = ("recap", "sequencing", "repair", "assembly")


def _peak_rss_mb() -> tuple[float, float]:
    """(this process, largest finished child process) peak RSS in MB (Linux reports KB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, kids


def _worker_rss_mb() -> float:
    """Peak RSS of the calling (Dask worker) process in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _summarise(results: list[Any], wall: float) -> dict[str, Any]:
    per_task = [float(r.timings.get("total_s", 0.0)) for r in results]
    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    return {
        "wall_s": wall,
        "n_tasks": len(results),
        "wall_per_task_s": wall / max(1, len(results)),
        "mean_task_s": statistics.fmean(per_task) if per_task else 0.0,
        "max_task_s": max(per_task, default=0.0),
        "statuses": statuses,
    }


def _measure(spec: dict[str, Any]) -> dict[str, Any]:
    """Run one measurement in this (fresh) process; see `main` for the spec."""
    from agenticvbench.scoring.engine import verify_run

    runs, dataset = spec["runs"], spec["dataset"]
    with tempfile.TemporaryDirectory(prefix="avb-bench-run-") as tmp:
        cache, out = Path(tmp) / "cache", Path(tmp) / "out"
        if spec["kind"] == "family":
            t0 = time.perf_counter()
            summary = verify_run(
                runs,
                dataset=dataset,
                family=spec["family"],
                cache_dir=cache,
                out=out,
                jobs=spec["jobs"],
                force=True,
                judge=None,
                task_ids=spec.get("task_ids"),
            )
            res = _summarise(summary.results, time.perf_counter() - t0)
            own, kids = _peak_rss_mb()
            res["peak_rss_worker_mb"] = kids if spec["jobs"] > 1 else own
            return res
        from distributed import Client, LocalCluster

        from agenticvbench.scoring.dask_executor import DaskExecutor

        with (
            LocalCluster(
                n_workers=spec["workers"], threads_per_worker=1, processes=True, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            t0 = time.perf_counter()
            summary = verify_run(
                runs,
                dataset=dataset,
                cache_dir=cache,
                out=out,
                force=True,
                judge=None,
                executor=DaskExecutor(client),
                task_ids=spec.get("task_ids"),
            )
            res = _summarise(summary.results, time.perf_counter() - t0)
            res["peak_rss_per_worker_mb"] = sorted(client.run(_worker_rss_mb).values())
        return res


def _run(spec: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps(spec)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"measurement {spec.get('kind')} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _load() -> str:
    with open("/proc/loadavg", encoding="ascii") as fh:
        return " ".join(fh.read().split()[:3])


def main(argv: list[str] | None = None) -> int:
    """Entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", help="a local dataset mirror (default: the embedded demo, built if needed)")
    ap.add_argument("--runs", nargs="*", default=None, help="run folders (default: the demo's three runs)")
    ap.add_argument("--size", default="small", help="demo size when no --dataset: small, medium or full")
    ap.add_argument("--first", type=int, default=None, help="with --size: only the first N tasks per family")
    ap.add_argument("--tasks", default=None, help="score only these task ids (comma-separated)")
    ap.add_argument("--jobs", type=int, default=2, help="process-executor workers for the per-family part")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--no-dask", action="store_true", help="skip the Dask LocalCluster part")
    ap.add_argument("--dask-workers", default="1,2", help="LocalCluster sizes to measure (comma-separated)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(_measure(json.loads(args.worker))))
        return 0
    if args.dataset:
        dataset, runs = str(Path(args.dataset).resolve()), [str(Path(r).resolve()) for r in args.runs or []]
        if not runs:
            ap.error("--dataset needs --runs")
    else:
        from agenticvbench.demo import build_demo, default_demo_dir
        from agenticvbench.demo.sizes import get_size

        size = get_size(args.size)
        size = size.first(args.first) if args.first else size
        t0 = time.perf_counter()
        demo = build_demo(
            default_demo_dir(size),
            size=size,
            progress=None if args.json else (lambda line: print(line, flush=True)),
        )
        if not args.json:
            files = [p for p in demo.root.rglob("*") if p.is_file()]
            print(
                f"demo {size.name}: built or reused in {time.perf_counter() - t0:.0f} s, {len(files)} files, "
                f"{sum(p.stat().st_size for p in files) / 1e9:.2f} GB",
                flush=True,
            )
        dataset, runs = str(demo.mirror), [str(p) for p in demo.runs.values()]
    task_ids = [int(t) for t in args.tasks.split(",")] if args.tasks else None
    out: dict[str, Any] = {
        "dataset": dataset,
        "runs": runs,
        "jobs": args.jobs,
        "load_before": _load(),
        "families": {},
        "dask": {},
    }
    for fam in [f.strip() for f in args.families.split(",") if f.strip()]:
        res = _run(
            {
                "kind": "family",
                "family": fam,
                "dataset": dataset,
                "runs": runs,
                "jobs": args.jobs,
                "task_ids": task_ids,
            }
        )
        out["families"][fam] = res
        if not args.json:
            print(
                f"{fam:11s} {res['n_tasks']:4d} tasks  wall {res['wall_s']:8.1f} s  "
                f"wall/task {res['wall_per_task_s']:7.2f} s  mean task {res['mean_task_s']:7.2f} s  "
                f"max task {res['max_task_s']:7.2f} s  peak RSS/worker {res['peak_rss_worker_mb']:7.0f} MB  "
                f"{res['statuses']}",
                flush=True,
            )
    if not args.no_dask:
        for n in [int(w) for w in args.dask_workers.split(",") if w.strip()]:
            res = _run({"kind": "dask", "workers": n, "dataset": dataset, "runs": runs, "task_ids": task_ids})
            out["dask"][str(n)] = res
            if not args.json:
                rss = ", ".join(f"{v:.0f}" for v in res["peak_rss_per_worker_mb"])
                print(
                    f"dask {n} worker(s): {res['n_tasks']} tasks  wall {res['wall_s']:.1f} s  "
                    f"peak RSS per worker [{rss}] MB",
                    flush=True,
                )
        if "1" in out["dask"] and "2" in out["dask"]:
            out["dask_speedup_2_over_1"] = out["dask"]["1"]["wall_s"] / out["dask"]["2"]["wall_s"]
            if not args.json:
                print(f"dask speedup, 2 workers over 1: {out['dask_speedup_2_over_1']:.2f}x")
    out["load_after"] = _load()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"load average before {out['load_before']}, after {out['load_after']} (2 cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
