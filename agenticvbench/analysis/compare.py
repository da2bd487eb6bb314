"""`compare_runs`: stack A against stack B, task by task (paired), per family and overall.

On the tasks both stacks have a result for: each stack's repetitions are averaged within each task (a run
without a result for that task counts 0, the leaderboard's rule), the per-task differences `A - B` are
combined per family (every task weighs the same), for macro (every family weighs the same) and for micro
(every task weighs the same), with the clustered interval, sign-flip p-value and minimum detectable difference of
`agenticvbench.analysis.paired`. Family p-values are Holm-adjusted across the families compared.

Clusters: `clusters` ((family, task id) -> key, from `clusters.source_clusters`, re-exported here) groups tasks
cut from the same source material; without it every task is its own cluster (`unclustered_reason` says why in the
caption). The commands find the clusters with `clusters.resolve_clustering`, so they cluster whenever the source
material is known.

A comparison is refused (`SubmissionError`, one line) when the stacks share no task, or their results mix
dataset revisions or (within a family) verifier versions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from agenticvbench.analysis.aggregate import run_ref, score_matrices
from agenticvbench.analysis.clusters import Clustering, source_clusters  # noqa: F401 - public name, re-exported
from agenticvbench.analysis.comparability import dataset_key, verifier_key
from agenticvbench.analysis.paired import (
    DEFAULT_LEVEL,
    DEFAULT_PERMUTATIONS,
    DEFAULT_POWER,
    DEFAULT_SEED,
    PairedStat,
    holm,
    paired_stat,
)
from agenticvbench.analysis.power import Design, rep_spread
from agenticvbench.analysis.task_universe import TaskUniverse
from agenticvbench.dataset.tasks import FAMILIES
from agenticvbench.errors import SubmissionError
from agenticvbench.results.model import INVALID_STATUS, Result
from agenticvbench.sanitize import csv_cell, md_cell, one_line
from agenticvbench.tables import latex_table, md_table

TIE = 1e-9
#: The size of every test behind a verdict.
ALPHA = 0.05
#: Appended to an interval that runs past the possible range (+-100 points).
RANGE_MARK = "‡"
FORMATS = ("md", "csv", "json", "latex")


@dataclass
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
    #: tasks left out of this row because every repetition of A or of B is `excluded` (an infrastructure failure
    #: under `--infra-policy exclude`), as the leaderboard leaves such cells out
    excluded: int = 0

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
        if not s.detectable or p is None or p >= ALPHA:
            return "no detectable difference"
        return "A better" if s.estimate > 0 else "B better"

    @property
    def out_of_range(self) -> bool:
        """True when the interval runs past the possible range of a difference of scores in [0, 1] (+-100
        points): it is shown as computed, and marked."""
        s = self.stat
        return s.ci_low is not None and s.ci_high is not None and (s.ci_low < -1 - TIE or s.ci_high > 1 + TIE)


@dataclass
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
            f"clustered by {self.clustering}, t quantile on clusters - families degrees of freedom "
            f"({self.df_text}); p = paired sign-flip permutation, two-sided; family p-values Holm-adjusted "
            f"across the {sum(1 for r in self.rows if r.cell in FAMILIES)} families; verdict 'A better' / "
            f"'B better' only when the p (Holm for a family) is below {ALPHA:g} and the interval excludes 0; "
            f"MDD = minimum detectable difference at {self.power:.0%} power for this n; "
            f"W/L/T = tasks A won / lost / tied."
            + (
                f" Left out as the leaderboard leaves them out: {n_out} shared task(s) whose every repetition of A "
                f"or of B is excluded (infrastructure failures under --infra-policy exclude); an excluded "
                f"repetition of a task is left out of that task's mean"
                + (f"; not compared (no task left): {', '.join(gone)}" if gone else "")
                + "."
                if (n_out := sum(self.excluded.values()))
                else ""
            )
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
        return ", ".join(f"{r.cell} {'-' if r.stat.df is None else r.stat.df}" for r in self.rows)

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Display headers and rows (points, 1 decimal; p with 3 decimals)."""
        headers = [
            "cell",
            "tasks",
            "clusters",
            "A",
            "B",
            "A - B",
            f"{self.level:.0%} interval",
            "p",
            "p (Holm)",
            f"MDD{self.power:.0%}",
            "W/L/T",
            "verdict",
        ]
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
                    "-" if s.mdd is None else f"{100 * s.mdd:.1f}",
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


