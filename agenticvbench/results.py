"""The persisted result model (versioned), its JSON file per task, and `load_results()` as a DataFrame."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agenticvbench.fsutil import atomic_write_json
from agenticvbench.submission import RESULTS_DIRNAME

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

RESULT_SCHEMA_VERSION = 1
Status = Literal["scored", "missing", "malformed", "error"]
STATUSES: tuple[str, ...] = ("scored", "missing", "malformed", "error")


@dataclass
class Result:
    """One (run, task) result. `headline_score` is what leaderboards average (0 for missing/malformed/error)."""

    task_id: int
    family: str
    status: Status
    final_score: float = 0.0
    adjusted_final_score: float | None = None
    headline_score: float = 0.0
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    components: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    official: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    run: dict[str, Any] = field(default_factory=dict)  # {path, harness, model, rep}
    fingerprint: str = ""
    schema_version: int = RESULT_SCHEMA_VERSION
    resumed: bool = False  # True when this run reused the file instead of rescoring (never True on disk)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (without the transient `resumed` flag)."""
        data = asdict(self)
        data.pop("resumed", None)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """Rebuild from JSON; unknown keys are ignored so older readers survive newer files."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def json_safe(obj: Any) -> tuple[Any, int]:
    """A copy of `obj` with every non-finite float (inf, NaN) replaced by None, and how many were replaced.

    Result files are strict JSON; an agent's input can legitimately drive a diagnostic value to infinity (e.g. a
    400-digit timestamp in report.md) without the score itself being wrong.
    """
    if isinstance(obj, float):
        return (obj, 0) if math.isfinite(obj) else (None, 1)
    if isinstance(obj, dict):
        out, n = {}, 0
        for k, v in obj.items():
            out[k], m = json_safe(v)
            n += m
        return out, n
    if isinstance(obj, (list, tuple)):
        items = [json_safe(v) for v in obj]
        return [v for v, _ in items], sum(m for _, m in items)
    return obj, 0


def result_path(out_dir: Path, task_id: int) -> Path:
    """Where the result of `task_id` lives inside a results folder."""
    return Path(out_dir) / f"{task_id}.json"


def write_result(out_dir: Path, result: Result) -> Path:
    """Atomically write one result file; returns its path."""
    path = result_path(out_dir, result.task_id)
    atomic_write_json(path, result.to_dict())
    return path


def read_result(path: Path) -> Result | None:
    """Read one result file; None if it is absent, torn, or of another schema version."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or data.get("schema_version") != RESULT_SCHEMA_VERSION:
        return None
    try:
        return Result.from_dict(data)
    except TypeError:
        return None


def results_dir_for(path: str | Path) -> Path:
    """Accept a run directory or a results folder and return the results folder."""
    p = Path(path)
    return p / RESULTS_DIRNAME if (p / RESULTS_DIRNAME).is_dir() else p


def iter_results(paths: list[str | Path] | str | Path) -> list[Result]:
    """All results under the given run directories or results folders."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Result] = []
    for p in paths:
        for f in sorted(results_dir_for(p).glob("*.json"), key=lambda q: (len(q.stem), q.stem)):
            if f.stem.isdigit() and (r := read_result(f)) is not None:
                out.append(r)
    return out


def load_results(paths: list[str | Path] | str | Path) -> pd.DataFrame:
    """One row per (run, task) with the run's harness/model/rep, family, status and scores.

    A path that does not exist raises `SubmissionError` (a typo must not read as an empty run).
    """
    import pandas as pd

    from agenticvbench.errors import SubmissionError

    for p in [paths] if isinstance(paths, (str, Path)) else paths:
        if not Path(p).exists():
            raise SubmissionError(f"{p}: no such run directory or results folder")

    rows = []
    for r in iter_results(paths):
        rows.append({
            "run": r.run.get("path", ""), "harness": r.run.get("harness", "unknown"),
            "model": r.run.get("model", "unknown"), "rep": r.run.get("rep"),
            "task_id": r.task_id, "family": r.family, "status": r.status,
            "final_score": r.final_score, "adjusted_final_score": r.adjusted_final_score,
            "headline_score": r.headline_score, "reason": r.reason, "n_warnings": len(r.warnings),
            "seconds": r.timings.get("total_s"),
        })
    cols = ["run", "harness", "model", "rep", "task_id", "family", "status", "final_score",
            "adjusted_final_score", "headline_score", "reason", "n_warnings", "seconds"]
    return pd.DataFrame(rows, columns=cols)
