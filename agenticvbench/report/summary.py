"""The report model: everything a Markdown/HTML/JSON report shows, computed once from a list of results.

`load_comparison(paths)` reads the results of several runs (run directories or `avb-results` folders);
`build_report(results, ...)` aggregates them (see `aggregate` for the rules) and gathers status counts, the
list of tasks that lost points for a non-scoring reason, warnings and provenance.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenticvbench.analysis.aggregate import CELL_STATUSES, NO_RESULT, GroupHeadline, RunRef, run_ref
from agenticvbench.analysis.comparability import judge_identity
from agenticvbench.analysis.settings import Aggregation
from agenticvbench.analysis.task_universe import TaskUniverse, split_by_universe
from agenticvbench.baselines.table import Floor
from agenticvbench.report.judge_agreement import judge_agreement
from agenticvbench.report.loading import load_available, load_comparison  # noqa: F401 - public names
from agenticvbench.results.model import INVALID_STATUS, Result
from agenticvbench.results.signatures import key_label, reader_key, signature_counts
from agenticvbench.results.signing import ResultKey
from agenticvbench.version import __version__

if TYPE_CHECKING:
    from agenticvbench.report.leaderboard import Leaderboard


def load_published() -> dict[str, Any]:
    """The published numbers shipped with the package (`report/published.json`), with their sources."""
    text = resources.files("agenticvbench.report").joinpath("published.json").read_text(encoding="utf-8")
    return json.loads(text)


@dataclass(kw_only=True)
class Problem:
    """A run x task cell that scored 0 for a non-scoring reason (missing, malformed, error, invalid, no result)."""

    run: str
    task_id: int
    family: str
    status: str
    reason: str


@dataclass(kw_only=True)
class Report:
    """A comparison of one or more runs, ready to render: the leaderboard (`board`, the one computation of every
    headline and interval, with the settings that made them) and what the report adds around it."""

    board: Leaderboard
    runs: list[RunRef]
    results: list[Result]
    status_counts: dict[str, dict[str, int]]
    problems: list[Problem]
    warnings: list[tuple[str, int]]
    provenance: dict[str, Any]
    ignored: list[str]
    published: dict[str, Any] = field(default_factory=dict)
    package_version: str = __version__
    notes: list[str] = field(default_factory=list)  # duplicate run identities, runs without results
    warning_sites: dict[str, list[str]] = field(default_factory=dict)  # warning -> ["<run> task <id>", ...]
    judge_agreement: dict[str, Any] | None = None  # model judge vs human graders on recap
    signatures: dict[str, Any] = field(default_factory=dict)  # {key, per_run: {label: counts}, total: counts}

    @property
    def universe(self) -> TaskUniverse:
        """The task universe the board counts."""
        return self.board.universe

    @property
    def groups(self) -> list[GroupHeadline]:
        """The board's rows, best first."""
        return self.board.groups

    @property
    def aggregation(self) -> Aggregation:
        """The settings every number of the report was computed with."""
        return self.board.aggregation

    @property
    def floor(self) -> Floor | None:
        """The best trivial strategy per family over the same tasks (`avb baselines`), if any."""
        return self.board.floor

    @property
    def floor_note(self) -> str:
        """Where the floor came from, or why there is none."""
        return self.board.floor_note

    @property
    def n_errors(self) -> int:
        """Cells whose verifier failed (status `error`)."""
        return sum(c.get("error", 0) for c in self.status_counts.values())

    def run_labels(self) -> dict[str, str]:
        """A unique display label per run path (`RunRef.short`, plus the path when two runs would share it)."""
        return run_labels(self.runs)

    def result(self, run: RunRef, task_id: int) -> Result | None:
        """The result of one run x task, if any."""
        return next(
            (r for r in self.results if int(r.task_id) == task_id and run_ref(r).path == run.path), None
        )

    def task_rows(self) -> list[dict[str, Any]]:
        """One row per (family, task, run): status, headline, final, adjusted, reason, warning count."""
        return task_rows(self.universe, self.runs, self.results)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (per-task rows included; full per-task detail stays in the result files)."""
        return {
            "package_version": self.package_version,
            "universe": {
                "basis": self.universe.basis,
                "source": self.universe.source,
                "label": self.universe.label,
                "tasks": {k: list(v) for k, v in self.universe.tasks.items()},
            },
            "bootstrap": self.aggregation.to_dict(dict(self.universe.tasks)),
            "judge_calibration": self.aggregation.calibration.to_dict(),
            "groups": [g.to_dict() for g in self.groups],
            "runs": [asdict(r) for r in self.runs],
            "status_counts": self.status_counts,
            "problems": [asdict(p) for p in self.problems],
            "warnings": [
                {"warning": w, "count": n, "where": self.warning_sites.get(w, [])} for w, n in self.warnings
            ],
            "notes": self.notes,
            "provenance": self.provenance,
            "ignored": self.ignored,
            "tasks": self.task_rows(),
            "judge_agreement": self.judge_agreement,
            "signatures": self.signatures,
            "floor": self.floor.to_dict() if self.floor else None,
            "floor_note": self.floor_note,
        }


def run_labels(runs: list[RunRef]) -> dict[str, str]:
    """A unique display label per run path (`RunRef.short`, plus the path when two runs would share it)."""
    shorts = [r.short for r in runs]
    return {r.path: r.short if shorts.count(r.short) == 1 else f"{r.short} [{r.path}]" for r in runs}


def task_rows(universe: TaskUniverse, runs: list[RunRef], results: list[Result]) -> list[dict[str, Any]]:
    """One row per (family, task, run) of the universe: status, headline, final, adjusted, reason, warnings."""
    index = {(run_ref(r).path, int(r.task_id)): r for r in results}
    labels = run_labels(runs)
    rows = []
    for fam in universe.families:
        for tid in universe.tasks[fam]:
            for run in runs:
                r = index.get((run.path, tid))
                rows.append(
                    {
                        "family": fam,
                        "task_id": tid,
                        "run": labels[run.path],
                        "run_path": run.path,
                        "harness": run.harness,
                        "model": run.model,
                        "rep": run.rep,
                        "status": r.status if r else NO_RESULT,
                        "headline": float(r.headline_score) if r and r.status == "scored" else 0.0,
                        "final_score": r.final_score if r else None,
                        "adjusted_final_score": r.adjusted_final_score if r else None,
                        "reason": r.reason if r else "no result file for this task in this run",
                        "n_warnings": len(r.warnings) if r else 0,
                    }
                )
    return rows


_PROBLEM_ORDER = ("error", INVALID_STATUS, "malformed", "missing", NO_RESULT, "excluded")


def _provenance(results: list[Result]) -> dict[str, Any]:
    def distinct(values: Iterable[Any]) -> list[Any]:
        out: list[Any] = []
        for v in values:
            if v not in out and v not in (None, "", {}):
                out.append(v)
        return out

    prov = [r.provenance or {} for r in results]
    verifiers: dict[str, list[Any]] = {}
    for r, p in zip(results, prov, strict=True):
        found = verifiers.setdefault(r.family, [])
        if p.get("verifier_version") and p["verifier_version"] not in found:
            found.append(p["verifier_version"])
    libraries: dict[str, list[Any]] = {}
    for p in prov:
        for lib, ver in (p.get("libraries") or {}).items():
            if ver not in libraries.setdefault(lib, []):
                libraries[lib].append(ver)
    return {
        "package_versions": distinct(p.get("package_version") for p in prov),
        "verifier_versions": verifiers,
        "datasets": distinct(p.get("dataset") for p in prov),
        "libraries": dict(sorted(libraries.items())),
        "hosts": distinct(p.get("host") for p in prov),
        "judges": distinct(judge_identity(p) for p in prov),
    }


def build_report(
    results: list[Result],
    *,
    notes: list[str] | None = None,
    cache_dir: str | Path | None = None,
    key: ResultKey | None = None,
    **board_options: Any,
) -> Report:
    """Aggregate `results` into a `Report`: the leaderboard (`build_leaderboard`, given `board_options`: `tasks`,
    `full_benchmark`, `dataset_label`, `aggregation` or `resamples`/`seed`/`level`/`cluster`, `floor`,
    `floor_note`) and what the report shows around it. `notes` (e.g. runs without results) are shown with the
    report's own (duplicate run identities). With `cache_dir`, recap results judged by a model are compared with
    the human verdicts stored there (`judge_agreement`), and, unless `aggregation` is given, the judge calibration
    records are read there (else from the package cache). `key` names the key the results' signatures were checked
    with (by default, when some result's signature verified, the reader's key that checked it: `load_comparison`
    looks it up the same way)."""
    from agenticvbench.report.leaderboard import build_leaderboard

    if (agg := board_options.get("aggregation")) is not None:
        results = agg.cells(results)  # flagged cells left out (--exclude-flagged) in the rows too
    if key is None and any(r.signature_status == "valid" for r in results):
        key, _ = reader_key(None)
    board = build_leaderboard(results, key=key, cache_dir=cache_dir, **board_options)
    universe = board.universe
    kept, outside = split_by_universe(results, universe)
    ignored = [
        f"{run_ref(r).short}: task {r.task_id} ({r.family}) is not in the task universe; ignored"
        for r in outside
    ]
    runs = sorted({run_ref(r) for r in kept})
    labels = run_labels(runs)
    rows = task_rows(universe, runs, kept)
    counts = {f: dict.fromkeys(CELL_STATUSES, 0) for f in universe.families}
    for row in rows:
        counts[row["family"]][row["status"]] += 1
    problems = [
        Problem(**{k: row[k] for k in ("run", "task_id", "family", "status", "reason")})
        for row in rows
        if row["status"] != "scored"
    ]
    sites: dict[str, list[str]] = {}
    for r in sorted(kept, key=lambda r: (run_ref(r).path, int(r.task_id))):
        for w in dict.fromkeys(r.warnings):
            sites.setdefault(w, []).append(f"{labels[run_ref(r).path]} task {r.task_id}")
    warns = Counter(w for r in kept for w in r.warnings)
    return Report(
        board=board,
        runs=runs,
        results=kept,
        status_counts=counts,
        problems=sorted(problems, key=lambda p: (_PROBLEM_ORDER.index(p.status), p.task_id, p.run)),
        warnings=sorted(warns.items(), key=lambda kv: (-kv[1], kv[0])),
        provenance=_provenance(kept),
        ignored=ignored,
        published=load_published(),
        notes=[*(notes or []), *board.notes],
        warning_sites=sites,
        judge_agreement=judge_agreement(kept, cache_dir) if cache_dir is not None else None,
        signatures={
            "key": key_label(key),
            "total": signature_counts(kept),
            "per_run": {
                labels[x.path]: signature_counts(r for r in kept if run_ref(r).path == x.path) for x in runs
            },
        },
    )


def published_comparison(
    groups: list[GroupHeadline], published: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Each published headline beside ours for the same (harness, model, family) (ours None when absent)."""
    published = published if published is not None else load_published()
    ours = {(g.harness, g.model, f): fh for g in groups for f, fh in g.families.items()}
    rows = []
    for entry in published.get("headlines", []):
        fh = ours.get((entry["harness"], entry["model"], entry["family"]))
        rows.append(
            {
                "harness": entry["harness"],
                "model": entry["model"],
                "family": entry["family"],
                "published": entry["headline"],
                "published_runs": entry.get("n_runs"),
                "ours": None if fh is None else fh.mean,
                "our_runs": None if fh is None else fh.n_runs,
                "difference": None if fh is None else fh.mean - entry["headline"],
                "source": published.get("sources", {}).get(entry.get("source", ""), {}).get("where", ""),
            }
        )
    return rows


def human_references(published: dict[str, Any] | None = None) -> dict[str, float]:
    """Published human reference score per family (only families that have one)."""
    published = published if published is not None else load_published()
    return {f: float(v["value"]) for f, v in published.get("human_reference", {}).items()}
