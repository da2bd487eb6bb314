"""Result fixtures shared by the analysis, cost and report tests: synthetic result folders (no engine) and, lazily,
the scored demo runs. Registered for the whole suite by tests/conftest.py."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from agenticvbench.results.model import Result, write_result
from agenticvbench.runs.submission import RESULTS_DIRNAME

# family -> score field that is the headline (the engine sets headline_score the same way)
_ADJUSTED = {"sequencing", "assembly"}


def make_result(
    task_id: int,
    family: str,
    score: float,
    *,
    status: str = "scored",
    harness: str = "h",
    model: str = "m",
    rep: int | None = 1,
    path: str = "",
    reason: str = "",
    warnings: list[str] | None = None,
    detail: dict | None = None,
) -> Result:
    """A synthetic result as the engine would write it."""
    scored = status == "scored"
    return Result(
        task_id=task_id,
        family=family,
        status=status,  # type: ignore[arg-type]
        final_score=score if scored else 0.0,
        adjusted_final_score=(score if scored else 0.0) if family in _ADJUSTED else None,
        headline_score=score if scored else 0.0,
        reason=reason,
        warnings=list(warnings or []),
        detail=detail or {},
        timings={"total_s": 0.01},
        provenance={
            "package_version": "0.1.0",
            "verifier_version": f"{family}-1",
            "dataset": {"dataset": "demo", "revision": "main", "resolved_revision": "local"},
            "libraries": {"numpy": "2"},
        },
        run={"path": path, "harness": harness, "model": model, "rep": rep},
    )


RunFactory = Callable[..., Path]


@pytest.fixture
def mk() -> Callable[..., Result]:
    """The synthetic-result factory (`make_result`) as a fixture, so test modules need not import conftest."""
    return make_result


@pytest.fixture
def make_run(tmp_path: Path) -> RunFactory:
    """Write a run directory with `avb-results/<id>.json` files; cells are {task_id: (family, score[, status])}."""

    def _make(
        name: str, cells: dict[int, tuple], *, harness: str = "h", model: str = "m", rep: int | None = 1, **kw
    ) -> Path:
        run = tmp_path / name
        out = run / RESULTS_DIRNAME
        out.mkdir(parents=True, exist_ok=True)
        for tid, cell in cells.items():
            family, score, *rest = cell
            status = rest[0] if rest else "scored"
            write_result(
                out,
                make_result(
                    tid,
                    family,
                    score,
                    status=status,
                    harness=harness,
                    model=model,
                    rep=rep,
                    path=str(run),
                    reason=f"{status} reason {tid}" if rest else "",
                    **kw,
                ),
            )
        return run

    return _make


#: Demo families scored for the notebook and Dask tests: the fast ones (recap media checks take much longer).
DEMO_FAMILIES = ("sequencing", "assembly")


@dataclass
class ScoredDemo:
    """A private copy of the demo with `DEMO_FAMILIES` scored locally into each run's avb-results."""

    root: Path
    mirror: Path
    runs: dict[str, Path]
    families: tuple[str, ...]
    tasks: list
    results: list[Result]


@pytest.fixture(scope="session")
def scored_demo(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ScoredDemo:
    """The demo (the shared `demo` fixture when tests/conftest.py provides one), copied so our results never
    touch other tests' runs, with the fast families scored once per session by the local engine."""
    from agenticvbench.dataset.loader import load_tasks
    from agenticvbench.demo import build_demo
    from agenticvbench.scoring.engine import verify_run

    try:
        source = request.getfixturevalue("demo").root
    except pytest.FixtureLookupError:
        source = build_demo(tmp_path_factory.mktemp("demo-src") / "demo").root
    root = tmp_path_factory.mktemp("report-demo") / "demo"
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    demo = build_demo(root)  # a complete copy: reused as is, never rebuilt
    tasks = [t for t in load_tasks(dataset=demo.mirror) if t.family in DEMO_FAMILIES]
    summary = verify_run(
        list(demo.runs.values()),
        dataset=demo.mirror,
        tasks=tasks,
        jobs=1,
        cache_dir=tmp_path_factory.mktemp("report-cache"),
    )
    return ScoredDemo(root, demo.mirror, dict(demo.runs), DEMO_FAMILIES, tasks, summary.results)
