"""The leaderboard: one row per (harness, model) over all its runs, as a DataFrame and as Markdown/CSV/LaTeX/HTML/JSON.

Rows come from `aggregate.headlines` (per-family mean over runs x tasks with missing = 0, macro and micro,
bootstrap CIs); the caption states every rule. Every format shows coverage (cells with a result / cells counted)
and marks cells that are not comparable (`comparability.MARKS`). LaTeX: `report.latex`.
When given a `floor` (`baselines.floor.floor_for`), its last row is the best trivial strategy per family over the
same tasks (docs/baselines.md).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd

from agenticvbench.analysis.aggregate import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    GroupHeadline,
    headlines,
)
from agenticvbench.analysis.comparability import (
    annotate,
    coverage_text,
    infra_lines,
    infra_text,
    judge_text,
    judge_total,
    legend,
    symbols,
)
from agenticvbench.analysis.compare import RANGE_MARK
from agenticvbench.analysis.settings import Aggregation
from agenticvbench.analysis.task_universe import TaskUniverse, split_by_universe, task_universe
from agenticvbench.baselines.floor import floor_display_row, floor_frame_row
from agenticvbench.baselines.table import Floor
from agenticvbench.report.loading import load_available
from agenticvbench.results.model import Result
from agenticvbench.results.signatures import key_label, signed_text
from agenticvbench.results.signing import ResultKey
from agenticvbench.runs.identity import duplicate_identities
from agenticvbench.sanitize import csv_cell, markdown_document
from agenticvbench.sanitize import text as sanitize_text
from agenticvbench.tables import column_spec, fmt, fmt_ci, joined, latex_table, md_table, split_joined
from agenticvbench.verifiers import headline_rule

FORMATS = ("md", "csv", "latex", "html", "json")

_JUDGE_COLUMNS = ("judge_calls", "judge_prompt_tokens", "judge_completion_tokens", "judge_cost_usd")
#: The columns of `Leaderboard.display_rows()` before and after the families.
_DISPLAY_LEAD = ("#", "harness", "model", "runs", "coverage")
_DISPLAY_TAIL = ("macro", "micro", "judge", "errors", "invalid", "infra", "signed")
#: The columns of `Leaderboard.frame()` around the scores (mean, lo, hi, marks per family, macro and micro).
_FRAME_LEAD = ("rank", "harness", "model", "runs", "with_result", "counted")
_FRAME_TAIL = ("infra_failures", "infra_rerun", "mark_notes", *_JUDGE_COLUMNS, "signed", "results")
_STATUS_COLUMNS = ("error", "invalid", "malformed", "missing", "no_result", "excluded")

#: Integer columns of `Leaderboard.frame()` (the floor row leaves them empty).
COUNT_COLUMNS = ("rank", "runs", *_STATUS_COLUMNS, *_JUDGE_COLUMNS[:3], "signed", "results", "infra_failures")


@dataclass(kw_only=True)
class Leaderboard:
    """Ranked (harness, model) headlines plus the rules that produced them."""

    groups: list[GroupHeadline]
    universe: TaskUniverse
    aggregation: Aggregation  # the settings every number and the caption come from
    skipped: list[str] = field(default_factory=list)  # paths given without results (not verified yet)
    notes: list[str] = field(default_factory=list)  # duplicate run identities
    checked_with: str = key_label(None)  # which key checked the signatures (`signatures.key_label`)
    floor: Floor | None = None  # the best trivial strategy per family over the same tasks (`avb baselines`)
    floor_note: str = ""  # where the floor came from, or why there is none
    #: extra display columns appended to every format: name -> {(harness, model): text} (cost, paired comparison)
    extra_columns: dict[str, dict[tuple[str, str], str]] = field(default_factory=dict)
    extra_captions: list[str] = field(default_factory=list)

    @property
    def families(self) -> list[str]:
        """Families with tasks, in benchmark order."""
        return self.universe.families

    @property
    def caption(self) -> str:
        """How every number in the table was computed."""
        return (
            f"Per family: mean headline score ({headline_rule('/')}) over runs x tasks; {self.aggregation.exclusion}. "
            f"macro = unweighted mean of the {len(self.families)} family means; micro = mean over all tasks. "
            f"{self.aggregation.interval_text(dict(self.universe.tasks))}. "
            + (
                f"{RANGE_MARK} = the interval runs past the possible range [0, 1]; shown as computed. "
                if self._any_out_of_range()
                else ""
            )
            + f"{self.universe.label} coverage = run x task cells "
            f"with a result / cells counted. signed = results whose signature verifies under {self.checked_with} / "
            f"results (`avb verify` rescores the others instead of reusing them). "
            + " ".join(f"{m}." for m in legend(self.groups))
            + "".join(f" {c}" for c in self.extra_captions)
        ).strip()

    def _any_out_of_range(self) -> bool:
        return any(
            _out_of_range(lo, hi)
            for g in self.groups
            for lo, hi in [*((f.ci_low, f.ci_high) for f in g.families.values()), g.macro_ci, g.micro_ci]
        )

    def frame(self) -> pd.DataFrame:
        """Numeric table: rank, harness, model, runs, per family mean/lo/hi, macro, micro, status counts."""
        rows: list[dict[str, Any]] = []
        for rank, g in enumerate(self.groups, 1):
            row: dict[str, Any] = {"rank": rank, "harness": g.harness, "model": g.model, "runs": len(g.runs)}
            for f in self.families:
                fh = g.families.get(f)
                row[f] = fh.mean if fh else None
                row[f"{f}_lo"] = fh.ci_low if fh else None
                row[f"{f}_hi"] = fh.ci_high if fh else None
            for name, value, (lo, hi) in (("macro", g.macro, g.macro_ci), ("micro", g.micro, g.micro_ci)):
                row.update({name: value, f"{name}_lo": lo, f"{name}_hi": hi})
            row.update({k: g.status_counts.get(k, 0) for k in _STATUS_COLUMNS})
            row.update({"infra_failures": len(g.infra), "infra_rerun": "; ".join(g.infra)})
            row.update({"with_result": g.coverage.get("with_result"), "counted": g.coverage.get("counted")})
            row.update({"signed": g.signatures.get("valid", 0), "results": g.signatures.get("results", 0)})
            row.update({f"{f}_marks": symbols(g.marks.get(f, [])) for f in [*self.families, "macro"]})
            row["micro_marks"] = row["macro_marks"]  # the displayed row marks apply to macro and micro alike
            row["mark_notes"] = "; ".join(g.mark_notes)
            row.update({name: col.get((g.harness, g.model), "") for name, col in self.extra_columns.items()})
            row.update({f"judge_{k}": v for k, v in judge_total(g).items()})
            rows.append(row)
        if self.floor is not None:
            rows.append(floor_frame_row(self.floor, self.families))
        scores = (
            f"{f}{part}" for f in [*self.families, "macro", "micro"] for part in ("", "_lo", "_hi", "_marks")
        )
        cols = [*_FRAME_LEAD, *scores, *_STATUS_COLUMNS, *_FRAME_TAIL, *self.extra_columns]
        df = pd.DataFrame(rows, columns=cols)
        counts = [c for c in (*COUNT_COLUMNS, "with_result", "counted") if c in df.columns]
        df[counts] = df[counts].astype("Int64")  # counts stay integers beside the floor row's empty cells
        return df

    def display_rows(self) -> tuple[list[str], list[list[str]]]:
        """The one row model every rendering of the board shows: headers and text cells, ranked rows first
        (means to 4 decimals, intervals to 2, marks after them), then the floor row when there is one."""
        headers = [*_DISPLAY_LEAD, *self.families, *_DISPLAY_TAIL, *self.extra_columns]
        rows = []
        for rank, g in enumerate(self.groups, 1):
            cells = [
                _score_cell(fh.mean, (fh.ci_low, fh.ci_high), symbols(g.marks.get(f, [])))
                if (fh := g.families.get(f))
                else "-"
                for f in self.families
            ]
            row_mark = symbols(g.marks.get("macro", []))
            rows.append(
                [
                    str(rank),
                    g.harness,
                    g.model,
                    str(len(g.runs)),
                    coverage_text(g),
                    *cells,
                    _score_cell(g.macro, g.macro_ci, row_mark),
                    _score_cell(g.micro, g.micro_ci, row_mark),
                    judge_text(judge_total(g)) or "0",
                    str(g.n_errors or 0),
                    str(g.n_invalid or 0),
                    infra_text(g),
                    signed_text(g.signatures),
                    *(col.get((g.harness, g.model), "") for col in self.extra_columns.values()),
                ]
            )
        if self.floor is not None:
            rows.append(floor_display_row(self.floor, headers, self.families))
        return headers, rows

    def _footer(self) -> list[str]:
        out = [f"Not comparable: {g.harness}/{g.model}: {n}" for g in self.groups for n in g.mark_notes]
        out += [f"Not shown (no results): {s}" for s in self.skipped]
        out += infra_lines(self.groups) + self.floor_lines()
        return out + [f"Warning: {n}" for n in self.notes]

    def floor_lines(self, end: str = "") -> list[str]:
        """The floor row's line with where it came from, or why there is none (`end` closes the latter)."""
        if self.floor is not None:
            return [self.floor.line() + (f" ({self.floor_note})" if self.floor_note else "")]
        return [f"Floor: {self.floor_note}{end}"] if self.floor_note else []

    def markdown_table(self) -> str:
        """The board's rows as a Markdown table (no caption): what the report and `-q` print."""
        headers, rows = self.display_rows()
        return md_table(headers, rows, column_spec(headers))

    def html_table(self) -> str:
        """The board's rows as an HTML `<table>` (no caption): what the HTML report and `avb view` show."""
        headers, rows = self.display_rows()
        head = "".join(f"<th>{escape(h)}</th>" for h in headers)
        body = "".join(
            "<tr>"
            + "".join(_html_cell(c, a) for c, a in zip(row, column_spec(headers), strict=True))
            + "</tr>"
            for row in rows
        )
        return f"<table class='board'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def to_markdown(self) -> str:
        """Markdown table followed by its caption and the notes on marked cells and skipped runs."""
        foot = "".join(f"\n- {line}" for line in self._footer())
        return markdown_document(
            self.markdown_table() + f"\n\n{self.caption}\n" + (foot + "\n" if foot else "")
        )

    def to_json(self) -> str:
        """JSON: the caption, legend, every row (numbers, marks, coverage, judge usage), skipped runs, notes."""
        doc = {
            "caption": self.caption,
            "legend": legend(self.groups),
            "families": self.families,
            "universe": {
                "basis": self.universe.basis,
                "label": self.universe.label,
                "tasks": {k: list(v) for k, v in self.universe.tasks.items()},
            },
            "bootstrap": self.aggregation.to_dict(dict(self.universe.tasks)),
            "judge_calibration": self.aggregation.calibration.to_dict(),
            "rows": [
                {"rank": i, **asdict(g), "judge_total": judge_total(g)} for i, g in enumerate(self.groups, 1)
            ],
            "skipped": self.skipped,
            "notes": self.notes,
            "floor": self.floor.to_dict() if self.floor else None,
            "floor_note": self.floor_note,
            "extra_columns": {
                name: {f"{h}/{m}": v for (h, m), v in col.items()} for name, col in self.extra_columns.items()
            },
        }
        return json.dumps(doc, indent=2, default=str) + "\n"

    def to_csv(self) -> str:
        """CSV of `frame()` (full precision; coverage, marks and their reasons are columns)."""
        return self.frame().map(csv_cell).to_csv(index=False)  # agent-chosen names: no formulas, one line

    def to_latex(self) -> str:
        """A booktabs `table*` that fits the line width (`report.latex`); needs booktabs and graphicx."""
        headers, rows = self.display_rows()
        return latex_table(
            headers,
            rows,
            caption=self.caption,
            label="tab:agenticvbench-leaderboard",
            comments=self._footer(),
        )

    def to_html(self) -> str:
        """A self-contained HTML page with the table and its caption."""
        page = (
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>AgenticVBench leaderboard</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ddd;padding:.3em .6em}td{text-align:right;white-space:nowrap}"
            "td.l{text-align:left}.ci{color:#777;font-size:.85em}th{background:#f3f3f3}"
            "p.caption{color:#555;font-size:.85em;max-width:60em}</style>"
            f"</head><body><h1>AgenticVBench leaderboard</h1>{self.html_table()}"
            f"<p class='caption'>{escape(self.caption)}</p>"
            + "".join(f"<p>{escape(line)}</p>" for line in self._footer())
            + "</body></html>\n"
        )
        return sanitize_text(page)  # agent strings: control characters and surrogates escaped

    def render(self, fmt_name: str) -> str:
        """Render in one of `FORMATS`."""
        renderers = {
            "md": self.to_markdown,
            "csv": self.to_csv,
            "latex": self.to_latex,
            "html": self.to_html,
            "json": self.to_json,
        }
        if fmt_name not in renderers:
            raise ValueError(f"unknown format {fmt_name!r}; expected one of {', '.join(FORMATS)}")
        return renderers[fmt_name]()


