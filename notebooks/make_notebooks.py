"""Generate `leaderboard.ipynb`, `family_report.ipynb` and `hub_leaderboard.ipynb` (outputs stripped) with nbformat.

The notebooks are generated, not hand-edited, so their code stays reviewable here and the shared setup cell is
written once. Run `python notebooks/make_notebooks.py` after changing this file; `--check` exits 1 when the
committed notebooks differ from what this script would write.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent

COMMON_PARAMS = '''\
RUN_DIRS = None          # your run directories (or their avb-results folders); None = the embedded demo runs
DATASET = None           # count every task of this dataset (Hub id, mirror dir, parquet); None = tasks in the runs
FULL_BENCHMARK = False   # True: count task ids 1-100 by family range (a task without a result counts 0)
RESAMPLES = 2000         # bootstrap resamples for the 95% intervals (0 = none)
SEED = 0                 # bootstrap seed (fixed, so the numbers are reproducible)
DEMO_DIR = None          # demo only: where the demo is built (None = agenticvbench.demo.default_demo_dir())
'''

# Builds and scores the demo when RUN_DIRS is None; scoring is resumable, so a second run only re-hashes inputs.
SETUP = '''\
from pathlib import Path

import pandas as pd
from IPython.display import Image, Markdown, display

from agenticvbench import load_tasks
from agenticvbench.report import build_report, load_comparison

USING_DEMO = RUN_DIRS is None
tasks = None
if USING_DEMO:
    from agenticvbench.demo import build_demo, default_demo_dir
    from agenticvbench.scoring.engine import verify_run

    demo = build_demo(DEMO_DIR or default_demo_dir())
    DATASET = str(demo.mirror)
    tasks = [t for t in load_tasks(dataset=DATASET) if DEMO_FAMILIES is None or t.family in DEMO_FAMILIES]
    RUN_DIRS = [str(p) for p in demo.runs.values()]
    summary = verify_run(RUN_DIRS, dataset=DATASET, tasks=tasks)
    print(f"demo: scored {len(summary.results)} run x task cells ({summary.n_resumed} reused)")
elif DATASET is not None:
    tasks = load_tasks(dataset=DATASET)
LABEL = str(DATASET or "") + (f" (only {', '.join(DEMO_FAMILIES)})" if USING_DEMO and DEMO_FAMILIES else "")
results = load_comparison(RUN_DIRS)
report = build_report(results, tasks=tasks, full_benchmark=FULL_BENCHMARK, dataset_label=LABEL,
                      resamples=RESAMPLES, seed=SEED)
print(f"{len(report.results)} results from {len(report.runs)} run(s); {report.universe.label}")
'''


def _nb(cells: list) -> nbformat.NotebookNode:
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, cell in enumerate(nb.cells):  # stable ids keep regenerated notebooks byte-identical
        cell["id"] = f"cell-{i:02d}"
    return nb


def _params(extra: str) -> nbformat.NotebookNode:
    cell = new_code_cell("# Parameters (papermill-style: this cell is tagged 'parameters')\n" + COMMON_PARAMS + extra)
    cell.metadata["tags"] = ["parameters"]
    return cell


def leaderboard_notebook() -> nbformat.NotebookNode:
    """Leaderboard: the table with CIs, the family plot with human references, published numbers, asserts."""
    return _nb([
        new_markdown_cell(
            "# AgenticVBench leaderboard\n\n"
            "Ranks every (harness, model) found in the runs (grouped by each run's `run.json`). A family's number is "
            "the mean headline score over runs x tasks (adjusted for sequencing/assembly, final for repair/recap); a "
            "task without a result, or missing/malformed/error, counts 0. **macro** = mean of the family numbers, "
            "**micro** = mean over all tasks. Intervals: 95% percentile bootstrap over runs and tasks (fixed seed).\n\n"
            "By default it builds and scores the embedded demo (perfect / partial / broken runs). Point `RUN_DIRS` at "
            "your scored runs (`avb verify RUN...` first) to rank real runs."),
        _params("DEMO_FAMILIES = None     # demo only: score only these families (None = all four)\n"
                "PRICES = None            # price table for agent cost (None = the paper's, 'vendors', or a file)\n"),
        new_code_cell(SETUP + '''\
from agenticvbench.report import build_leaderboard

board = build_leaderboard(report.results, tasks=tasks, full_benchmark=FULL_BENCHMARK,
                          dataset_label=LABEL, resamples=RESAMPLES, seed=SEED)'''),
        new_markdown_cell("## The table"),
        new_code_cell("display(Markdown(board.to_markdown()))\nboard.frame()"),
        new_markdown_cell("## Per family, with the published human reference where there is one"),
        new_code_cell('''\
from agenticvbench.report import human_references
from agenticvbench.report.plots import family_bars, task_grid

display(Image(family_bars(board.groups, board.families, human_references())))
display(Image(task_grid(report.results, report.runs, report.universe.tasks)))'''),
        new_markdown_cell(
            "## Compared with published numbers\n\nPublished numbers ship with the package "
            "(`agenticvbench/report/published.json`), each with its source. A row shows ours only when the same "
            "(harness, model, family) is in this comparison."),
        new_code_cell('''\
from agenticvbench.report import combine_run_means, load_published, published_comparison

published = load_published()
display(pd.DataFrame(published_comparison(board.groups, published)))
display(pd.DataFrame([{"family": f, "human reference": v["value"], "source": published["sources"][v["source"]]["where"]}
                      for f, v in published["human_reference"].items()]))
worked = published["headlines"][0]
print(f"worked example {worked['harness']} + {worked['model']} {worked['family']}: run means {worked['run_means']} "
      f"-> {combine_run_means(worked['run_means']):.4f} (published {worked['headline']:.4f})")'''),
        new_markdown_cell(
            "## Agent cost, and is the gap real?\n\nAgent cost comes from the token usage `avb import harbor` keeps "
            "in each run's `run.json`, priced with the paper's list prices (its Table 7, "
            "`agenticvbench/cost/agent_prices.json`), `PRICES = 'vendors'` (vendors' prices for other models) or "
            "a price file; a run without usage is listed, never costed at $0. Then the "
            "two best rows are compared task by task (`compare_runs`: paired differences, interval clustered by "
            "task, sign-flip p-value; see docs/comparisons.md)."),
        new_code_cell('''\
from agenticvbench.cost.pricing import load_prices
from agenticvbench.analysis.compare import compare_runs
from agenticvbench.cost.columns import any_usage, group_costs, to_dicts
from agenticvbench.report.cost_section import cost_plot

costs = group_costs(board.groups, load_prices(PRICES))
if any_usage(costs):
    display(pd.DataFrame(to_dicts(costs)))
    png = cost_plot(costs)
    if png:
        display(Image(png))
else:
    print("no run has agent usage (runs imported with `avb import harbor` carry it); no cost to show")
if len(board.groups) >= 2:
    first, second = board.groups[0], board.groups[1]
    pick = lambda g: [r for r in report.results if (r.run or {}).get("path") in {x.path for x in g.runs}]  # noqa: E731
    comparison = compare_runs(pick(first), pick(second))
    display(Markdown(comparison.render("md")))'''),
        new_markdown_cell("## Checks"),
        new_code_cell('''\
df = board.frame()
assert len(df) == len(board.groups) > 0
for _, row in df.iterrows():
    fams = [row[f] for f in board.families]
    assert all(0.0 <= v <= 1.0 for v in fams)
    assert abs(row["macro"] - sum(fams) / len(fams)) < 1e-12
    if RESAMPLES:
        assert row["macro_lo"] <= row["macro"] <= row["macro_hi"]
assert round(combine_run_means(worked["run_means"]), 4) == worked["headline"] == 0.381
if USING_DEMO:
    by_model = {g.model: g for g in board.groups}
    assert list(df["model"]) == ["perfect", "partial", "broken"]
    assert by_model["perfect"].macro > by_model["partial"].macro > by_model["broken"].macro
    for fam in {"sequencing", "assembly"} & set(board.families):  # exact by construction of the demo runs
        assert by_model["perfect"].families[fam].mean == 1.0
        assert 0.0 < by_model["partial"].families[fam].mean < 1.0
        assert by_model["broken"].families[fam].mean == 0.0
print("all checks passed")'''),
    ])


def family_report_notebook() -> nbformat.NotebookNode:
    """One family in depth: per-task scores, the worst tasks and why they lost points, family plots, asserts."""
    return _nb([
        new_markdown_cell(
            "# AgenticVBench family report\n\nDrills into one family: its headline per (harness, model), every "
            "task's score per run, the worst tasks and why they lost points (status reasons, the family's "
            "sub-scores, failed rubric items, warnings), and the family's own plots.\n\nBy default it uses the "
            "embedded demo; set `RUN_DIRS` to your scored runs."),
        _params('FAMILY = "sequencing"     # recap | sequencing | repair | assembly\n'
                "N_WORST = 5              # how many of the lowest-scoring tasks to explain\n"
                "DEMO_FAMILIES = None     # demo only: families to score (None = just FAMILY)\n"),
        new_code_cell("DEMO_FAMILIES = DEMO_FAMILIES or [FAMILY]\n" + SETUP),
        new_markdown_cell("## Headline of the family"),
        new_code_cell('''\
from agenticvbench.report.markdown import fmt_score_ci

assert FAMILY in report.universe.families, f"no {FAMILY} tasks in these runs"
display(pd.DataFrame([{"harness": g.harness, "model": g.model, "runs": len(g.runs),
                       FAMILY: fmt_score_ci(g.families[FAMILY].mean, g.families[FAMILY].ci_low,
                                            g.families[FAMILY].ci_high),
                       "how": g.families[FAMILY].aggregation, **g.families[FAMILY].status_counts}
                      for g in report.groups]))'''),
        new_markdown_cell("## Every task, every run (headline score; non-scored cells count 0)"),
        new_code_cell('''\
rows = pd.DataFrame([r for r in report.task_rows() if r["family"] == FAMILY])
per_task = rows.pivot_table(index="task_id", columns="run", values="headline", aggfunc="first")
per_task["mean over runs"] = per_task.mean(axis=1)
per_task = per_task.sort_values("mean over runs")
per_task'''),
        new_markdown_cell("## The worst tasks and why they lost points"),
        new_code_cell('''\
from agenticvbench.analysis.aggregate import run_ref
from agenticvbench.analysis.explain import lost_points

worst = list(per_task.index[:N_WORST])
lines = []
for tid in worst:
    lines.append(f"### Task {tid} (mean {per_task.loc[tid, 'mean over runs']:.4f})")
    for run in report.runs:
        r = report.result(run, tid)
        why = lost_points(r) if r else ["no result file for this task in this run"]
        score = f"{r.headline_score:.4f}" if r else "0 (no result)"
        lines.append(f"- **{run.short}**: {r.status if r else 'no result'}, headline {score}")
        lines += [f"    - {w}" for w in why]
display(Markdown("\\n".join(lines)))'''),
        new_markdown_cell("## Plots"),
        new_code_cell('''\
from agenticvbench.report.plots import repair_chunks, sequencing_order, task_grid

display(Image(task_grid(report.results, report.runs, {FAMILY: report.universe.tasks[FAMILY]})))
detail_plot = {"repair": repair_chunks, "sequencing": sequencing_order}.get(FAMILY)
shown = 0
for r in [r for r in report.results if r.family == FAMILY and r.task_id in worst]:
    png = detail_plot(r) if detail_plot else None
    if png:
        display(Image(png))
        shown += 1
print(f"{shown} detail plot(s)")'''),
        new_markdown_cell("## Checks"),
        new_code_cell('''\
for g in report.groups:
    fh = g.families[FAMILY]
    mine = rows[rows["run_path"].isin([r.path for r in g.runs])]
    assert abs(fh.mean - mine["headline"].mean()) < 1e-12
    assert sum(fh.status_counts.values()) == fh.n_runs * fh.n_tasks
assert list(per_task["mean over runs"]) == sorted(per_task["mean over runs"])
assert ((rows["headline"] >= 0) & (rows["headline"] <= 1)).all()
assert (rows.loc[rows["status"] != "scored", "headline"] == 0).all()
if USING_DEMO:
    by_model = {g.model: g.families[FAMILY].mean for g in report.groups}
    assert by_model["perfect"] >= by_model["partial"] >= by_model["broken"]
    if FAMILY in ("sequencing", "assembly"):  # exact by construction of the demo runs
        assert by_model["perfect"] == 1.0 and by_model["broken"] == 0.0
print("all checks passed")'''),
    ])


def hub_leaderboard_notebook() -> nbformat.NotebookNode:
    """A published leaderboard reproduced from a pinned revision of its Hub repo (`avb publish`), with asserts."""
    params = new_code_cell(
        "# Parameters (papermill-style: this cell is tagged 'parameters')\n"
        'REPO = "ORG/NAME"        # the dataset repo `avb publish` wrote\n'
        "REVISION = None          # the commit sha to reproduce (pinned); None = the head of main, recorded below\n"
        'OUT = "pulled"           # the folder to pull into (empty, new, or an earlier pull)\n'
        "# The endpoint is $HF_ENDPOINT (else the Hub), the token the one `hf auth login` saved (or $HF_TOKEN).\n")
    params.metadata["tags"] = ["parameters"]
    return _nb([
        new_markdown_cell(
            "# A published AgenticVBench leaderboard, reproduced\n\n"
            "Pulls one revision of a repo `avb publish` wrote (`avb pull`: every file read as hostile, the tables "
            "checked against the result files), recomputes the board from the pulled result files under the "
            "settings the card records (bootstrap resamples, seed, task universe, clusters), and checks that its "
            "numbers have the card's digest. Pin `REVISION` to a commit sha: a branch moves, a commit does not "
            "(docs/guide/publish.md)."),
        params,
        new_code_cell('''\
from pathlib import Path

import pandas as pd
from IPython.display import Markdown, display

from agenticvbench.hub.board import board_digest, compute_board
from agenticvbench.hub.card import parse_card
from agenticvbench.hub.pull import pull

report = pull(f"{REPO}@{REVISION}" if REVISION else REPO, OUT)
print(f"{report.repo}@{report.commit}: {len(report.runs)} run(s); problems: {report.problems or 'none'}")
card = parse_card((Path(OUT) / "README.md").read_bytes())
print(f"published by agenticvbench {card.package_version}; dataset {card.dataset}")'''),
        new_markdown_cell("## The board, recomputed from the pulled result files"),
        new_code_cell('''\
runs = [str(Path(OUT) / "runs" / name) for name in report.runs]
board = compute_board(runs, card.settings)
display(Markdown(board.markdown_table()))
print(board.caption)
board.frame()'''),
        new_markdown_cell("## The tables published beside the result files"),
        new_code_cell('''\
results = pd.read_parquet(Path(OUT) / "data" / "results.parquet")
results.pivot_table(index="task_id", columns="run", values="headline_score", aggfunc="first")'''),
        new_markdown_cell("## Checks"),
        new_code_cell('''\
assert not report.problems, report.problems
assert REVISION is None or report.commit == REVISION
computed = board_digest(board)
assert computed == card.digest == report.claimed_digest, (computed, card.digest)
assert len(results) == sum(int(r["results"]) for r in card.runs)
print(f"digest reproduced: {computed}")
print("all checks passed")'''),
    ])


NOTEBOOKS = {
    "leaderboard.ipynb": leaderboard_notebook,
    "family_report.ipynb": family_report_notebook,
    "hub_leaderboard.ipynb": hub_leaderboard_notebook,
}


def main(argv: list[str] | None = None) -> int:
    """Write the notebooks (or, with --check, report whether they are up to date)."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if a notebook differs from the generated one")
    args = ap.parse_args(argv)
    stale = []
    for name, build in NOTEBOOKS.items():
        text = nbformat.writes(build()) + "\n"
        path = HERE / name
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python notebooks/make_notebooks.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
