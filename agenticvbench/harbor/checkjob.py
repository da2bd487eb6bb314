"""`avb harbor check-job JOB...`: is a Harbor job comparable on a leaderboard, and if not, why.

Read from the job's `lock.json` (what Harbor resolved for every trial) and its trials' `result.json`, each
through its strict reader (`files.py`):
- no timeout multiplier (`timeout_multiplier` 1, the per-phase multipliers unset or 1; a multiplier that is not
  a number, such as the string `"4.0"`, is not comparable either) and no per-agent or verifier timeout
  override: a longer budget buys score, so such a run answers another question;
- no resource override (`override_cpus`, `override_memory_mb`, `override_storage_mb`, `override_gpus`);
- the same exported dataset: every trial's task digest (Harbor's content hash, as in our `dataset.toml`) equals
  the export's (`--tasks-dir`), or, without it, all jobs checked together ran the same task digests. The digest
  covers `tests/`, so it also pins the verifier package (the baked wheel or the `--package-spec` line);
- enough trials: every task of the job has at least `--trials N` attempts per (agent, model) that did not end
  as an infrastructure failure or cancelled.

Every value compared is shown in a problem line exactly as the job's file writes it (`Written`: the JSON
literal of a number, the repr of a string: `1.0000001`, `"4.0"`, `1e309`), never rounded or normalised, and a
multiplier is 1 only when its literal is exactly 1 (`1`, `1.0`, `1e0`): a multiplier that differs from 1 only
past the 6th decimal, or past a float's precision, is still another budget.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from agenticvbench.errors import SubmissionError
from agenticvbench.fsutil import parse_json_bounded
from agenticvbench.harbor.files import MULTIPLIERS, clean_document, lock_trial, shown
from agenticvbench.harbor.manifest import dataset_digest
from agenticvbench.harbor.trials import read_trials, task_id_of
from agenticvbench.runs.jobdir import JobDir

RESOURCE_OVERRIDES = ("override_cpus", "override_memory_mb", "override_storage_mb", "override_gpus")
TIMEOUT_OVERRIDES = (
    ("agent", "override_timeout_sec"),
    ("agent", "override_setup_timeout_sec"),
    ("agent", "max_timeout_sec"),
    ("verifier", "override_timeout_sec"),
    ("verifier", "max_timeout_sec"),
)


@dataclass
class JobCheck:
    """One job's verdict: comparable when `problems` is empty."""

    job: str
    dataset_digest: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def comparable(self) -> bool:
        """True when nothing stops this job from sitting in a leaderboard row."""
        return not self.problems

    def to_text(self) -> str:
        """`JOB: comparable` or `JOB: NOT comparable` with one indented line per reason."""
        if self.comparable:
            return f"{self.job}: comparable (dataset {self.dataset_digest[:19]})"
        return "\n".join([f"{self.job}: NOT comparable"] + [f"  - {p}" for p in self.problems])


def short_name(name: str) -> str:
    """A task's name without its org (`agenticvbench/sequencing-037` and a local task's folder name
    `sequencing-037` are the same task: Harbor's lock names local tasks by folder)."""
    return name.rsplit("/", 1)[-1][:200]


@dataclass(frozen=True)
class Written:
    """A JSON number as its file writes it (`text`, the literal): compared and shown without conversion."""

    text: str

    def __repr__(self) -> str:  # `files.shown` shows a number as its file writes it
        return self.text

    def is_one(self) -> bool:
        """True when the literal is exactly 1 (`1`, `1.0`, `1e0`), with no rounding to a float."""
        try:
            return Decimal(self.text) == 1
        except InvalidOperation:  # NaN, Infinity
            return False


def read_lock(job: JobDir, notes: list[str]) -> Any:
    """`lock.json` read once (bounded, no symlink) and parsed with every number kept as written (`Written`);
    strings cut and containers bounded as every job file (`files.clean_document`, notes in `notes`);
    `SubmissionError` naming the file when it cannot be read or parsed."""
    raw = job.read_bytes("lock.json")
    try:
        parse_json_bounded(raw, str(job.path / "lock.json"))  # UTF-8, valid, not too deep
    except ValueError as exc:
        raise SubmissionError(str(exc)) from None
    data = json.loads(raw.decode("utf-8"), parse_float=Written, parse_int=Written, parse_constant=Written)
    return clean_document(data, "lock.json", notes)


