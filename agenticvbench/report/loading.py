"""Reading the results of several runs for the report and the leaderboard: `load_comparison` and
`load_available` (one reader, below both, so that neither imports the other), each folder read by `load_run` (which
`avb view` also calls per folder, to read again only the runs that changed: `view.reading`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.results.model import (
    RESULTS_DIRNAME,
    Result,
    invalid_stand_in,
    results_dir_for,
    scan_results,
)
from agenticvbench.results.signatures import reader_key
from agenticvbench.results.signing import ResultKey


def load_comparison(
    paths: list[str | Path] | str | Path, key: ResultKey | None = None, *, find_key: bool = True
) -> list[Result]:
    """Results of every given run directory / results folder; a result without `run.path` gets its folder's.
    Signatures are checked with `key`, by default the key every reader uses (`signatures.reader_key`;
    `find_key=False` checks none).

    A (run, task) seen twice (the same folder given twice) is kept once. Raises `SubmissionError` when a
    path does not exist or holds no result at all, so a typo is not reported as an all-zero run.
    """
    if key is None and find_key:
        key, _ = reader_key(None)
    results, skipped = load_available(paths, key)
    if skipped:
        raise SubmissionError(skipped[0])
    return results


def _declared_run(where: Path) -> dict[str, Any]:
    """The `Result.run` block of a run none of whose results is valid: what its `run.json` declares, if any.

    `where` is the folder given (a run directory, or its results folder). An identity given to `avb verify` with
    `--harness`/`--model` lives only in the result files, so it cannot be recovered here.
    """
    from dataclasses import replace

    from agenticvbench.runs.identity import RunIdentity
    from agenticvbench.runs.submission import read_run_json

    run_dir = where.parent if where.name == RESULTS_DIRNAME else where
    meta, _notes = read_run_json(run_dir / "run.json")  # hostile input: never raises, bad fields stay None
    return replace(RunIdentity.resolve(run_dir, meta), path=str(where)).to_dict()


def load_run(path: str | Path, key: ResultKey | None = None) -> tuple[list[Result], str | None]:
    """One run directory's (or results folder's) results, each counted in the folder it was read from (an invalid
    file as its task's `invalid` stand-in), and None; or no results and a note saying the folder has none yet.
    Raises `SubmissionError` when the path does not exist. Signatures are checked with `key`."""
    folder = results_dir_for(path)
    if not Path(path).exists():
        raise SubmissionError(f"{path}: no such run directory or results folder")
    scan = scan_results(path, key)
    found = scan.results
    if not found and not scan.invalid:
        return [], f"{path}: no results found (looked in {folder}); run `avb verify {path}` first"
    where = str(Path(path).resolve())
    seen: dict[int, Result] = {}
    for r in found:
        # A run is the folder its results were read from: a copied run directory (whose files still
        # name the original path) must count as a run of its own.
        if r.run.get("path") != where:
            r.run = {**r.run, "recorded_path": r.run.get("path"), "path": where}
        seen[int(r.task_id)] = r
    # an invalid file counts as its task scoring 0 (status `invalid`), in the run its valid results name
    run = found[0].run if found else _declared_run(Path(where))
    for bad in scan.invalid:
        stand_in = invalid_stand_in(bad, run)
        if stand_in is not None:
            seen.setdefault(stand_in.task_id, stand_in)
    return list(seen.values()), None


def merge_runs(reads: Iterable[tuple[list[Result], str | None]]) -> tuple[list[Result], list[str]]:
    """The results of several `load_run` answers, a (run, task) seen twice (the same folder given twice) kept
    once, and the notes of the folders without results. Raises `SubmissionError` when no folder has results."""
    seen: dict[tuple[str, int], Result] = {}
    skipped: list[str] = []
    for found, note in reads:
        if note is not None:
            skipped.append(note)
        for r in found:
            seen[(str(r.run.get("path")), int(r.task_id))] = r
    if not seen and skipped:
        raise SubmissionError(
            skipped[0]
            if len(skipped) == 1
            else f"none of the {len(skipped)} paths has results; run `avb verify` first"
        )
    return list(seen.values()), skipped


def load_available(
    paths: list[str | Path] | str | Path, key: ResultKey | None = None
) -> tuple[list[Result], list[str]]:
    """Like `load_comparison`, but a path without results is named in the second list instead of raising
    (a leaderboard over a mix of verified and unverified runs shows what it can). A path that does not exist
    still raises `SubmissionError`; so does a list where no path has results. Signatures are checked with
    `key` (each result's `signature_status`). Each path is read by `load_run`, the answers merged by
    `merge_runs`."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    return merge_runs(load_run(p, key) for p in paths)
