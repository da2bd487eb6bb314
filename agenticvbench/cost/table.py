"""`avb cost` tables: agent usage and cost per (harness, model) and per family, laid out like the paper's cost
tables (rows / extracted / missing / the four token buckets / cost), from imported run directories or directly
from Harbor job directories.

A run directory contributes the `usage` block `avb import harbor` wrote into its `run.json` (one entry per task);
its trials are the tasks named there, in `harbor.trials`, or as task folders, so a task without usage is counted
as missing. A Harbor job directory is read trial by trial, as the importer does.

One renderer (`render`) serves both cost tables (`avb cost` and `avb cost --paper`) in md, csv, json and latex.

Every cell an agent or harness could have chosen (harness and model names, notes) goes through `sanitize`: the
Markdown and LaTeX tables through the shared renderers of `agenticvbench.tables`, CSV cells through
`sanitize.csv_cell` (a leading `=`, `+`, `-`, `@` is defused, so a spreadsheet never runs a formula), and JSON is
strict (`allow_nan=False`: a NaN or an infinity is a bug to surface, never a token to print).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from agenticvbench.cost.pricing import CostRow, PriceTable, TrialCost, cost_rows, family_of, price_trial
from agenticvbench.cost.tokens import BUCKETS
from agenticvbench.cost.usage import TrialUsage
from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import parse_json_bounded, read_capped
from agenticvbench.sanitize import csv_cell, markdown_document, one_line
from agenticvbench.tables import latex_table, md_table

_RUN_JSON_MAX = 5 * 1024 * 1024


_TASK_ID = re.compile(r"[0-9]{1,4}")
MAX_NOTES_PER_RUN = 20
MAX_USAGE_ENTRIES = 10_000


def _task_ids(keys: Iterable[Any], where: str, notes: list[str]) -> set[str]:
    """The keys that are task ids (ASCII digits: `"²"` is not one), a note for each other key."""
    out = set()
    for k in keys:
        if isinstance(k, str) and _TASK_ID.fullmatch(k):
            out.add(str(int(k)))
        else:
            notes.append(f"{where}: key {one_line(str(k)[:40])!r} is not a task id; ignored")
    return out


def _run_dir_trials(path: Path, notes: list[str], stats: dict[str, int]) -> list[TrialCost]:
    from agenticvbench.runs.identity import RunIdentity

    run_json = path / "run.json"
    mine: list[str] = []
    try:
        data = parse_json_bounded(read_capped(run_json, _RUN_JSON_MAX), str(run_json))
    except (OSError, ValueError) as exc:
        mine.append(f"{run_json}: unreadable ({one_line(str(exc)[:200])}); its tasks count as missing")
        data = {}
    data = data if isinstance(data, dict) else {}
    ident = RunIdentity.resolve(path, {k: data.get(k) for k in ("harness", "model", "rep")})
    raw_usage = data.get("usage")
    usage: dict[str, Any] = {}
    if isinstance(raw_usage, dict):
        usage = dict(list(raw_usage.items())[:MAX_USAGE_ENTRIES])
        stats["runs_with_usage_block"] += 1
    elif raw_usage is not None:
        mine.append(f"{run_json}: field 'usage' is not an object; its tasks count as missing")
    harbor: dict[str, Any] = data["harbor"] if isinstance(data.get("harbor"), dict) else {}
    trials: dict[str, Any] = harbor["trials"] if isinstance(harbor.get("trials"), dict) else {}
    ids = _task_ids(usage, f"{run_json}: usage", mine)
    ids |= _task_ids(list(trials)[:MAX_USAGE_ENTRIES], f"{run_json}: harbor.trials", mine)
    ids |= {
        str(int(n))
        for n in os.listdir(path)
        if _TASK_ID.fullmatch(n) and (path / n).is_dir() and not (path / n).is_symlink()
    }
    by_id = {str(int(k)): v for k, v in usage.items() if isinstance(k, str) and _TASK_ID.fullmatch(k)}
    out = []
    for tid in sorted(ids, key=int):
        entry = by_id.get(tid)
        parsed = None if entry is None else TrialUsage.from_dict(entry, f"{run_json}: usage.{tid}", mine)
        out.append(
            TrialCost(
                harness=ident.harness,
                model=ident.model,
                rep=str(ident.rep or ""),
                task_id=int(tid),
                family=family_of(int(tid)),
                usage=None if parsed is None else parsed.to_dict(),
            )
        )
    notes += mine[:MAX_NOTES_PER_RUN]
    if len(mine) > MAX_NOTES_PER_RUN:
        notes.append(f"{run_json}: {len(mine) - MAX_NOTES_PER_RUN} more note(s) not shown")
    return out


def is_job_dir(path: Path) -> bool:
    """A Harbor job directory: no run.json, and some subfolder holds a trial `result.json`."""
    if (path / "run.json").exists():
        return False
    return any((p / "result.json").is_file() for p in path.iterdir() if p.is_dir() and not p.is_symlink())


#: Reads the trials of a Harbor job directory (`harbor.trials.job_trial_costs`); the caller passes it, so that
#: cost stays below the Harbor integration that itself reads usage through `cost.usage`.
JobReader = Callable[[Path, list[str]], list[TrialCost]]


def load_trials(
    paths: list[str | Path],
    notes: list[str],
    read_job: JobReader | None = None,
    stats: dict[str, int] | None = None,
) -> list[TrialCost]:
    """Every trial of the given run directories and (with `read_job`) Harbor job directories (`SubmissionError`
    for a bad path, or a job directory when no job reader is given); `stats` counts the kinds of folder read."""
    stats = {} if stats is None else stats
    for k in ("runs", "jobs", "runs_with_usage_block"):
        stats.setdefault(k, 0)
    out: list[TrialCost] = []
    for p in map(Path, paths):
        if not p.is_dir():
            raise SubmissionError(f"{p}: not a run directory or Harbor job directory")
        if is_job_dir(p):
            if read_job is None:
                raise SubmissionError(f"{p}: a Harbor job directory; import it first (avb import harbor)")
            stats["jobs"] += 1
            out += read_job(p, notes)
        else:
            stats["runs"] += 1
            out += _run_dir_trials(p, notes, stats)
    return out


def empty_reason(trials: list[TrialCost], stats: dict[str, int]) -> str:
    """Why no trial has usage ('' when some trial has), so a table never shows rows of zeros unexplained."""
    if any(t.has_usage for t in trials):
        return ""
    if not trials:
        return "no trial found: the folders hold no task folder, run.json usage entry or Harbor trial"
    if stats.get("runs") and not stats.get("runs_with_usage_block") and not stats.get("jobs"):
        return (
            f"no trial has usage: these runs were not imported from Harbor (their run.json has no 'usage' "
            f"block; `avb harbor import` writes one), so their {len(trials)} trial(s) have no token counts"
        )
    return (
        f"no trial has usage: none of the {len(trials)} trial(s) recorded token counts (neither Harbor's "
        "result.json nor a harness log the importer reads had any)"
    )


@dataclass
class CostTable:
    """The rows, the price table they used, and notes about files that could not be read."""

    rows: list[CostRow]
    prices: PriceTable
    notes: list[str] = field(default_factory=list)
    trials: list[TrialCost] = field(default_factory=list)  # the priced trials the rows are over
    empty_reason: str = ""  # why no trial has usage ('' when some has): shown instead of rows of zeros

    @property
    def caption(self) -> str:
        """What every figure is over."""
        return (
            f"Per (harness, model) and family: rows = trials, extracted = trials with token usage, missing = "
            f"trials without (counted, never as free), errored = trials Harbor recorded an exception for. "
            f"Tokens are summed over the extracted trials in four disjoint buckets (input = uncached input). "
            f"Cost = tokens x {self.prices.label}, over the extracted trials only; 'unpriced' = some model has "
            f"no price (never $0); $/trial = cost / extracted. Cache writes are only known from the harness "
            f"logs: 'cw reported' counts the trials whose cache writes were read (the others count 0). "
            f"'reported $' sums the harness's or Harbor's own cost figure where one was recorded."
        )

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Display headers and rows."""
        headers = [
            "harness",
            "model",
            "slice",
            "rows",
            "extracted",
            "missing",
            "errored",
            "input",
            "cached input",
            "cache write",
            "output",
            "tokens",
            "cost ($)",
            "$/trial",
            "cw reported",
            "reported $",
        ]
        out = []
        for r in self.rows:
            cost = (
                "unpriced: " + ", ".join(r.unpriced_models)
                if r.unpriced_trials
                else "-"
                if r.cost_usd is None
                else f"{r.cost_usd:.4f}"
            )
            out.append(
                [
                    r.harness,
                    r.model,
                    r.slice,
                    str(r.trials),
                    str(r.extracted),
                    str(r.missing),
                    str(r.errored),
                    *(f"{r.tokens[b]:,}" for b in r.tokens),
                    f"{r.total_tokens:,}",
                    cost,
                    "-" if r.cost_per_trial is None else f"{r.cost_per_trial:.4f}",
                    f"{r.cache_write_reported}/{r.extracted}",
                    "-"
                    if r.reported_cost_usd is None
                    else f"{r.reported_cost_usd:.4f} ({r.reported_trials})",
                ]
            )
        return headers, out

    def render(self, fmt_name: str) -> str:
        """md, csv, json or latex (`render`); when no trial has usage, the reason instead of the rows."""
        if self.empty_reason:
            return render_empty(fmt_name, self.empty_reason, self.prices, self.notes)
        headers, rows = self.table()
        doc = {
            "caption": self.caption,
            "prices": {
                "version": self.prices.version,
                "origin": self.prices.origin,
                "sources": self.prices.sources,
            },
            "rows": [
                {**asdict(r), "total_tokens": r.total_tokens, "cost_per_trial": r.cost_per_trial}
                for r in self.rows
            ],
            "notes": self.notes,
        }
        records = [csv_record(r) for r in self.rows]
        return render(
            fmt_name,
            headers,
            rows,
            caption=self.caption,
            notes=self.notes,
            doc=doc,
            records=records,
            label="tab:agent-cost",
            align="lll" + "r" * 13,
        )


