"""Harbor's recorded reward next to our score, for runs imported with `avb import harbor`.

Both numbers should be the same headline computed by the same scorer (the exported `test.sh` runs `avb score`);
a difference means the verifier image ran another package version, another dataset revision, or a recap judge
with other verdicts. Disagreements beyond `TOLERANCE` are flagged.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import parse_json_bounded, read_capped
from agenticvbench.runs.trial_outcomes import OUTCOMES

TOLERANCE = 1e-6
MAX_RUN_JSON_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class RewardComparison:
    """One (run, task) with both a Harbor reward and our headline."""

    run: str
    task_id: int
    harbor: float
    ours: float

    @property
    def agrees(self) -> bool:
        """True when the two numbers match within TOLERANCE."""
        return abs(self.harbor - self.ours) <= TOLERANCE


def _run_json(run_dir: str | Path) -> Any:
    p = Path(run_dir) / "run.json"
    try:
        if p.is_symlink():
            return {}
        return parse_json_bounded(read_capped(p, MAX_RUN_JSON_BYTES), str(p))
    except (OSError, ValueError):
        return {}


def harbor_job_problems(run_dir: str) -> tuple[str, ...]:
    """Why the Harbor job an imported run came from is not leaderboard-grade (`run.json` ->
    `harbor.comparability.problems`, written by the import from `avb harbor check-job`); empty otherwise."""
    if not run_dir:
        return ()
    try:
        st = os.stat(Path(run_dir) / "run.json")
    except OSError:
        return ()
    return _job_problems(run_dir, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=1024)
def _job_problems(run_dir: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """`harbor_job_problems`, cached per run.json version (a report reads it once per result)."""
    meta = _run_json(run_dir)
    harbor = meta.get("harbor") if isinstance(meta, dict) else None
    comp = harbor.get("comparability") if isinstance(harbor, dict) else None
    raw = comp.get("problems") if isinstance(comp, dict) else None
    return tuple(
        " ".join(p.split())[:200] for p in (raw if isinstance(raw, list) else [])[:10] if isinstance(p, str)
    )


def harbor_rewards(run_dir: str | Path) -> dict[int, float]:
    """Task id -> Harbor reward from an imported run's `run.json` (empty when absent, unreadable or not imported)."""
    meta = _run_json(run_dir)
    raw = meta.get("harbor_rewards") if isinstance(meta, dict) else None
    items = raw.items() if isinstance(raw, dict) else ()
    return {int(k): float(v) for k, v in items if str(k).isdigit() and _finite(v)}


def compare_rows(rows: list[dict[str, Any]]) -> list[RewardComparison]:
    """Comparisons for report task rows (`run_path`, `run`, `task_id`, `headline`) whose run has Harbor rewards."""
    rewards = {p: harbor_rewards(p) if p else {} for p in {row["run_path"] for row in rows}}
    return [
        RewardComparison(row["run"], int(row["task_id"]), got[row["task_id"]], float(row["headline"]))
        for row in rows
        if row["task_id"] in (got := rewards[row["run_path"]])
    ]


def trial_outcomes(run_dir: str | Path) -> tuple[dict[str, int], list[str], str]:
    """(outcome -> count, "task N: trial (reason)" per infrastructure failure, the infra policy) of an imported
    run (empty for other runs)."""
    meta = _run_json(run_dir)
    harbor = meta.get("harbor") if isinstance(meta, dict) else None
    raw = harbor.get("outcomes") if isinstance(harbor, dict) else None
    trials = harbor.get("trials") if isinstance(harbor, dict) else None
    counts: dict[str, int] = {}
    infra: list[str] = []
    for key, value in sorted((raw.items() if isinstance(raw, dict) else ()), key=lambda kv: str(kv[0])):
        kind = value.get("outcome") if isinstance(value, dict) else None
        if not isinstance(kind, str) or kind not in OUTCOMES:
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "infra_failure":
            name = trials.get(key) if isinstance(trials, dict) else None
            reason = value.get("reason") if isinstance(value.get("reason"), str) else ""
            infra.append(f"task {str(key)[:12]}: {str(name)[:200]} ({' '.join(reason.split())[:200]})")
    policy = harbor.get("infra_policy") if isinstance(harbor, dict) else None
    return counts, infra, policy if policy in ("zero", "exclude") else "zero"


