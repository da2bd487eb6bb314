"""Reading the runs `avb view` shows, and reading again only the runs that changed.

`RunReader` keeps what it read of each folder given (its results through `report.loading.load_run`, the run
facts of its `run.json` through `run_facts`) with the folder's stamp (`folder_stamp`: names, sizes and mtimes of its
result files and `run.json`, the signal the server checks before every page, `results_stamp`). When the server
finds the stamp changed and builds the model again (`server.ViewApp.refresh`), the reader reads only the folders
whose stamp differs; the others' results are reused as they are (a `Result` is not changed once read). The tasks
are read once per dataset named (`RunReader.tasks`): results scored after start-up change scores, not the dataset.
A task page also draws the agent's logs, which change without any result changing: `logs_stamp` says whether
they did, for the one page asked for.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.report.loading import load_run, merge_runs
from agenticvbench.results.model import Result
from agenticvbench.results.signing import ResultKey
from agenticvbench.runs.submission import RESULTS_DIRNAME
from agenticvbench.trajectory.model import parse_time

#: Per task of a run: the agent's wall time (s), its cost (US$) and the Harbor outcome (kind, reason).
Facts = dict[int, tuple[float | None, float | None, tuple[str, str]]]


@dataclass(frozen=True, kw_only=True)
class RunRead:
    """What was read of one folder given: its stamp before reading, the key its signatures were checked with,
    its results (or the note saying it has none) and the facts of its `run.json`, by the folder's real path."""

    stamp: tuple[Any, ...]
    key: ResultKey | None
    results: list[Result]
    note: str | None
    where: str
    facts: Facts


@dataclass(frozen=True, kw_only=True)
class RunsRead:
    """Every folder's read, merged: the stamp of them all (`results_stamp`'s value), the results (a run given
    twice counted once, `report.loading.merge_runs`), the notes of folders without results, and the facts per
    run path."""

    stamp: tuple[Any, ...]
    results: list[Result]
    skipped: list[str]
    facts: dict[str, Facts]


class RunReader:
    """Reads the folders given to `avb view`, keeping each folder's read until its stamp changes (and the tasks,
    once per dataset named). One reader serves a whole `avb view` session; reloads are serialised by the server,
    so it takes no lock."""

    def __init__(self) -> None:
        self._runs: dict[str, RunRead] = {}
        self._tasks: dict[tuple[str, str, str], tuple[dict[int, Any], str]] = {}

    def read(self, run_dirs: Sequence[str | Path], key: ResultKey | None) -> RunsRead:
        """The results of `run_dirs`, reading only the folders that changed since they were last read (or were
        read with another key). Raises `SubmissionError` as `load_available` does."""
        reads = [self._read_one(d, key) for d in run_dirs]
        results, skipped = merge_runs((r.results, r.note) for r in reads)
        return RunsRead(
            stamp=tuple(r.stamp for r in reads),
            results=results,
            skipped=skipped,
            facts={r.where: r.facts for r in reads},
        )

    def _read_one(self, folder: str | Path, key: ResultKey | None) -> RunRead:
        stamp = folder_stamp(folder)  # before reading: a result written meanwhile is seen by the next check
        kept = self._runs.get(str(folder))
        if kept is not None and kept.stamp == stamp and kept.key == key:
            return kept
        results, note = load_run(folder, key)
        where = str(Path(folder).resolve())
        read = RunRead(stamp=stamp, key=key, results=results, note=note, where=where, facts=run_facts(where))
        self._runs[str(folder)] = read
        return read

    def tasks(
        self, dataset: str | Path | None, revision: str | None, cache_dir: str | Path | None
    ) -> tuple[dict[int, Any], str]:
        """The dataset's tasks by id and "" (or {} and a one-line note when they cannot be loaded: offline
        without a mirror), read once per (dataset, revision, cache folder)."""
        at = (str(dataset), str(revision), str(cache_dir))
        if at not in self._tasks:
            self._tasks[at] = _tasks(dataset, revision, cache_dir)
        return self._tasks[at]


