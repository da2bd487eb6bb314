"""`avb publish`: stage scored runs as a Hub dataset repo (`layout`) and send it as one commit.

Staging copies every valid result file of each run byte for byte (so `result_sha256` and the signature survive),
then computes everything else from the staged copies, exactly as a pull will: the board (`board.compute_board`
under settings resolved as `avb leaderboard --dataset` resolves them), its digest, the tables and the card. A run
with an invalid result file is refused (rescore it first): its board would count the file as 0, a pulled copy
could not tell why. The folder's `.avb-folder` record is not published (it names this machine's folders and is
signed with its key). The `costs` table adds, per (run, task), the agent usage `avb cost` reads from each run's
`run.json` (`agent_trials`: its reader and its pricing, under the paper's price table unless `prices` names
another). With `with_outputs`, the outputs a published bundle may show are staged too
(`hub.outputs`), and each run's card row lists the tasks whose outputs were published.

`upload` sends the staged folder with `huggingface_hub` (`create_repo(exist_ok=True)`, then `create_commit`:
every staged file added, every older file under `runs/` and `data/` deleted), so the repo holds exactly one
publication per commit.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.cost.pricing import PriceTable, TrialCost, load_prices, price_trial
from agenticvbench.cost.table import load_trials
from agenticvbench.errors import AVBError, SubmissionError
from agenticvbench.fsutil import atomic_write_text, file_sha256, read_capped
from agenticvbench.hub.board import BoardSettings, board_digest, compute_board, resolve_settings
from agenticvbench.hub.card import Card, render_card
from agenticvbench.hub.layout import CARD_PATH, RUNS_DIR, TABLES_DIR, unique_names
from agenticvbench.hub.outputs import StagedOutputs, stage_outputs
from agenticvbench.hub.tables import build_tables
from agenticvbench.report.leaderboard import Leaderboard
from agenticvbench.report.loading import load_available
from agenticvbench.results.model import (
    INVALID_STATUS,
    RESULT_MAX_BYTES,
    Result,
    results_dir_for,
    scan_results,
)
from agenticvbench.results.signatures import reader_key
from agenticvbench.runs.submission import RESULTS_DIRNAME
from agenticvbench.version import __version__

#: What a public repo of result files discloses, said once when publishing.
DISCLOSURE_NOTE = (
    "result files are published verbatim: they name this machine's run and dataset paths, and their details "
    "hold the tasks' answers (correct orders and clips) and the recap rubric's checks; use --private for a "
    "repo only its members can read"
)


@dataclass(kw_only=True)
class Staged:
    """A staged publication: the folder holding the repo's files, their repo paths, the card and the board."""

    folder: Path
    files: list[str]
    card: Card
    board: Leaderboard
    notes: list[str] = field(default_factory=list)
    outputs: StagedOutputs | None = None  # with --with-outputs