#: How far past [0, 1] an interval must run to be marked: half the unit of its printed two decimals, so a bound that
#: prints as 1.00 or 0.00 (a stretch of near-perfect scores: 1.0000003) is never marked.
RANGE_TOLERANCE = 0.005


def _out_of_range(lo: float | None, hi: float | None) -> bool:
    """True when a score interval visibly runs past [0, 1] (the small-sample stretch of few clusters can do that)."""
    return lo is not None and hi is not None and (lo < -RANGE_TOLERANCE or hi > 1 + RANGE_TOLERANCE)


def _score_cell(mean: float, ci: tuple[float | None, float | None], marks: str) -> str:
    """A displayed score: mean, interval, then the cell's marks and the range mark when the interval runs past."""
    return joined(fmt(mean), fmt_ci(*ci), marks + (RANGE_MARK if _out_of_range(*ci) else ""))


def _html_cell(cell: str, align: str) -> str:
    """One `<td>`: text columns left-aligned; a score's interval smaller, on the same line."""
    parts = split_joined(cell)
    if parts is None:
        return f"<td class='l'>{escape(cell)}</td>" if align == "l" else f"<td>{escape(cell)}</td>"
    value, ci, marks = parts
    mark = f" <b class='mark' title='see the legend'>{escape(marks.strip())}</b>" if marks.strip() else ""
    return f"<td>{escape(value)} <span class='ci'>{escape(ci)}</span>{mark}</td>"


