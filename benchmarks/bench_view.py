"""Time `avb view` at leaderboard size: a generated benchmark of 100 tasks x 9 runs (3 stacks x 3 reps).

    python benchmarks/bench_view.py [--stacks 3] [--reps 3] [--keep DIR]

The runs are written with the package's own result writer (`results.model.write_result`), one result per task
and run with the detail each family's verifier writes (recap items naming times, sequencing and assembly clip
lists, repair chunks and windows), a `run.json` with usage per task and Harbor outcomes (a timeout, an
infrastructure failure), and every recap task's `final.mp4` (one small video, shared bytes: the thumbnail cache
is keyed by content, as for real runs). No dataset is given (scores, outputs and evidence; no prompts).

Prints, per step:

- `model`: reading the 900 results and building the report (2,000 bootstrap resamples, as `avb report`);
- `overview`: the leaderboard and the 100 x 9 grid with its filter data;
- `task page` (median, max), `stack page`, `compare page` (9 runs, each against the first): cold (thumbnails
  made) and warm (a fresh process state, thumbnails cached);
- `refresh`: the check every page request makes for changed results (nothing changed), and the reload after one
  result was rewritten, as `avb view` does it (its `view.reading.RunReader` reads the changed run only) beside a
  build that reads every run (what a reload cost before); medians of 3 rewrites;
- `memory`: peak RSS of this process after every page was rendered once, and what the server keeps (its page
  cache is bounded: `view.server.MAX_CACHED_PAGES`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agenticvbench.fsutil import file_sha256
from agenticvbench.media.ffmpeg import run_ffmpeg
from agenticvbench.results.model import Result, write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME

MODELS = (
    "claude-opus-4-7",
    "claude-sonnet-4-6",
    "gpt-5.5",
    "gpt-5.4-mini",
    "gemini-3.1-pro",
    "gemini-3-flash",
    "qwen3-vl-235b-instruct",
)
FAMILIES = {
    "recap": range(1, 37),
    "sequencing": range(37, 65),
    "repair": range(65, 83),
    "assembly": range(83, 101),
}


def _video(dest: Path) -> Path:
    """A 10-s 320x180 test video (what a recap output is, small)."""
    run_ffmpeg(
        [
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc=s=320x180:r=10:d=10",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
            str(dest),
        ],
        check=True,
    )
    return dest


def _detail(family: str, tid: int, k: int) -> tuple[dict, dict]:
    """(detail, official) of one result, varied by `k` (the run's index)."""
    if family == "recap":
        items = [
            {
                "item_id": f"it{i}",
                "pillar_name": "craft",
                "weight": 1.0,
                "outcome": "fail" if (i + k) % 3 else "pass",
                "reason": f"longest black run 2s at {i}-{i + 1} s",
                "evidence": {"black_s": 2.0},
            }
            for i in range(10)
        ]
        return {"items": items}, {}
    if family == "sequencing":
        correct = [str(i) for i in range(1, 9)]
        pred = correct[k % 3 :] + correct[: k % 3]
        return {"pred": pred, "correct": correct}, {"nd_score": 0.5, "lis_score": 0.6, "strict_match": 0.0}
    if family == "assembly":
        correct = [str(i) for i in range(1, 7)]
        picks = [c if (i + k) % 2 else "99" for i, c in enumerate(correct)]
        return {"picks": picks, "correct": correct}, {"n_correct": 3, "n_slots": 6}
    chunks = [
        {
            "start_s": 10.0 * c,
            "end_s": 10.0 * (c + 1),
            "video_ssim_out": 0.9,
            "audio_xcorr_out": 0.8,
            **({"video_ssim_in": 0.5, "audio_xcorr_in": 0.4} if c == 1 else {}),
        }
        for c in range(6)
    ]
    loc = {"predicted_window_s": [12.0, 15.0], "truth_window_s": [13.0, 16.0]}
    return {"edit": {"chunks": chunks}, "localization": loc}, {"format_score": 1.0, "edit_score": 0.5}


def generate(root: Path, stacks: int, reps: int) -> list[Path]:
    """Write stacks x reps run folders of 100 results each under `root`; the run paths, in order."""
    root.mkdir(parents=True, exist_ok=True)
    video = _video(root / "recap.mp4")
    digest = file_sha256(video)
    runs = []
    k = 0
    for s in range(stacks):
        model = MODELS[s % len(MODELS)] + ("" if s < len(MODELS) else f"-v{s}")  # past 7: unpriced
        for rep in range(1, reps + 1):
            run = root / f"stack{s}-rep{rep}"
            (run / RESULTS_DIRNAME).mkdir(parents=True)
            usage, outcomes = {}, {}
            for family, ids in FAMILIES.items():
                for tid in ids:
                    detail, official = _detail(family, tid, k)
                    score = ((tid * 7 + k * 13) % 101) / 100
                    status = "malformed" if (tid + k) % 37 == 0 else "scored"
                    hashes = {}
                    if family == "recap":
                        (run / str(tid)).mkdir()
                        shutil.copyfile(video, run / str(tid) / "final.mp4")
                        hashes = {"final.mp4": digest}
                    r = Result(
                        task_id=tid,
                        family=family,
                        status=status,  # type: ignore[arg-type]
                        final_score=score if status == "scored" else 0.0,
                        headline_score=score if status == "scored" else 0.0,
                        reason="" if status == "scored" else "malformed: no output",
                        warnings=["D-R6: sampling note"] if tid % 5 == 0 else [],
                        detail=detail,
                        official=official,
                        timings={"total_s": 0.5},
                        provenance={
                            "package_version": "0.1.0",
                            "verifier_version": f"{family}-1",
                            "input_hashes": hashes,
                        },
                        run={"path": str(run), "harness": f"harness{s}", "model": model, "rep": rep},
                    )
                    write_result(run / RESULTS_DIRNAME, r)
                    usage[str(tid)] = {
                        "agent": f"harness{s}",
                        "model": model,
                        "source": "harbor",
                        "tokens": {
                            "input_tokens": 100_000 + tid,
                            "cache_read_tokens": 50_000,
                            "output_tokens": 4_000,
                        },
                        "agent_started": "2026-01-01T00:00:00Z",
                        "agent_finished": f"2026-01-01T00:{tid % 60:02d}:30Z",
                    }
                    if tid % 23 == 0:
                        outcomes[str(tid)] = {
                            "outcome": "agent_timeout",
                            "reason": "AgentTimeoutError: 3600 s",
                        }
                    elif tid % 31 == 0:
                        outcomes[str(tid)] = {"outcome": "infra_failure", "reason": "HealthcheckError"}
            meta = {
                "harness": f"harness{s}",
                "model": model,
                "rep": rep,
                "source": "harbor",
                "usage": usage,
                "harbor": {"outcomes": outcomes},
            }
            (run / "run.json").write_text(json.dumps(meta))
            runs.append(run)
            k += 1
    return runs


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(runs: list[Path], cache: Path, label: str) -> dict[str, float]:
    """Build the model and render the overview, every task page, the stack pages and the compare pages."""
    from agenticvbench.cli.view import comparisons as compare_all
    from agenticvbench.view import Thumbnailer, build_model
    from agenticvbench.view.pages import Site, compare_page, overview, stack_page, task_page

    t0 = time.perf_counter()
    model = build_model(runs, local=True)
    t1 = time.perf_counter()
    site, thumbs = Site(), Thumbnailer(cache, progress=False)
    comparisons = compare_all(model) if len(model.runs) > 1 else []
    site.compare = bool(comparisons)
    tc = time.perf_counter()
    index = overview(model, site, comparisons)
    t2 = time.perf_counter()
    again = []
    for _ in range(3):  # the same page rendered again (what a reload of the model costs per overview)
        s = time.perf_counter()
        overview(model, site, comparisons)
        again.append(time.perf_counter() - s)
    pages, sizes = [], []
    for fam in model.families:
        for tid in model.task_ids(fam):
            for r in model.runs:
                s = time.perf_counter()
                sizes.append(len(task_page(model, site, thumbs, r.index, tid).encode()))
                pages.append(time.perf_counter() - s)
    stacks, compares = [], []
    for tid in list(FAMILIES["recap"])[:5] + list(FAMILIES["repair"])[:5]:
        for st in range(len(model.stacks)):
            s = time.perf_counter()
            stack_page(model, site, thumbs, st, tid)
            stacks.append(time.perf_counter() - s)
        s = time.perf_counter()
        compare_page(model, site, thumbs, tid)
        compares.append(time.perf_counter() - s)
    made = thumbs.made
    thumbs.close()
    out = {
        "model_s": t1 - t0,
        "comparisons_s": tc - t1,
        "overview_s": t2 - tc,
        "overview_again_median_s": statistics.median(again),
        "page_median_s": statistics.median(pages),
        "page_max_s": max(pages),
        "pages_total_s": sum(pages),
        "stack_median_s": statistics.median(stacks),
        "stack_max_s": max(stacks),
        "compare_median_s": statistics.median(compares),
        "compare_max_s": max(compares),
        "thumbs_made": made,
        "overview_kib": len(index.encode()) / 1024,
        "task_page_kib_median": statistics.median(sizes) / 1024,
        "task_page_kib_max": max(sizes) / 1024,
        "pages": len(pages),
        "peak_rss_mib": rss_mib(),
    }
    print(
        label, json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}), flush=True
    )
    return out