def write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` through `fsutil.atomic_write_text` when it is UTF-8 text (every result file and
    the card: the same bytes come back), else directly (Parquet, into a folder this process created)."""
    try:
        atomic_write_text(path, data.decode("utf-8"))
    except UnicodeDecodeError:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def dataset_identity(results: Sequence[Result]) -> dict[str, Any]:
    """The dataset the results were scored against: `{"kind": "hub", "repo", "revision"}` (the commit sha),
    `{"kind": "local", "parquet_path", "parquet_sha256"}` for a mirror or parquet, else `{"kind": "unknown",
    "reason"}`."""
    from agenticvbench.dataset.loader import PARQUET_PATH

    found = set()
    for r in results:
        d = (r.provenance or {}).get("dataset")
        if isinstance(d, Mapping):
            found.add((str(d.get("kind")), str(d.get("dataset")), str(d.get("resolved_revision"))))
    if len(found) != 1:
        return {"kind": "unknown", "reason": f"the results name {len(found)} datasets"}
    kind, where, revision = found.pop()
    if kind == "hub":
        return {"kind": "hub", "repo": where, "revision": revision}
    if kind in ("mirror", "parquet"):
        parquet = Path(where) / PARQUET_PATH if kind == "mirror" else Path(where)
        sha = file_sha256(parquet) if parquet.is_file() else None
        name = PARQUET_PATH if kind == "mirror" else parquet.name
        return {"kind": "local", "parquet_path": name, "parquet_sha256": sha}
    return {"kind": "unknown", "reason": f"dataset kind {kind!r}"}


def dataset_tasks(
    identity: Mapping[str, Any], results: Sequence[Result], *, dataset: str | None, revision: str | None
) -> tuple[Any, str]:
    """(tasks, note): the tasks of `dataset` when given, else of the dataset the results name (a Hub commit,
    or a local mirror/parquet that still exists); (None, why) when they cannot be read."""
    from agenticvbench.dataset.loader import load_tasks

    where: str | None = dataset
    rev = revision
    if where is None and identity.get("kind") == "hub":
        where, rev = str(identity["repo"]), str(identity["revision"])
    elif where is None:
        d: Any = next(
            (
                r.provenance.get("dataset")
                for r in results
                if isinstance(r.provenance.get("dataset"), Mapping)
            ),
            {},
        )
        local = str(d.get("dataset", "")) if isinstance(d, Mapping) else ""
        where = local if local and Path(local).exists() else None
    if where is None:
        return None, "the dataset is not known here: the universe is the tasks with a result, not clustered"
    try:
        return load_tasks(dataset=where, revision=rev), ""
    except AVBError as exc:
        return (
            None,
            f"cannot read the dataset ({exc}): the universe is the tasks with a result, not clustered",
        )


def _collect(paths: Sequence[str | Path]) -> list[tuple[str, dict[int, bytes]]]:
    """(run name, {task id: result file bytes}) per run folder; invalid or absent results refuse the run."""
    folders = [results_dir_for(p) for p in paths]
    for p, folder in zip(paths, folders, strict=True):
        if not folder.is_dir():
            raise SubmissionError(f"{p}: no results folder (run `avb verify {p}` first)")
    names = unique_names(
        (f.resolve().parent.name if f.name == RESULTS_DIRNAME else f.resolve().name) for f in folders
    )
    out = []
    for p, folder, name in zip(paths, folders, names, strict=True):
        scan = scan_results(folder)
        if scan.invalid:
            bad = scan.invalid[0]
            raise SubmissionError(
                f"{p}: {len(scan.invalid)} invalid result file(s), e.g. {bad.path.name}: {bad.reason}; rescore with "
                "`avb verify` before publishing"
            )
        if not scan.results:
            raise SubmissionError(f"{p}: no results (run `avb verify {p}` first)")
        found: dict[int, bytes] = {}
        for r in scan.results:
            path = folder / f"{int(r.task_id)}.json"
            if int(r.task_id) in found or not path.is_file():
                raise SubmissionError(
                    f"{p}: task {r.task_id} has a result under another name than {path.name} (e.g. a leading "
                    "zero); keep one file per task, named by its id"
                )
            found[int(r.task_id)] = read_capped(path, RESULT_MAX_BYTES)
        out.append((name, found))
    return out


def stage(
    paths: Sequence[str | Path],
    folder: Path,
    *,
    repo: str = "",
    revision: str = "main",
    dataset: str | None = None,
    dataset_revision: str | None = None,
    resamples: int,
    seed: int,
    cluster: bool = True,
    with_outputs: bool = False,
    answers: bool = False,
    prices: PriceTable | None = None,
) -> Staged:
    """Write the repo's files for the runs at `paths` into `folder` (empty or new) and return what was staged;
    `with_outputs` adds the outputs a published bundle may show (`hub.outputs`; `answers`: also those of solved
    tasks); `prices` prices the agents' usage in the `costs` table (default: the paper's table, as `avb cost`)."""
    folder = Path(folder)
    if folder.exists() and any(folder.iterdir()):
        raise SubmissionError(f"{folder}: not empty (publish stages into an empty or new folder)")
    runs = _collect(paths)
    files: list[str] = []
    for name, found in runs:
        for tid, raw in sorted(found.items()):
            rel = f"{RUNS_DIR}/{name}/{RESULTS_DIRNAME}/{tid}.json"
            write_bytes(folder / rel, raw)
            files.append(rel)
    run_dirs = [folder / RUNS_DIR / name for name, _ in runs]
    key, _ = reader_key(None)
    results, _skipped = load_available([str(d) for d in run_dirs], key)
    if len(results) != len(files) or any(r.status == INVALID_STATUS for r in results):
        raise SubmissionError("a result file changed while it was staged; publish again")  # read twice
    identity = dataset_identity(results)
    outputs = None
    if with_outputs:
        # the dataset the results name when it is on the Hub (the viewer's default is a local one only)
        ds, ds_rev = dataset, dataset_revision
        if identity.get("kind") == "hub" and dataset is None:
            ds, ds_rev = str(identity["repo"]), str(identity["revision"])
        shas = {
            name: {t: str(json.loads(raw).get("result_sha256")) for t, raw in found.items()}
            for name, found in runs
        }
        outputs = stage_outputs(
            paths,
            [n for n, _ in runs],
            shas,
            folder,
            answers=answers,
            dataset=ds,
            revision=ds_rev,
        )
        files += outputs.files
    tasks, note = dataset_tasks(identity, results, dataset=dataset, revision=dataset_revision)
    settings = resolve_settings(results, tasks=tasks, resamples=resamples, seed=seed, cluster=cluster)
    board = compute_board([str(d) for d in run_dirs], settings, key)
    items = _items(run_dirs, key)
    prices = load_prices() if prices is None else prices
    usage_notes: list[str] = []
    agent = agent_trials(paths, [n for n, _ in runs], prices, usage_notes)
    tables = build_tables(items, agent, prices)
    for table, raw in tables.items():
        rel = f"{TABLES_DIR}/{table}.parquet"
        write_bytes(folder / rel, raw)
        files.append(rel)
    card = Card(
        digest=board_digest(board),
        settings=settings,
        dataset=identity,
        runs=_run_rows(runs, items, outputs.published if outputs else None),
        tables=list(tables),
        package_version=__version__,
        repo=repo,
        revision=revision,
        board_markdown=board.markdown_table(),
        caption=board.caption,
    )
    write_bytes(folder / CARD_PATH, render_card(card).encode("utf-8"))
    files.append(CARD_PATH)
    notes = [n for n in (note, DISCLOSURE_NOTE, _outputs_note(outputs), *usage_notes[:20]) if n]
    return Staged(folder=folder, files=sorted(files), card=card, board=board, notes=notes, outputs=outputs)


def agent_trials(
    paths: Sequence[str | Path], names: Sequence[str], prices: PriceTable, notes: list[str]
) -> list[tuple[str, TrialCost]]:
    """(run name, trial) for every trial with usage in the `run.json` of each run folder at `paths` (a run
    directory, or its results folder), read by `avb cost`'s reader (`cost.table.load_trials`) and priced by its
    `price_trial` under `prices`; a run without a `run.json` has none. Reader notes go to `notes`."""
    out = []
    for p, name in zip(paths, names, strict=True):
        run_dir = Path(p) if (Path(p) / RESULTS_DIRNAME).is_dir() else Path(p).parent
        if not (run_dir / "run.json").is_file():
            continue
        for t in load_trials([run_dir], notes):
            if t.has_usage:
                price_trial(t, prices)
                out.append((name, t))
    return out


def _items(run_dirs: Sequence[Path], key: Any) -> list[tuple[str, Result]]:
    """(run name, result) for every staged result, in run then task order."""
    out = []
    for d in run_dirs:
        out += [(d.name, r) for r in sorted(scan_results(d, key).results, key=lambda r: int(r.task_id))]
    return out


def _outputs_note(outputs: StagedOutputs | None) -> str:
    if outputs is None:
        return ""
    n = sum(len(t) for t in outputs.published.values())
    return (
        f"outputs: {n} task(s) published ({len(outputs.files)} file(s)), {len(outputs.withheld)} withheld"
        + (f" (e.g. {'; '.join(outputs.withheld[:3])})" if outputs.withheld else "")
    )


def _run_rows(
    runs: Sequence[tuple[str, Mapping[int, bytes]]],
    items: Sequence[tuple[str, Result]],
    outputs: Mapping[str, list[int]] | None = None,
) -> list[dict[str, Any]]:
    first: dict[str, Result] = {}
    for name, r in items:
        first.setdefault(name, r)
    rows = []
    for name, results in runs:
        ident = first[name].identity
        rows.append(
            {
                "run": name,
                "harness": ident.harness,
                "model": ident.model,
                "rep": ident.rep,
                "results": len(results),
                **({"outputs": list(outputs.get(name, []))} if outputs is not None else {}),
            }
        )
    return rows


def upload(
    staged: Staged, repo: str, *, private: bool = False, revision: str = "main", create_pr: bool = False
) -> dict[str, Any]:
    """Send the staged folder to `repo` (a Hub dataset repo, created if absent) as one commit: {commit, url,
    pr_url}. The endpoint is `$HF_ENDPOINT` (else the Hub), the token the client's usual one."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None)
    try:
        api.create_repo(repo, repo_type="dataset", private=private, exist_ok=True)
        existing = api.list_repo_files(repo, repo_type="dataset", revision=revision)
        keep = set(staged.files)
        ops: list[Any] = [CommitOperationAdd(p, str(staged.folder / p)) for p in staged.files]
        ops += [
            CommitOperationDelete(p)
            for p in existing
            if p not in keep and p.split("/")[0] in (RUNS_DIR, TABLES_DIR)
        ]
        runs = ", ".join(r["run"] for r in staged.card.runs)
        info = api.create_commit(
            repo,
            ops,
            commit_message=f"Publish AgenticVBench results: {runs}"[:200],
            commit_description=f"Board digest {staged.card.digest}; agenticvbench {__version__}.",
            repo_type="dataset",
            revision=revision,
            create_pr=create_pr,
        )
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise AVBError(f"publishing to {repo}: {str(exc).splitlines()[0] if str(exc) else exc!r}") from None
    return {"commit": info.oid, "url": info.commit_url, "pr_url": info.pr_url}


def settings_text(settings: BoardSettings) -> str:
    """One line for the terminal: the bootstrap and the clustering the digest was computed with."""
    clusters = (
        "not clustered" if settings.clusters is None else f"{len(set(settings.clusters.values()))} clusters"
    )
    n = sum(len(ids) for ids in settings.universe.values())
    return f"{n} tasks, {settings.resamples} resamples, seed {settings.seed}, {clusters}"