def build_leaderboard(
    results: list[Result],
    *,
    tasks: Any = None,
    full_benchmark: bool = False,
    dataset_label: str = "",
    aggregation: Aggregation | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = DEFAULT_LEVEL,
    skipped: list[str] | None = None,
    key: ResultKey | None = None,
    floor: Floor | None = None,
    floor_note: str = "",
    cluster: bool = True,
    cache_dir: str | Path | None = None,
) -> Leaderboard:
    """Rank every (harness, model) in `results` (task universe as in `aggregate.task_universe`); `skipped`
    names runs given without results; `key` is the key the results' signatures were checked with (caption);
    `floor` (from `baselines.floor.floor_for`) is shown as the last row. `aggregation` carries the bootstrap and
    the clustering (a command resolves it once and passes it to every surface); without it one is resolved here
    from `resamples`, `seed`, `level` and `cluster` (source clusters from `tasks`, else the local dataset the
    results name; `cluster=False` draws tasks one by one; the judge calibration records from `cache_dir`, else the
    package cache)."""
    universe = task_universe(results, tasks=tasks, full_benchmark=full_benchmark, source=dataset_label)
    kept, _ = split_by_universe(results, universe)
    if aggregation is None:
        aggregation = Aggregation.resolve(
            kept,
            tasks=tasks,
            cluster=cluster,
            resamples=resamples,
            seed=seed,
            level=level,
            cache_dir=cache_dir,
        )
    a = aggregation
    kept = a.cells(kept)
    groups = headlines(kept, universe, resamples=a.resamples, seed=a.seed, level=a.level, clusters=a.clusters)
    annotate(groups, kept, a.calibration.uncalibrated)
    notes = duplicate_identities((r.harness, r.model, r.rep, r.path) for g in groups for r in g.runs)
    return Leaderboard(
        groups=groups,
        universe=universe,
        aggregation=aggregation,
        skipped=list(skipped or []),
        notes=notes,
        checked_with=key_label(key),
        floor=floor,
        floor_note=floor_note,
    )


def leaderboard_from_runs(
    paths: list[str | Path], key: ResultKey | None = None, *, find_key: bool = True, **kwargs: Any
) -> Leaderboard:
    """`build_leaderboard` over the results found in run directories / results folders, signatures checked
    with `key`, by default the key `avb leaderboard` uses (`signatures.reader_key`: as `avb verify` finds it;
    `find_key=False` checks none); runs without results are named in `Leaderboard.skipped` (a path that does not
    exist raises)."""
    if key is None and find_key:
        from agenticvbench.results.signatures import reader_key

        key, _ = reader_key(None)
    results, skipped = load_available(paths, key)
    return build_leaderboard(results, skipped=skipped, key=key, **kwargs)