def refresh_costs(runs: list[Path], cache: Path) -> None:
    """What the server's check for changed results costs, and a reload after one result changed."""
    from agenticvbench.view import Thumbnailer, ViewApp, build_model
    from agenticvbench.view.reading import RunReader

    reader = RunReader()  # as `avb view`: one reader for the session
    app = ViewApp(
        model=build_model(runs, local=True, reader=reader),
        thumbs=Thumbnailer(cache, progress=False),
        reload=lambda: build_model(runs, local=True, reader=reader),
    )
    s = time.perf_counter()
    for _ in range(20):
        app.refresh()
    check = (time.perf_counter() - s) / 20
    # Every page through the server's cache, as a session that visits them all: what it keeps is bounded.
    rss0 = rss_mib()
    paths = ["/index.html"] + [
        f"/task-{r.index}-{t}.html" for t in app.model.task_order for r in app.model.runs
    ]
    for path in paths:
        app.page(path)
    kept = sum(len(b) for b in app.pages._pages.values())
    print(
        "server",
        json.dumps(
            {
                "pages_visited": len(paths),
                "pages_kept": len(app.pages),
                "kept_kib": round(kept / 1024),
                "peak_rss_mib_before": round(rss0),
                "peak_rss_mib_after": round(rss_mib()),
            }
        ),
        flush=True,
    )
    path = runs[-1] / RESULTS_DIRNAME / "1.json"
    reloads, full, changed = [], [], []
    for k in range(3):
        r = Result.from_dict(json.loads(path.read_text()))
        r.headline_score = r.final_score = 0.1 + 0.01 * k
        write_result(path.parent, r)
        st = path.stat()  # a rewrite within the file system's clock tick: move the mtime on
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        s = time.perf_counter()
        changed.append(app.refresh())
        reloads.append(time.perf_counter() - s)
        s = time.perf_counter()
        build_model(runs, local=True)  # a fresh reader: every run read, as every reload did before
        full.append(time.perf_counter() - s)
    app.thumbs.close()
    out = {
        "check_s": round(check, 4),
        "reload_s": round(statistics.median(reloads), 3),
        "reload_all_runs_s": round(statistics.median(full), 3),
        "changed": all(changed),
    }
    print("refresh", json.dumps(out))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stacks", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--keep", type=Path, default=None, help="write the runs here and keep them")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-view-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        s = time.perf_counter()
        runs = generate(root / "runs", args.stacks, args.reps)
        print(f"generated {len(runs)} runs x 100 tasks in {time.perf_counter() - s:.1f} s", flush=True)
        cache = root / "cache"
        measure(runs, cache, "cold")
        measure(runs, cache, "warm")
        refresh_costs(runs, cache)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