def build_cost_table(
    paths: list[str | Path], prices: PriceTable, read_job: JobReader | None = None
) -> CostTable:
    """Load, price and tabulate the trials of `paths` (job directories through `read_job`)."""
    notes: list[str] = []
    stats: dict[str, int] = {}
    trials = load_trials(paths, notes, read_job, stats)
    for t in trials:
        price_trial(t, prices)
    return CostTable(cost_rows(trials), prices, notes, trials, empty_reason(trials, stats))


def unpriced_hint(table: CostTable) -> list[str]:
    """A note naming the unpriced models another shipped table prices (`--prices NAME`), if any."""
    from agenticvbench.cost.pricing import DEFAULT_TABLE, NAMED_TABLES, load_prices

    missing = sorted({m for r in table.rows for m in r.unpriced_models})
    out = []
    for name in NAMED_TABLES:
        other = load_prices(name)
        if other.version == table.prices.version:
            continue
        known = [m for m in missing if other.lookup(m)]
        if known:
            out.append(
                f"unpriced in {table.prices.label}: {', '.join(known)}; the shipped '{name}' table prices "
                f"them (--prices {name}), but those are not the paper's prices"
                if table.prices.version == load_prices(DEFAULT_TABLE).version
                else f"unpriced in {table.prices.label}: {', '.join(known)}; --prices {name} prices them"
            )
    return out