def _refuse_mixed(results: Sequence[Result]) -> None:
    datasets = {dataset_key(r) for r in results if (r.provenance or {}).get("dataset") is not None}
    if len(datasets) > 1:
        raise SubmissionError(f"cannot compare: the results mix {len(datasets)} dataset revisions")
    for fam in FAMILIES:
        versions = {verifier_key(r) for r in results if r.family == fam and r.status == "scored"}
        if len(versions) > 1:
            raise SubmissionError(f"cannot compare: the {fam} results mix {len(versions)} verifier versions")


def _label(results: Sequence[Result]) -> str:
    groups = sorted({run_ref(r).group for r in results})
    return ", ".join(f"{h}/{m}" for h, m in groups)


def _task_means(results: Sequence[Result], universe: TaskUniverse) -> tuple[dict[str, np.ndarray], int]:
    """Per family, each task's mean over the runs that did not exclude it (`excluded` cells are nan in the
    score matrix and are left out, the leaderboard's rule); nan where every run excluded the task."""
    runs = sorted({run_ref(r) for r in results})
    mats = score_matrices(results, runs, universe)
    no_result = sum(int(np.sum(st == "no_result")) for _, st in mats.values())
    out: dict[str, np.ndarray] = {}
    for f, (sc, _) in mats.items():
        kept = (~np.isnan(sc)).sum(axis=0)
        out[f] = np.where(kept > 0, np.nansum(sc, axis=0) / np.maximum(kept, 1), np.nan)
    return out, no_result


def _run_matrix(results: Sequence[Result], universe: TaskUniverse) -> np.ndarray:
    """Runs x tasks scores of one stack over the compared tasks, families concatenated (excluded cells nan)."""
    mats = score_matrices(results, sorted({run_ref(r) for r in results}), universe)
    return np.concatenate([mats[f][0] for f in universe.families], axis=1)


