"""What `avb compare` prints: one `CompareRow` per family, macro and micro, and the `Comparison` with its caption
and renderers (md, csv, json, latex). The numbers come from `agenticvbench.analysis.compare.compare_runs`; the
verdict rule, the range mark and the caption's wording live here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from agenticvbench.analysis.paired import PairedStat
from agenticvbench.dataset.tasks import FAMILIES
from agenticvbench.sanitize import csv_cell, md_cell, one_line
from agenticvbench.tables import latex_table, md_table

TIE = 1e-9
#: The size of every test behind a verdict.
ALPHA = 0.05
#: Appended to an interval that runs past the possible range (+-100 points).
RANGE_MARK = "§"
FORMATS = ("md", "csv", "json", "latex")


@dataclass(kw_only=True)
class CompareRow:
    """One line of a comparison: a family, "macro" or "micro"."""

    cell: str
    mean_a: float
    mean_b: float
    stat: PairedStat
    p_holm: float | None
    won: int
    lost: int
    tied: int
    #: tasks left out of this row's paired difference because every repetition of A or of B is `excluded` (an
    #: infrastructure failure under `--infra-policy exclude`)
    excluded: int = 0
    #: what Holm multiplies this row's smallest possible p by (the number of families compared; 1 for macro/micro)
    holm_m: int = 1

    @property
    def reachable(self) -> bool:
        """False when no difference can give a verdict: the sign-flip p's floor (`PairedStat.min_p`) times the
        Holm multiplier is not below `ALPHA` (a family or macro of 5 or fewer clusters, exact enumeration)."""
        return self.stat.reachable(self.holm_m if self.cell in FAMILIES else 1, ALPHA)

    @property
    def mdd_text(self) -> str:
        """The MDD column in points, or 'no verdict possible (G clusters)' when no difference can meet it."""
        if self.stat.mdd is None:
            return "-"
        if not self.reachable:
            return f"no verdict possible ({self.stat.n_clusters} clusters)"
        return f"{100 * self.stat.mdd:.1f}"

    @property
    def p_decisive(self) -> float | None:
        """The p-value the verdict rests on: Holm-adjusted for a family, the plain p for macro and micro."""
        return self.p_holm if self.cell in FAMILIES else self.stat.p_value

    @property
    def verdict(self) -> str:
        """'A better' / 'B better' only when the decisive p (`p_decisive`) is below `ALPHA` *and* the interval
        excludes 0; else 'no detectable difference', with the reason when it is not the plain one (no interval,
        an interval of zero width, or an interval and a p-value that disagree)."""
        s, p = self.stat, self.p_decisive
        if s.ci_low is None or s.ci_high is None:
            return "no detectable difference (no interval: fewer than 2 clusters)"
        if s.ci_high - s.ci_low <= TIE:
            return "no detectable difference (interval has zero width)"
        if not self.reachable:
            return f"no detectable difference (no verdict possible: {s.n_clusters} clusters)"
        if not s.detectable or p is None or p >= ALPHA:
            return "no detectable difference"
        return "A better" if s.estimate > 0 else "B better"

    @property
    def out_of_range(self) -> bool:
        """True when the interval runs past the possible range of a difference of scores in [0, 1] (+-100
        points): it is shown as computed, and marked."""
        s = self.stat
        return s.ci_low is not None and s.ci_high is not None and (s.ci_low < -1 - TIE or s.ci_high > 1 + TIE)


@dataclass(kw_only=True)
class Comparison:
    """Everything `avb compare` prints, with the rules that produced it."""

    label_a: str
    label_b: str
    runs_a: list[str]
    runs_b: list[str]
    rows: list[CompareRow]
    tasks: dict[str, list[int]]
    clustering: str
    level: float
    power: float
    no_result_cells: dict[str, int] = field(default_factory=dict)
    only_a: int = 0
    only_b: int = 0
    #: family -> shared tasks left out because every repetition of A or of B is `excluded`
    excluded: dict[str, int] = field(default_factory=dict)
    #: with 2+ runs of a stack: its run-to-run spread of the macro against the task-level interval
    rep_spread: list[str] = field(default_factory=list)
    #: cells left out as excluded because of their integrity flags (`--exclude-flagged`), and the rule's sentence
    flagged_out: int = 0
    flagged_rule: str = ""

    @property
    def caption(self) -> str:
        """What every number is over (stack labels on one line; `caption_with(md_cell)` for Markdown)."""
        return self.caption_with(one_line)

    def caption_with(self, clean: Callable[[str], str]) -> str:
        """The caption with the stack labels (agent-chosen harness and model names) passed through `clean`."""
        counts = ", ".join(f"{f} {len(v)}" for f, v in self.tasks.items())
        gone = self._gone
        n = sum(len(v) for v in self.tasks.values())
        return (
            f"A = {clean(self.label_a)} ({len(self.runs_a)} run(s)), B = {clean(self.label_b)} "
            f"({len(self.runs_b)} run(s)). "
            f"Over the {n} task(s) both have a result for ({counts}); {self.only_a} task(s) only A and "
            f"{self.only_b} only B has are left out. Repetitions averaged within each task (a run without a "
            f"result for a task counts 0: A {self.no_result_cells.get('a', 0)}, B "
            f"{self.no_result_cells.get('b', 0)} such cells). Differences A - B in points (score x 100). "
            f"macro = mean of the family differences, micro = mean over tasks. {self.level:.0%} interval "
            f"clustered by {self.clustering}; CR2 (bias-reduced) variance, t quantile on Bell-McCaffrey "
            f"degrees of freedom ({self.df_text}); p = paired sign-flip permutation, two-sided; family p-values "
            f"Holm-adjusted "
            f"across the {sum(1 for r in self.rows if r.cell in FAMILIES)} families; verdict 'A better' / "
            f"'B better' only when the p (Holm for a family) is below {ALPHA:g} and the interval excludes 0; "
            f"MDD = minimum detectable difference at {self.power:.0%} power for this n ('no verdict possible' "
            f"where the sign-flip p cannot go below {ALPHA:g} after Holm with that few clusters, whatever the "
            f"difference); "
            f"W/L/T = tasks A won / lost / tied."
            + (
                " Excluded cells (infrastructure failures under --infra-policy exclude"
                + (", or flagged cells under --exclude-flagged" if self.flagged_out else "")
                + f"): the A and B columns are "
                f"what the leaderboard prints for each stack over the compared tasks (its mean over its own kept "
                f"cells); the differences leave out the {n_out} shared task(s) whose every repetition of A or of "
                f"B is excluded, and an excluded repetition is left out of its task's mean"
                + (f"; not compared (no task left): {', '.join(gone)}" if gone else "")
                + "."
                if (n_out := sum(self.excluded.values()))
                else ""
            )
            + (f" {self.flagged_rule}." if self.flagged_rule else "")
            + "".join(f" Repetitions: {line}" for line in self.rep_spread)
            + (
                f" {RANGE_MARK} = the interval runs past the possible range (+-100 points); shown as computed."
                if any(r.out_of_range for r in self.rows)
                else ""
            )
        )

    @property
    def _gone(self) -> list[str]:
        return [f for f, n in self.excluded.items() if n and f not in self.tasks]

    @property
    def df_text(self) -> str:
        """The degrees of freedom each row's interval used ('-' without an interval)."""
        return ", ".join(f"{r.cell} {'-' if r.stat.df is None else f'{r.stat.df:.1f}'}" for r in self.rows)

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Display headers and rows (points, 1 decimal; p with 3 decimals)."""
        lead = ["cell", "tasks", "clusters", "A", "B", "A - B", f"{self.level:.0%} interval"]
        headers = [*lead, "p", "p (Holm)", f"MDD{self.power:.0%}", "W/L/T", "verdict"]
        out = []
        for r in self.rows:
            s = r.stat
            ci = "-" if s.ci_low is None else f"[{100 * s.ci_low:+.1f}, {100 * s.ci_high:+.1f}]"  # type: ignore[operator]
            ci += RANGE_MARK if r.out_of_range else ""
            out.append(
                [
                    r.cell,
                    str(s.n_tasks),
                    str(s.n_clusters),
                    f"{100 * r.mean_a:.1f}",
                    f"{100 * r.mean_b:.1f}",
                    f"{100 * s.estimate:+.1f}",
                    ci,
                    _p(s.p_value),
                    _p(r.p_holm),
                    r.mdd_text,
                    f"{r.won}/{r.lost}/{r.tied}" + (f" ({r.excluded} excluded)" if r.excluded else ""),
                    r.verdict,
                ]
            )
        return headers, out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (fractions, not points)."""
        doc = asdict(self)
        for row, r in zip(doc["rows"], self.rows, strict=True):
            row["verdict"] = r.verdict
            row["out_of_range"] = r.out_of_range
            row["reachable"] = r.reachable
        doc["caption"] = self.caption
        return doc

    def render(self, fmt_name: str) -> str:
        """Render as md, csv, json or latex."""
        headers, rows = self.table()
        if fmt_name == "md":
            return md_table(headers, rows, "lrrrrrrrrrrl") + f"\n\n{self.caption_with(md_cell)}\n"
        if fmt_name == "json":
            return json.dumps(self.to_dict(), indent=2, default=str, allow_nan=False) + "\n"
        if fmt_name == "csv":
            import pandas as pd

            frame = pd.DataFrame(
                [
                    {
                        "cell": r.cell,
                        "tasks": r.stat.n_tasks,
                        "clusters": r.stat.n_clusters,
                        "mean_a": r.mean_a,
                        "mean_b": r.mean_b,
                        "diff": r.stat.estimate,
                        "se": r.stat.se,
                        "ci_low": r.stat.ci_low,
                        "ci_high": r.stat.ci_high,
                        "p": r.stat.p_value,
                        "p_holm": r.p_holm,
                        "mdd": r.stat.mdd,
                        "reachable": r.reachable,
                        "won": r.won,
                        "lost": r.lost,
                        "tied": r.tied,
                        "excluded": r.excluded,
                        "verdict": r.verdict,
                    }
                    for r in self.rows
                ]
            )
            return frame.map(csv_cell).to_csv(index=False)
        if fmt_name == "latex":
            return latex_table(headers, rows, caption=self.caption, label="tab:agenticvbench-compare")
        raise ValueError(f"unknown format {fmt_name!r}; expected one of {', '.join(FORMATS)}")


def _p(p: float | None) -> str:
    return "-" if p is None else ("<0.001" if p < 0.001 else f"{p:.3f}")