def outcome_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The "Harbor trial outcomes" section: per imported run, the count of each outcome and the infrastructure
    failures to rerun (empty when no run was imported from Harbor)."""
    seen: dict[str, str] = {}
    for row in rows:
        if row.get("run_path"):
            seen.setdefault(row["run_path"], row["run"])
    table: list[str] = []
    rerun: list[str] = []
    for path, run in seen.items():
        counts, infra, policy = trial_outcomes(path)
        if not counts:
            continue
        table.append(f"| {run} | " + " | ".join(str(counts.get(k, 0)) for k in OUTCOMES) + f" | {policy} |")
        rerun += [f"- {run}: {line}" for line in infra]
    if not table:
        return []
    lines = [
        "## Harbor trial outcomes",
        "",
        "Infrastructure failures (the sandbox, not the agent) count 0 under the policy `zero`, as the official "
        "aggregation, and are left out of the run under `exclude` (`avb import harbor --infra-policy`).",
        "",
        "| run | " + " | ".join(OUTCOMES) + " | infra policy |",
        "|:--|" + "--:|" * len(OUTCOMES) + ":--|",
        *table,
        "",
    ]
    if rerun:
        lines += [f"{len(rerun)} infrastructure failure(s) to rerun:", "", *rerun, ""]
    return lines


def _facts(run_dir: str) -> tuple[str, list[dict[str, Any]]]:
    """(harness, the trajectory facts of each task) of an imported run; wrong types are dropped."""
    meta = _run_json(run_dir)
    value = meta.get("harness") if isinstance(meta, dict) else None
    harness = value if isinstance(value, str) else "unknown"
    harbor = meta.get("harbor") if isinstance(meta, dict) else None
    raw = harbor.get("trajectories") if isinstance(harbor, dict) else None
    out = [v for v in (raw.values() if isinstance(raw, dict) else ()) if isinstance(v, dict)]
    return harness[:80], out


def _finite(value: Any) -> bool:
    """True for a finite number (a bool is not one)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _n(value: Any) -> float:
    return float(value) if _finite(value) and value >= 0 else 0.0


def trajectory_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The "Harbor trajectories" section: per harness, over its imported runs' tasks with a trajectory: mean turns
    and tool calls, the most used tools, mean agent wall time, and how often the media were inspected."""
    per: dict[str, list[dict[str, Any]]] = {}
    for path in dict.fromkeys(r["run_path"] for r in rows if r.get("run_path")):
        harness, facts = _facts(path)
        if facts:
            per.setdefault(harness, []).extend(facts)
    table = []
    for harness, facts in sorted(per.items()):
        with_t = [f for f in facts if f.get("has_trajectory") is True]
        tools: dict[str, float] = {}
        for f in with_t:
            calls = f.get("tool_calls")
            for name, k in calls.items() if isinstance(calls, dict) else ():
                tools[str(name)[:60]] = tools.get(str(name)[:60], 0.0) + _n(k)
        top = ", ".join(
            f"{name} {int(k)}" for name, k in sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        )
        secs = [_n(f.get("agent_seconds")) for f in facts if f.get("agent_seconds") is not None]
        n = len(with_t)

        def mean(key: str, items: list[dict[str, Any]] = with_t) -> str:
            return f"{sum(_n(f.get(key)) for f in items) / len(items):.1f}" if items else "-"

        def share(key: str, items: list[dict[str, Any]] = with_t) -> str:
            return f"{sum(1 for f in items if _n(f.get(key)) > 0) / len(items):.0%}" if items else "-"

        calls_mean = f"{sum(tools.values()) / n:.1f}" if n else "-"
        minutes = f"{sum(secs) / len(secs) / 60:.1f}" if secs else "-"
        table.append(
            f"| {harness.replace('|', '/')} | {len(facts)} | {n} | {mean('turns')} | {calls_mean} | "
            f"{top.replace('|', '/') or '-'} | {minutes} | {share('ffprobe_calls')} | "
            f"{share('frame_extractions')} |"
        )
    if not table:
        return []
    return [
        "## Harbor trajectories",
        "",
        "From each trial's ATIF trajectory (`agent/trajectory.json`) and timing: means per task with a "
        "trajectory; media inspected = the share of those tasks with an `ffprobe` call or an `ffmpeg` frame "
        "extraction.",
        "",
        "| harness | tasks | with trajectory | turns | tool calls | top tools | agent min | ffprobe | "
        "frames extracted |",
        "|:--|--:|--:|--:|--:|:--|--:|--:|--:|",
        *table,
        "",
    ]


def markdown_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The report sections (empty when no run was imported from Harbor): trial outcomes, trajectories, rewards."""
    comps = compare_rows(rows)
    outcomes = outcome_lines(rows) + trajectory_lines(rows)
    if not comps:
        return outcomes
    bad = [c for c in comps if not c.agrees]
    lines = [
        *outcomes,
        "## Harbor reward vs our score",
        "",
        f"{len(comps)} task result(s) carry the reward Harbor recorded; {len(bad)} disagree by more than "
        f"{TOLERANCE:g}.",
        "",
    ]
    if bad:
        lines += ["| run | task | Harbor | ours | difference |", "|:--|--:|--:|--:|--:|"]
        lines += [
            f"| {c.run} | {c.task_id} | {c.harbor:.4f} | {c.ours:.4f} | **{c.ours - c.harbor:+.4f}** |"
            for c in bad
        ]
        lines.append("")
    return lines