def compare_runs(
    results_a: Sequence[Result],
    results_b: Sequence[Result],
    *,
    clusters: Mapping[tuple[str, int], str] | None = None,
    level: float = DEFAULT_LEVEL,
    power: float = DEFAULT_POWER,
    permutations: int = DEFAULT_PERMUTATIONS,
    seed: int = DEFAULT_SEED,
    unclustered_reason: str = "",
) -> Comparison:
    """Compare stack A (`results_a`, one or several runs) with stack B, paired by task (module docstring)."""
    _refuse_mixed([*results_a, *results_b])
    have_a = {(r.family, int(r.task_id)) for r in results_a if r.status != INVALID_STATUS}
    have_b = {(r.family, int(r.task_id)) for r in results_b if r.status != INVALID_STATUS}
    shared = have_a & have_b
    if not shared:
        raise SubmissionError(
            f"cannot compare: {_label(results_a) or 'A'} and {_label(results_b) or 'B'} "
            "share no task with a result"
        )
    by_fam: dict[str, list[int]] = {}
    for fam, tid in sorted(shared):
        by_fam.setdefault(fam, []).append(tid)
    order = [f for f in FAMILIES if f in by_fam] + sorted(f for f in by_fam if f not in FAMILIES)
    universe = TaskUniverse({f: tuple(by_fam[f]) for f in order}, "observed")
    means_a, none_a = _task_means(results_a, universe)
    means_b, none_b = _task_means(results_b, universe)
    excluded: dict[str, int] = {}
    for fam in list(order):
        keep = np.isfinite(means_a[fam]) & np.isfinite(means_b[fam])
        excluded[fam] = int(np.sum(~keep))
        means_a[fam], means_b[fam] = means_a[fam][keep], means_b[fam][keep]
        by_fam[fam] = [t for t, k in zip(by_fam[fam], keep, strict=True) if k]
        if not by_fam[fam]:
            order.remove(fam)
    if not order:
        raise SubmissionError("cannot compare: every shared task is excluded (infrastructure failures)")
    universe = TaskUniverse({f: tuple(by_fam[f]) for f in order}, "observed")
    key = (lambda f, t: clusters.get((f, t), f"task:{f}-{t}")) if clusters else (lambda f, t: f"task:{f}-{t}")
    kw: dict[str, Any] = {"level": level, "power": power, "permutations": permutations, "seed": seed}
    rows: list[CompareRow] = []
    all_d, all_f, all_c, all_a, all_b = [], [], [], [], []
    for fam in order:
        d = means_a[fam] - means_b[fam]
        cl = [key(fam, t) for t in universe.tasks[fam]]
        rows.append(
            CompareRow(
                fam,
                float(means_a[fam].mean()),
                float(means_b[fam].mean()),
                paired_stat(d, clusters=cl, **kw),
                None,
                *_wlt(d),
                excluded[fam],
            )
        )
        all_d += list(d)
        all_f += [fam] * len(d)
        all_c += cl
        all_a += list(means_a[fam])
        all_b += list(means_b[fam])
    for r, p in zip(rows, holm([r.stat.p_value for r in rows]), strict=True):
        r.p_holm = p
    sizes = {f: len(universe.tasks[f]) for f in order}
    d_all = np.asarray(all_d)
    design = Design.macro(all_f, all_c)
    spreads = [
        found.sentence()
        for label, res in (("A", results_a), ("B", results_b))
        if (found := rep_spread(label, _run_matrix(res, universe), design))
    ]
    for cell, w in (
        ("macro", [1.0 / (len(order) * sizes[f]) for f in all_f]),
        ("micro", [1.0 / len(all_d)] * len(all_d)),
    ):
        wa = np.asarray(w)
        rows.append(
            CompareRow(
                cell,
                float(np.dot(wa, all_a)),
                float(np.dot(wa, all_b)),
                paired_stat(d_all, weights=wa, strata=all_f, clusters=all_c, **kw),
                None,
                *_wlt(d_all),
                sum(excluded.values()),
            )
        )
    return Comparison(
        _label(results_a),
        _label(results_b),
        sorted({run_ref(r).path for r in results_a}),
        sorted({run_ref(r).path for r in results_b}),
        rows,
        {f: list(universe.tasks[f]) for f in order},
        Clustering(dict(clusters) if clusters else None, unclustered_reason).label(
            (f, t) for f in order for t in universe.tasks[f]
        ),
        level,
        power,
        {"a": none_a, "b": none_b},
        len(have_a - have_b),
        len(have_b - have_a),
        excluded,
        spreads,
    )


def _wlt(d: np.ndarray) -> tuple[int, int, int]:
    return int(np.sum(d > TIE)), int(np.sum(d < -TIE)), int(np.sum(np.abs(d) <= TIE))


def paired_columns(
    groups: Iterable[Any], results: Sequence[Result], reference: str, **kwargs: Any
) -> dict[str, dict[tuple[str, str], str]]:
    """The leaderboard's `--compare-to ROW` column: each row's paired macro difference (row - reference, points)
    with its interval and p-value, on the tasks both have; 'reference' on the reference row; the refusal's
    reason when a pair cannot be compared. `reference` is 'harness/model'."""
    by_group: dict[str, list[Result]] = {}
    for r in results:
        by_group.setdefault("/".join(run_ref(r).group), []).append(r)
    if reference not in by_group:
        raise SubmissionError(f"--compare-to {reference}: no such row (rows: {', '.join(sorted(by_group))})")
    col: dict[tuple[str, str], str] = {}
    for g in groups:
        name = f"{g.harness}/{g.model}"
        if name == reference:
            col[(g.harness, g.model)] = "reference"
            continue
        try:
            macro = next(
                r
                for r in compare_runs(by_group.get(name, []), by_group[reference], **kwargs).rows
                if r.cell == "macro"
            )
        except SubmissionError as exc:
            col[(g.harness, g.model)] = str(exc).replace("cannot compare: ", "not compared: ")
            continue
        s = macro.stat
        ci = "" if s.ci_low is None else f" [{100 * s.ci_low:+.1f}, {100 * s.ci_high:+.1f}]"  # type: ignore[operator]
        col[(g.harness, g.model)] = f"{100 * s.estimate:+.1f}{ci} p={_p(s.p_value)} ({s.n_tasks} tasks)"
    return {f"vs {reference} (paired macro, pts)": col}