def folder_stamp(folder: str | Path) -> tuple[Any, ...]:
    """What says whether one folder's results changed: the name, size and mtime of each result file
    (`avb-results/*.json`, or the folder's own when a results folder is given) and of `run.json`. A few hundred
    `stat` calls per 100 tasks; an unreadable folder counts as empty."""
    d = Path(folder)
    results = d / RESULTS_DIRNAME if (d / RESULTS_DIRNAME).is_dir() else d
    entries: list[tuple[str, int, int]] = []
    for where, pattern in ((results, ".json"), (d, "run.json")):
        try:
            with os.scandir(where) as it:
                for e in it:
                    if e.name.endswith(pattern) and (pattern == ".json" or e.name == pattern):
                        try:
                            st = e.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        entries.append((f"{where.name}/{e.name}", st.st_size, st.st_mtime_ns))
        except OSError:
            continue
    return (str(d), tuple(sorted(set(entries))))


def results_stamp(run_dirs: Sequence[str | Path]) -> tuple[Any, ...]:
    """What says whether the result files of `run_dirs` changed: `folder_stamp` of each folder, in order."""
    return tuple(folder_stamp(d) for d in run_dirs)


def logs_stamp(task_root: Path, recorded: Sequence[str]) -> tuple[Any, ...]:
    """What says whether the logs of one task folder changed since its page was drawn: each log the audit looks
    for (`trajectory.locate.candidates`) and each the result records (`recorded`, paths relative to the run), with
    its (size, mtime_ns, inode), a symlink's own, or None when it is missing. A few `stat` calls, taken for the
    page asked for only; an unreadable run folder counts as having no log."""
    from agenticvbench.runs.jobdir import JobDir
    from agenticvbench.trajectory.locate import candidates

    out: list[tuple[str, tuple[int, int, int] | None]] = []
    try:
        with JobDir(task_root.parent) as job:
            found = ["/".join(p) for p in candidates(job, task_root.name)]
            for where in dict.fromkeys([*found, *recorded]):
                try:
                    st = job.stat(*where.split("/"))
                except OSError:
                    out.append((where, None))
                    continue
                out.append((where, (st.st_size, st.st_mtime_ns, st.st_ino)))
    except (OSError, SubmissionError):
        return ()
    return tuple(out)


def run_facts(run_path: str) -> Facts:
    """Per task of a run folder: the agent's wall time and cost (run.json `usage`, priced as `avb cost` prices
    it) and the Harbor trial outcome when it was not `scored` (run.json `harbor.outcomes`); {} for a run without
    a readable run.json. run.json is the submitter's file: every field is read defensively."""
    from agenticvbench.cost.pricing import load_prices, price_trial
    from agenticvbench.cost.table import load_trials
    from agenticvbench.fsutil import parse_json_bounded, read_capped
    from agenticvbench.runs.trial_outcomes import MAX_RUN_JSON_BYTES, OUTCOMES

    p = Path(run_path) / "run.json"
    try:
        if p.is_symlink() or not p.is_file():
            return {}
        meta = parse_json_bounded(read_capped(p, MAX_RUN_JSON_BYTES), str(p))
        trials = load_trials([run_path], [])
    except (OSError, ValueError, SubmissionError):
        return {}
    out: Facts = {}
    prices = load_prices() if any(t.has_usage for t in trials) else None
    for t in trials:
        usage = t.usage or {}
        a, b = parse_time(usage.get("agent_started")), parse_time(usage.get("agent_finished"))
        if prices is not None:
            price_trial(t, prices)
        out[t.task_id] = (b - a if a is not None and b is not None and b >= a else None, t.cost_usd, ("", ""))
    harbor = meta.get("harbor") if isinstance(meta, dict) else None
    outcomes = harbor.get("outcomes") if isinstance(harbor, dict) else None
    for k, v in outcomes.items() if isinstance(outcomes, dict) else ():
        kind = v.get("outcome") if isinstance(v, dict) else None
        if isinstance(k, str) and k.isascii() and k.isdigit() and kind in OUTCOMES and kind != "scored":
            reason = v.get("reason")
            one = " ".join(reason.split())[:300] if isinstance(reason, str) else ""
            time_s, cost, _ = out.get(int(k), (None, None, ("", "")))
            out[int(k)] = (time_s, cost, (str(kind), one))
    return out


def _tasks(
    dataset: str | Path | None, revision: str | None, cache_dir: str | Path | None
) -> tuple[dict[int, Any], str]:
    from agenticvbench.dataset.loader import load_tasks

    try:
        tasks = load_tasks(dataset=dataset, revision=revision, cache_dir=cache_dir)
    except Exception as exc:  # offline without a mirror: scores still show, prompts and inputs do not
        return {}, f"tasks not loaded ({type(exc).__name__}: {str(exc)[:200]}); prompts and inputs not shown"
    return {int(t.task_id): t for t in tasks}, ""
