"""`avb verify RUN_DIR...`: score whole runs in parallel, resumably, and print the per-family summary.

Before anything is scored every RUN_DIR is planned by the engine (it must hold task folders named in ASCII digits;
a dataset mirror, a results folder or a single task folder is refused; its results folder must not be a symlink or
a file) and `--out` must be writable. A results folder whose signed record names another run (an `--out` reused
for a second run) is refused rather than overwritten. A refused run is named on stderr and the other runs are
still scored. `--task-timeout` (or $AVB_TASK_TIMEOUT_S) must be above 0 and at most one week.
`--dry-run` lists what would be scored and what is missing. `-v` adds one line per task saying what lost points,
`-q` prints only the summary tables. Results are signed with the result key (`--key-file`, else
$AVB_RESULT_KEY_FILE, else the package cache's, created on first use); a previous result is reused only when its
signature verifies.
Exit codes: 0 ok; 1 a task ended in `error`, or `--judge-required` and an llm item is unscored; 2 usage error;
3 dataset, run-directory or file-system error (also when one of several runs was refused and the rest scored).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agenticvbench.cli.common import (
    LOG,
    add_command,
    add_dataset_args,
    add_format_args,
    add_judge_args,
    add_selection_args,
    add_verbosity_args,
    judge_from_args,
    load_selected,
    positive_int,
    print_json,
)
from agenticvbench.cli.guards import with_hint
from agenticvbench.cli.progress import progress_factory
from agenticvbench.dataset.loader import bare_parquet_note, default_dataset, load_tasks
from agenticvbench.scoring.task_deadline import task_deadline

EXIT_REFUSED = 3  # a run directory could not be scored (the others were)


def _dry_run(plans: list[Any], tasks: list[Any], as_json: bool) -> int:
    wanted = {t.task_id for t in tasks}
    plan: list[dict[str, Any]] = [
        {
            "run": str(rp.run.path),
            "would_score": [t.task_id for t in tasks if t.task_id in rp.run.task_folders],
            "missing": [t.task_id for t in tasks if t.task_id not in rp.run.task_folders],
            "not_selected": sorted(t for t in rp.run.task_folders if t not in wanted),
        }
        for rp in plans
    ]
    if as_json:
        print_json({"dry_run": True, "runs": plan})
        return 0
    for p in plan:
        print(f"run {p['run']}: would score {len(p['would_score'])} task(s), {len(p['missing'])} missing")
        print(f"  score:   {_ids(p['would_score'])}")
        print(f"  missing: {_ids(p['missing'])}")
        if p["not_selected"]:
            print(f"  task folders not selected: {_ids(p['not_selected'])}")
    return 0


def _ids(ids: list[int]) -> str:
    """[37, 38, 39, 83] -> '37-39,83' (the --tasks grammar)."""
    runs: list[list[int]] = []
    for i in ids:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs) or "-"


def dataset_label(tasks: list[Any], fallback: str) -> str:
    """'NAME (revision REV)' of the dataset `tasks` come from (a local mirror's revision is `local`)."""
    src = next((t.source for t in tasks if t.source is not None), None)
    ident = src.provenance() if src is not None else {"dataset": fallback}
    rev = ident.get("resolved_revision") or ident.get("revision")
    name = str(ident.get("dataset") or fallback)
    return f"{name} (revision {rev})" if rev else name


def unknown_folder_notes(plans: list[Any], args: argparse.Namespace, selected: list[Any]) -> list[str]:
    """One warning per run with task folders whose id is not a task of the dataset (they are not scored)."""
    every = selected
    if (
        args.family is not None or args.tasks is not None or args.limit is not None
    ):  # known: the whole dataset
        every = load_tasks(dataset=args.dataset, revision=args.revision, cache_dir=args.cache_dir)
    known = {int(t.task_id) for t in every}
    label = dataset_label(every, str(args.dataset or default_dataset()))
    notes = []
    for rp in plans:
        unknown = sorted(tid for tid in rp.run.task_folders if tid not in known)
        if unknown:
            names = ", ".join(f"{rp.run.task_roots[t].name}/" for t in unknown[:20])
            notes.append(
                f"{rp.run.path}: ignored {len(unknown)} task folder(s) not in dataset {label}: {names}"
                + (" ..." if len(unknown) > 20 else "")
                + " (wrong --dataset or --revision?)"
            )
    return notes


def _plan(args: argparse.Namespace) -> tuple[list[Any], list[str]]:
    """The engine's run plans (nothing scored yet) and one hinted line per refused run; raises when no run (or
    `--out`) can be used."""
    from agenticvbench.runs.run_plan import RunPlanError, plan_runs

    try:
        plans, refused = plan_runs(args.run_dirs, args.out, create=not args.dry_run)
    except RunPlanError as exc:
        raise with_hint(exc) from None
    if not plans:
        raise with_hint(refused[0])
    return plans, [str(with_hint(exc)) for exc in refused]


def _verify(args: argparse.Namespace) -> int:
    from agenticvbench.scoring.engine import verify_run

    task_deadline(args.task_timeout)  # out of range (option or variable): one line, exit 2, before planning
    plans, refused = _plan(args)
    judge = judge_from_args(args)
    tasks = load_selected(args)
    if bare := bare_parquet_note(tasks):
        LOG.warning(bare)
    for line in unknown_folder_notes(plans, args, tasks):
        LOG.warning(line)
    for line in refused:
        print(f"avb verify: refused {line}", file=sys.stderr)
    if args.dry_run:
        return _dry_run(plans, tasks, args.json) or (EXIT_REFUSED if refused else 0)
    meta = {k: getattr(args, k) for k in ("harness", "model", "rep") if getattr(args, k) is not None}
    summary = verify_run(
        plans,
        dataset=args.dataset,
        revision=args.revision,
        cache_dir=args.cache_dir,
        jobs=args.jobs,
        force=args.force,
        executor=args.executor,
        scheduler=args.scheduler,
        judge=judge,
        tasks=tasks,
        run_meta=meta or None,
        max_media_bytes=args.max_media_mb * 1024 * 1024 if args.max_media_mb else None,
        progress=progress_factory(args),
        key_file=args.key_file,
        task_timeout=args.task_timeout,
    )
    for line in summary.refused:  # results folders that hold another run's results (a reused --out)
        print(f"avb verify: refused {line}", file=sys.stderr)
    summary.refused = refused + summary.refused
    for note in summary.notes:
        LOG.warning(note)
    if args.json:
        print_json(summary.to_dict())
    else:
        if args.verbose:
            print("\n".join(summary.task_lines()))
        print(summary.to_text(quiet=args.quiet, notes=False))  # the notes went to the log above
    code = EXIT_REFUSED if summary.refused else 1 if summary.n_errors else 0
    if args.judge_required and summary.unscored_items:
        top = "; ".join(f"{n}x {why}" for why, n in list(summary.unscored_reasons.items())[:3])
        print(
            f"avb verify: --judge-required: {summary.unscored_items} llm item(s) unscored ({top})",
            file=sys.stderr,
        )
        code = 1
    return code


def register(sub: argparse._SubParsersAction) -> None:
    """Add `verify`."""
    p = add_command(sub, "verify", "score run directories (resumable, parallel)", __doc__)
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR", help="run directories to score")
    add_dataset_args(p)
    add_selection_args(p)
    p.add_argument(
        "--out", help="results folder (default RUN_DIR/avb-results; with several runs OUT/<run name>)"
    )
    p.add_argument(
        "--jobs", type=positive_int, default=None, help="parallel workers (default: number of cores)"
    )
    p.add_argument("--force", action="store_true", help="rescore tasks even if a matching result exists")
    p.add_argument(
        "--dry-run", action="store_true", help="list what would be scored and what is missing; score nothing"
    )
    p.add_argument(
        "--executor",
        choices=("process", "dask"),
        default="process",
        help="where tasks run: local processes (default) or a Dask cluster (--scheduler)",
    )
    p.add_argument("--scheduler", help="Dask scheduler address for --executor dask")
    p.add_argument(
        "--progress", action="store_true", help="show the progress bar even when not on a terminal"
    )
    add_format_args(p)
    p.add_argument(
        "--key-file",
        default=None,
        metavar="PATH",
        help="result key that signs results (created if missing; default $AVB_RESULT_KEY_FILE, else "
        "result-key in the package cache); on a cluster every worker must see the same file",
    )
    p.add_argument(
        "--task-timeout",
        type=float,
        default=None,
        metavar="S",
        help="per-task deadline in seconds; a task past it is an error, retried next run "
        "(at most one week; default $AVB_TASK_TIMEOUT_S, else 7200)",
    )
    p.add_argument(
        "--max-media-mb",
        type=positive_int,
        default=None,
        help="largest submitted media file read, in MiB (default $AVB_MAX_MEDIA_MB, else 4096)",
    )
    ident = p.add_argument_group("run identity (default: the run's run.json, else the folder name as model)")
    ident.add_argument("--harness", default=None, help="harness name written into every result")
    ident.add_argument("--model", default=None, help="model name written into every result")
    ident.add_argument("--rep", default=None, help="repetition label written into every result")
    add_verbosity_args(p)
    add_judge_args(p)
    p.add_argument(
        "--judge-required",
        action="store_true",
        help="exit 1 when any llm item is left unscored (judge off, failed or a replay miss)",
    )
    p.set_defaults(func=_verify)