FORMATS = ("md", "csv", "json", "latex")


def md_text(value: Any) -> str:
    """A caption or note line in Markdown: one line, raw HTML neutralised (a price-table version or a path
    could carry `<img onerror=...>`)."""
    return markdown_document(one_line(value))


def _md_notes(notes: Sequence[str]) -> str:
    return "".join(f"\n- {md_text(n)}" for n in notes) + ("\n" if notes else "")


def strict_json(doc: Any) -> str:
    """`doc` as indented JSON; `ValueError` on NaN or infinity (never written)."""
    return json.dumps(doc, indent=2, allow_nan=False) + "\n"


#: The columns of `avb cost --format csv` (`csv_record`): the row's fields, its four token buckets, $ per trial.
CSV_FIELDS = (*(f.name for f in fields(CostRow) if f.name != "tokens"), *BUCKETS, "cost_per_trial")


def csv_record(r: CostRow) -> dict[str, Any]:
    """One CSV record of `avb cost` (`CSV_FIELDS`, in that order)."""
    d = {
        **asdict(r),
        **r.tokens,
        "unpriced_models": ";".join(r.unpriced_models),
        "cost_per_trial": r.cost_per_trial,
    }
    return {k: d[k] for k in CSV_FIELDS}


def csv_text(records: Sequence[Mapping[str, Any]], header: Sequence[str] = ()) -> str:
    """CSV with a header from the first record's keys (`header` when there is no record: a header-only CSV, or
    "" without one); every string cell through `sanitize.csv_cell`."""
    if not records and not header:
        return ""
    out = io.StringIO()
    cols = list(records[0]) if records else list(header)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([csv_cell(c) for c in cols])
    for rec in records:
        writer.writerow(["" if rec.get(c) is None else csv_cell(rec.get(c)) for c in cols])
    return out.getvalue()


def render(
    fmt_name: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    caption: str,
    notes: Sequence[str],
    doc: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    label: str,
    align: str = "",
) -> str:
    """The table in `fmt_name`: md (table, caption, notes), json (`doc`), csv (`records`) or latex (a float
    labelled `label`, notes as comments). `ValueError` for an unknown format."""
    if fmt_name == "md":
        return md_table(headers, rows, align) + f"\n\n{md_text(caption)}\n" + _md_notes(notes)
    if fmt_name == "json":
        return strict_json(dict(doc))
    if fmt_name == "csv":
        return csv_text(records)
    if fmt_name == "latex":
        return latex_table(headers, rows, caption=caption, label=label, comments=notes)
    raise ValueError(f"unknown format {fmt_name!r}; expected one of {', '.join(FORMATS)}")


def empty_sentence(reason: str) -> str:
    """What stands in place of a table with no usage: 'No cost table: <reason>.' (Markdown and LaTeX print it;
    the CLI writes it to stderr when the output cannot carry it: csv, or `--out`)."""
    return f"No cost table: {reason}."


def render_empty(fmt_name: str, reason: str, prices: Any, notes: Sequence[str]) -> str:
    """A table with no usage: the reason in place of the rows (md/latex `empty_sentence`, json `rows: []` and
    `empty_reason`, csv the header row alone; for json and csv the CLI also writes the sentence to stderr)."""
    if fmt_name == "md":
        return md_text(empty_sentence(reason)) + "\n" + _md_notes(notes)
    if fmt_name == "json":
        return strict_json(
            {"rows": [], "empty_reason": reason, "prices": {"version": prices.version}, "notes": list(notes)}
        )
    if fmt_name == "csv":
        return csv_text([], CSV_FIELDS)
    if fmt_name == "latex":
        return f"% {one_line(empty_sentence(reason))}\n"
    raise ValueError(f"unknown format {fmt_name!r}; expected one of {', '.join(FORMATS)}")
