"""Harbor's recorded reward next to our score, for runs imported with `avb import harbor`.

Both numbers should be the same headline computed by the same scorer (the exported `test.sh` runs `avb score`);
a difference means the verifier image ran another package version, another dataset revision, or a recap judge
with other verdicts. Disagreements beyond `TOLERANCE` are flagged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import parse_json_bounded, read_capped

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


def harbor_rewards(run_dir: str | Path) -> dict[int, float]:
    """Task id -> Harbor reward from an imported run's `run.json` (empty when absent, unreadable or not imported)."""
    p = Path(run_dir) / "run.json"
    try:
        if p.is_symlink():
            return {}
        meta: Any = parse_json_bounded(read_capped(p, MAX_RUN_JSON_BYTES), str(p))
    except (OSError, ValueError):
        return {}
    raw = meta.get("harbor_rewards") if isinstance(meta, dict) else None
    out: dict[int, float] = {}
    for key, value in (raw.items() if isinstance(raw, dict) else ()):
        if str(key).isdigit() and isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.isfinite(value):
            out[int(key)] = float(value)
    return out


def compare_rows(rows: list[dict[str, Any]]) -> list[RewardComparison]:
    """Comparisons for report task rows (`run_path`, `run`, `task_id`, `headline`) whose run has Harbor rewards."""
    cache: dict[str, dict[int, float]] = {}
    out = []
    for row in rows:
        rewards = cache.setdefault(row["run_path"], harbor_rewards(row["run_path"]) if row["run_path"] else {})
        if row["task_id"] in rewards:
            out.append(RewardComparison(row["run"], int(row["task_id"]), rewards[row["task_id"]],
                                        float(row["headline"])))
    return out


def markdown_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The report section (empty when no run was imported from Harbor)."""
    comps = compare_rows(rows)
    if not comps:
        return []
    bad = [c for c in comps if not c.agrees]
    lines = ["## Harbor reward vs our score", "",
             f"{len(comps)} task result(s) carry the reward Harbor recorded; {len(bad)} disagree by more than "
             f"{TOLERANCE:g}.", ""]
    if bad:
        lines += ["| run | task | Harbor | ours | difference |", "|:--|--:|--:|--:|--:|"]
        lines += [f"| {c.run} | {c.task_id} | {c.harbor:.4f} | {c.ours:.4f} | **{c.ours - c.harbor:+.4f}** |"
                  for c in bad]
        lines.append("")
    return lines