def _budget_problems(t: dict[str, Any]) -> list[str]:
    """What could change one trial's budget: multipliers other than 1, set overrides; values as written."""
    problems: list[str] = []
    for key in MULTIPLIERS:
        raw = t.get(key)
        if raw is None:
            continue
        if not isinstance(raw, Written):
            problems.append(
                f"{key} = {shown(raw)} is not a number (Harbor writes a number; the budget is unknown)"
            )
        elif not raw.is_one():
            problems.append(f"{key} = {shown(raw)}, not 1 (the exported timeouts are part of the task)")
    raw_env = t.get("environment")
    env: dict[str, Any] = raw_env if isinstance(raw_env, dict) else {}
    for key in RESOURCE_OVERRIDES:
        if env.get(key) is not None:
            problems.append(f"environment.{key} = {shown(env[key])} (resources are part of the task)")
    for section, key in TIMEOUT_OVERRIDES:
        raw_part = t.get(section)
        part: dict[str, Any] = raw_part if isinstance(raw_part, dict) else {}
        if part.get(key) is not None:
            problems.append(f"{section}.{key} = {shown(part[key])}")
    return problems


def _lock_problems(lock: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """Problems found in `lock.json` (parsed by `read_lock`), and Harbor task name -> digest."""
    problems: set[str] = set()
    digests: dict[str, str] = {}
    trials = lock.get("trials")
    if not isinstance(trials, list) or not trials:
        return ["lock.json lists no trials (a job from Harbor before 0.26, or not a job)"], {}
    for t in trials:
        if not isinstance(t, dict):
            continue
        problems.update(_budget_problems(t))
        checked = lock_trial(t)  # the task's name and digest
        raw_task = t.get("task")
        digest = raw_task.get("digest") if isinstance(raw_task, dict) else None
        if checked.task_name and isinstance(digest, str) and digest:
            digests[short_name(checked.task_name)] = digest
    return sorted(problems), digests


def _export_digests(tasks_dir: Path) -> dict[str, str]:
    """Harbor task name -> digest from the export's listing (`agenticvbench-tasks.json`, same as dataset.toml)."""
    from agenticvbench.harbor.export import LISTING

    with JobDir(tasks_dir) as d:
        listing = d.read_json(LISTING)
    tasks = listing.get("tasks") if isinstance(listing, dict) else None
    out = {
        short_name(t["name"]): t["digest"]
        for t in (tasks if isinstance(tasks, list) else [])
        if isinstance(t, dict) and isinstance(t.get("name"), str) and isinstance(t.get("digest"), str)
    }
    if not out:
        raise SubmissionError(
            f"{tasks_dir / LISTING}: no task digests (exported before they were recorded? export again)"
        )
    return out


def check_jobs(
    job_dirs: list[str | Path], *, tasks_dir: str | Path | None = None, trials: int = 1
) -> list[JobCheck]:
    """Check every job (see the module docstring); jobs are also compared with each other."""
    expected = _export_digests(Path(tasks_dir)) if tasks_dir is not None else None
    checks: list[JobCheck] = []
    for path in job_dirs:
        with JobDir(path) as job:
            check = JobCheck(str(path))
            try:
                lock = read_lock(job, check.problems)  # its notes first
            except SubmissionError as exc:
                check.problems.append(f"no readable lock.json ({exc})")
                checks.append(check)
                continue
            problems, digests = _lock_problems(lock if isinstance(lock, dict) else {})
            check.problems += problems
            check.dataset_digest = dataset_digest(sorted(set(digests.values()))) if digests else ""
            if expected is not None:
                changed = sorted(n for n, d in digests.items() if n in expected and expected[n] != d)
                foreign = sorted(n for n in digests if n not in expected)
                missing = sorted(n for n in expected if n not in digests)
                if changed:
                    check.problems.append(
                        f"{len(changed)} task(s) differ from the export (digest): "
                        + ", ".join(
                            f"{n} ({shown(digests[n], 90)}, export {expected[n]!r})" for n in changed[:5]
                        )
                        + (" ..." if len(changed) > 5 else "")
                    )
                if foreign:
                    check.problems.append(
                        f"{len(foreign)} task(s) not in the export: " + ", ".join(foreign[:5])
                    )
                if missing:
                    check.problems.append(
                        f"{len(missing)} exported task(s) never ran: "
                        + ", ".join(missing[:5])
                        + (" ..." if len(missing) > 5 else "")
                    )
            usable = Counter(
                (t.agent, t.model, t.task_id)
                for t in read_trials(job, [])
                if t.outcome.kind not in ("infra_failure", "cancelled")
            )
            ids = {i for n in digests if (i := task_id_of({"task_name": n}, "")) is not None}
            for agent, model in sorted({(a, m) for a, m, _ in usable}):
                short = sorted(i for i in ids if usable[(agent, model, i)] < trials)
                if short:
                    check.problems.append(
                        f"{agent}/{model}: {len(short)} task(s) with fewer than {trials} usable "
                        f"trial(s) (infrastructure failures and cancellations do not count): "
                        + ", ".join(map(str, short[:10]))
                        + (" ..." if len(short) > 10 else "")
                    )
            checks.append(check)
    seen = {c.dataset_digest for c in checks if c.dataset_digest}
    if expected is None and len(seen) > 1:
        for c in checks:
            c.problems.append(
                f"ran dataset {c.dataset_digest}, but the jobs checked together ran "
                f"{len(seen)} different task sets"
            )
    return checks
