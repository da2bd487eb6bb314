"""Inspect AI's eval logs (`inspect eval`, inspect-harbor's runs of the exported tasks), read with inspect_ai's
own log reader (`inspect_ai.log`, the optional extra `agenticvbench[inspect]`): a `.eval` archive one sample at
a time (`read_eval_log_sample`), a `.json` log whole (`read_eval_log`, at most `source.MAX_DOCUMENT_BYTES`).

A log holds many samples; the ones read are the task's (`task_of` its sample id): inspect-harbor names a sample
after the exported task (`agenticvbench/sequencing-037`, `...@<hash>` when two share a name), an own Inspect
task may use the task id itself (`37`). A log in the task's own folder with one unnamed sample is that task's.
All epochs of the task are read, at most `MAX_SAMPLES`, one after the other (a note says where each starts). A
run-level log (`RUN/logs/`) without a sample of the task is not the task's log (`Trajectory.of_task`).

Each sample becomes steps as `inspect_steps` says. A `.eval` is checked first (`inspect_zip`), and each sample's
JSON is parsed with its nesting bounded (`MAX_DEPTH`) and its sandbox configurations dropped (`inspect_steps.cleared`) before
inspect_ai reads it from a private archive. A run-level log is read by every task folder: a `.eval`'s directory
is parsed once per process (`_run_directory`), a JSON log read whole once (`_read_json`). A log that cannot be read at all (inspect_ai missing, a zip bomb, a malformed log) is
left `unknown` with a one-line note, so the task counts as unreadable, not clean; a sample that cannot be read
is a note. What all of a task's Inspect logs may cost together is bounded (`inspect_budget`): past it, the
rest of its samples are a note and the log is among the task's unreadable ones.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from agenticvbench.cost.usage_stores import MAX_SESSION_BYTES
from agenticvbench.dataset.tasks import FAMILIES, FAMILY_ID_RANGES
from agenticvbench.fsutil import json_values, parse_json_bounded
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.submission import LOGS_DIRNAME
from agenticvbench.sanitize import one_line
from agenticvbench.trajectory.formats import inspect_budget, inspect_zip
from agenticvbench.trajectory.formats.common import get
from agenticvbench.trajectory.formats.inspect_budget import BudgetSpent, TaskBudget
from agenticvbench.trajectory.formats.inspect_steps import SampleSteps, cleared, sample_steps, without_configs
from agenticvbench.trajectory.model import MAX_STEPS, Trajectory
from agenticvbench.trajectory.source import MAX_DOCUMENT_BYTES

_PRIVATE_PREFIX = "avb-audit-inspect-"  # each `.eval` sample is rewritten alone into a folder of this name
_PRIVATE_COPY = re.compile(r"\S*" + _PRIVATE_PREFIX + r"[^/\s]*/\S*")  # its path in inspect_ai's messages

NAME = "inspect"
DESCRIPTION = "Inspect AI eval log (.eval or .json)"
RUN_FOLDER = LOGS_DIRNAME  # RUN/logs/: a run's Inspect logs (Inspect's default --log-dir is ./logs)
MAX_EVAL_BYTES = MAX_SESSION_BYTES  # a .eval archive, as a JSONL session file
MAX_SAMPLES = 32  # samples (epochs) of one task read from one log
MAX_DEPTH = 256  # JSON nesting of a sample (Inspect's own is some 20 levels; tool arguments add theirs)
#: A sample's JSON, unpacked: 1.6 times an Inspect sample of 5,000 tool calls (40 MiB, 770,000 values).
MAX_SAMPLE_BYTES = 64 * 1024 * 1024
#: JSON values of a sample (or a whole JSON log), counted before parsing (`fsutil.json_values`): parsed twice
#: (here, then by inspect_ai), one costs up to some 290 bytes (docs/performance/memory.md).
MAX_VALUES = 1_500_000
_INSTALL = "inspect_ai is not installed (pip install 'agenticvbench[inspect]')"
_JSON_LOG = re.compile(rb'\A\s*\{\s*"version"\s*:\s*[0-9]+\s*,\s*"status"\s*:')
_MEMBER = re.compile(r"samples/(.+)_epoch_([0-9]{1,6})\.json")
_TASK_NAME = re.compile(rf"(?:.*/)?({'|'.join(FAMILIES)})-0*([0-9]{{1,3}})(?:@[0-9a-f]{{1,64}})?")
_TASK_ID = re.compile(r"0*([0-9]{1,3})")
_EXCLUDED = {"store"}  # not read: the sample's key-value store
#: Attachments resolved (the events keep text over 100 characters there), the model calls' payloads not.
_RESOLVE = "core"
_Key = tuple[int, int, int, int]  # a file's identity: device, inode, size, mtime
#: The last JSON log read whole: its identity, its samples' steps and its JSON values (`_read_json`).
_json_cache: tuple[_Key, dict[tuple[str, int], SampleSteps | Exception], int] | None = None
#: The tasks the samples of each JSON log read in this process name, by identity (at most `_MAX_DIRECTORIES`).
_json_tasks: dict[_Key, frozenset[int | None]] = {}
#: Run-level archives' directories by file identity (`_run_directory`), and its bounds.
_directories: dict[tuple[int, int, int, int], _Directory | inspect_zip.UnsafeArchive] = {}
_MAX_DIRECTORIES = 64
_MAX_KEPT_MEMBERS = 50_000


def sniff(head: bytes, name: str) -> bool:
    """A `.eval` file (by name: the reader says when it is not a zip), or a JSON log opening with Inspect's
    `{"version": N, "status": ...`."""
    return name.endswith(".eval") or bool(_JSON_LOG.match(head))


def task_of(sample_id: Any) -> int | None:
    """The task id a sample id names: an exported task's name (`agenticvbench/recap-001`, `sequencing-037@1a2b`,
    the id in its family's range) or the id itself (`37`); None otherwise."""
    text = str(sample_id)
    m = _TASK_NAME.fullmatch(text)
    if m:
        tid = int(m.group(2))
        return tid if tid in FAMILY_ID_RANGES[m.group(1)] else None
    m = _TASK_ID.fullmatch(text)
    return int(m.group(1)) if m and int(m.group(1)) in range(1, 1000) else None


def _by_task(ids: Iterable[tuple[str, int]]) -> dict[int | None, list[tuple[str, int]]]:
    """A log's (sample id, epoch) pairs by the task each sample id names (`task_of`; None: no task), in order."""
    out: dict[int | None, list[tuple[str, int]]] = {}
    for sid, epoch in ids:
        out.setdefault(task_of(sid), []).append((sid, epoch))
    return out


def _chosen(
    by_task: dict[int | None, list[tuple[str, int]]], traj: Trajectory, run_level: bool
) -> list[tuple[str, int]]:
    """The (sample id, epoch) pairs of the task among a log's (`_by_task`), in order. None in a run-level log: not
    the task's log (`traj.of_task`); none in the task's own folder: a log that is not the task's, not read."""
    mine = list(by_task.get(traj.task_id, [])) if traj.task_id is not None else []
    unnamed = {s for s, _ in by_task.get(None, [])}
    if not mine and not run_level and len(by_task) == 1 and len(unnamed) == 1:
        mine = list(by_task[None])  # the task folder's own log of one unnamed sample
    if not mine and run_level:
        traj.of_task = False
    elif not mine:
        every = sorted({s for ids in by_task.values() for s, _ in ids})[:5]
        shown = ", ".join(repr(one_line(s)[:60]) for s in every)
        _fail(traj, f"no sample of task {traj.task_id} among its samples ({shown or 'none'})")
    elif len(mine) > MAX_SAMPLES:
        traj.note(
            f"{one_line(traj.path)}: {len(mine)} samples of task {traj.task_id}; the first {MAX_SAMPLES} read"
        )
    return sorted(mine, key=lambda s: s[1])[:MAX_SAMPLES]


def _log_api() -> Any:
    """`inspect_ai.log`, or None when inspect_ai is not installed."""
    try:
        import inspect_ai.log as api
    except ImportError:
        return None
    return api


def _fail(traj: Trajectory, why: str) -> None:
    """The log could not be read: `unknown`, so the task is unreadable rather than clean."""
    traj.format, traj.steps = "unknown", []
    traj.note(f"{one_line(traj.path)}: an Inspect log, not read ({one_line(why)[:240]})")


def _fill(
    traj: Trajectory,
    chosen: list[tuple[str, int]],
    steps_of: Callable[[str, int], SampleSteps],
    budget: TaskBudget,
) -> None:
    """Read the chosen samples one at a time (`steps_of`) into `traj`, in order; a sample that cannot be read is
    a note, and a log none of whose samples could be read is not read. Once a sample does not fit in the task's
    `budget` (`steps_of` raises `BudgetSpent`), it and the rest are not read: one note."""
    where = one_line(traj.path)
    read = 0
    for k, (sid, epoch) in enumerate(chosen):
        shown = f"sample {one_line(sid)[:80]!r} epoch {epoch}"
        try:
            steps, extra = steps_of(sid, epoch)
        except BudgetSpent as exc:
            why = f"{len(chosen) - k} of its {len(chosen)} sample(s) of task {traj.task_id} not read: {exc}"
            budget.stop(traj.path, why)
            if not read:
                return _fail(traj, str(exc))
            traj.note(f"{where}: from {shown}, {why}")
            return None
        except inspect_zip.UnsafeArchive:
            raise  # a hostile archive is not read at all
        except Exception as exc:  # noqa: BLE001 - a malformed sample is a note (pydantic, JSON, missing member)
            why = _PRIVATE_COPY.sub("<the sample's private copy>", str(exc))
            traj.note(f"{where}: {shown} not read ({type(exc).__name__}: {one_line(why)[:160]})")
            continue
        read += 1
        if len(chosen) > 1:
            traj.note(f"{where}: {shown} from step {len(traj.steps)}")
        if extra:
            traj.note(
                f"{where}: {shown}: {extra} step(s) only in its events (sub-agents), after its messages"
            )
        room = MAX_STEPS - len(traj.steps)
        if len(steps) >= room:
            traj.note(f"{where}: {MAX_STEPS} steps or more; the rest not read")
        traj.steps += [replace(s, index=len(traj.steps) + i) for i, s in enumerate(steps[:room])]
    if not read:
        _fail(traj, f"none of its {len(chosen)} sample(s) of task {traj.task_id} could be read")
    return None


def _run(read: Coroutine[Any, Any, Any]) -> Any:
    """Run one of inspect_ai's asynchronous readers on an event loop of its own. Its synchronous readers run
    through `asyncio.run`, which on Python 3.11 formats its main task, result included, when it restores the
    SIGINT handler (`signal.getsignal` builds a `ValueError` naming the handler): the whole sample's repr,
    twice, took 4.5 s and most of 210 MB for a sample of 300 calls."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(read)
    finally:
        loop.close()


def _eval_sample(api: Any, raw: bytearray, member: str, sid: str, epoch: int, tmp: str) -> SampleSteps:
    """The steps of one sample, its checked bytes `raw`: parsed with its values (`MAX_VALUES`) and nesting
    bounded (inspect_ai's reader slows and grows quadratically with nesting: 30,000 levels took 1.7 s, 100,000
    exhausted memory), `raw` emptied, what the steps do not read dropped (`inspect_steps.cleared`), then written alone into a
    private archive that inspect_ai reads."""
    doc = parse_json_bounded(raw, one_line(member)[:80], max_depth=MAX_DEPTH, max_values=MAX_VALUES)
    raw.clear()  # the caller's reference would keep the bytes alive while inspect_ai parses them again
    cleared(doc)
    local = str(Path(tmp) / "sample.eval")
    with zipfile.ZipFile(local, "w", zipfile.ZIP_STORED) as out:
        out.writestr(member, json.dumps(doc))
    del doc
    sample = _run(
        api.read_eval_log_sample_async(
            local, sid, epoch, resolve_attachments=_RESOLVE, exclude_fields=_EXCLUDED
        )
    )
    return sample_steps(sample)


@dataclass(frozen=True, kw_only=True)
class _Directory:
    """What an archive's checked directory says of its samples: each (sample id, epoch)'s member, and the pairs
    by the task each names (`_by_task`). A run-level log's keeps the samples that name a task only: it is read
    for no other (`_chosen`)."""

    members: dict[tuple[str, int], zipfile.ZipInfo]
    by_task: dict[int | None, list[tuple[str, int]]]


def _directory(fh: IO[bytes], size: int, run_level: bool) -> _Directory:
    """The archive's `_Directory` (`inspect_zip.entries`, every cap checked: `UnsafeArchive` when one fails)."""
    members: dict[tuple[str, int], zipfile.ZipInfo] = {}
    for info in inspect_zip.entries(fh, size):  # a re-logged sample: the last member of a name wins
        m = _MEMBER.fullmatch(info.filename)
        if m:
            members[(m.group(1), int(m.group(2)))] = info
    by_task = _by_task(members)
    if run_level:
        by_task.pop(None, None)
        members = {pair: members[pair] for ids in by_task.values() for pair in ids}
    return _Directory(members=members, by_task=by_task)


def _run_directory(fh: IO[bytes], size: int) -> _Directory:
    """A run-level archive's `_Directory` (or its refusal), parsed once per process for all the task folders
    that read it, keyed by the file's identity (device, inode, size, mtime) as `check.log_sha256` keys its hash;
    at most `_MAX_DIRECTORIES` archives or `_MAX_KEPT_MEMBERS` members are kept, then the memo starts over."""
    st = os.fstat(fh.fileno())
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _directories:
        try:
            got: _Directory | inspect_zip.UnsafeArchive = _directory(fh, size, run_level=True)
        except inspect_zip.UnsafeArchive as exc:
            got = exc
        kept = sum(len(d.members) for d in _directories.values() if isinstance(d, _Directory))
        grown = len(got.members) if isinstance(got, _Directory) else 0
        if len(_directories) >= _MAX_DIRECTORIES or kept + grown > _MAX_KEPT_MEMBERS:
            _directories.clear()
        _directories[key] = got
    found = _directories[key]
    if isinstance(found, inspect_zip.UnsafeArchive):
        raise found
    return found


def _read_eval(
    job: JobDir, parts: tuple[str, ...], traj: Trajectory, run_level: bool, budget: TaskBudget
) -> None:
    fd, size = job.open_file(*parts)
    with os.fdopen(fd, "rb") as fh:
        os.set_blocking(fd, True)
        if size > MAX_EVAL_BYTES:
            return _fail(traj, f"{size} bytes, over the {MAX_EVAL_BYTES} byte limit")
        directory = _run_directory(fh, size) if run_level else _directory(fh, size, run_level=False)
        chosen = _chosen(directory.by_task, traj, run_level)
        if not chosen:
            return None
        api = _log_api()
        if api is None:
            return _fail(traj, _INSTALL)

        def steps_of(sid: str, epoch: int) -> SampleSteps:
            info = directory.members[(sid, epoch)]
            if info.file_size > MAX_SAMPLE_BYTES:
                raise ValueError(
                    f"{info.file_size} bytes unpacked, over the cap of {MAX_SAMPLE_BYTES} for a sample"
                )
            budget.take(traj.path, samples=1, nbytes=info.file_size, charge=False)  # before inflating
            raw = inspect_zip.read_member(fh, size, info)
            if (values := json_values(raw, MAX_VALUES)) <= MAX_VALUES:  # over: refused by the parse
                budget.take(traj.path, samples=1, values=values, nbytes=len(raw))
            with tempfile.TemporaryDirectory(prefix=_PRIVATE_PREFIX) as tmp:
                return _eval_sample(api, raw, info.filename, sid, epoch, tmp)  # empties raw

        _fill(traj, chosen, steps_of, budget)
    return None


def _json_samples(data: bytes, api: Any) -> dict[tuple[str, int], SampleSteps | Exception]:
    """The steps of every sample of a JSON log's bytes `data` (nesting bounded, sandbox configurations dropped as
    in a `.eval`), or why a sample has none."""
    doc = parse_json_bounded(data, "the log", max_depth=MAX_DEPTH, max_values=MAX_VALUES)
    del data
    for sample in get(doc, "samples") if isinstance(get(doc, "samples"), list) else []:
        cleared(sample)
    without_configs(get(doc, "eval"))
    log = _run(
        api.read_eval_log_async(
            io.BytesIO(json.dumps(doc).encode()), resolve_attachments=_RESOLVE, format="json"
        )
    )
    del doc
    out: dict[tuple[str, int], SampleSteps | Exception] = {}
    for sample in log.samples or []:
        try:
            out[(str(sample.id), sample.epoch)] = sample_steps(sample)
        except Exception as exc:  # noqa: BLE001 - kept, and noted by `_fill` for the task it belongs to
            out[(str(sample.id), sample.epoch)] = exc
    return out


def _read_json(
    job: JobDir, parts: tuple[str, ...], traj: Trajectory, run_level: bool, budget: TaskBudget
) -> None:
    """A JSON log has no sample-level reading: it is read whole once (its samples' steps kept, keyed by the
    file's identity, for the next task folder reading the same run-level log) and each task takes its own. The
    task's budget is charged the whole document, checked before it is parsed, except for a run-level log read
    the first time, parsed to learn whose samples it holds (once per process: `_json_tasks`)."""
    global _json_cache
    fd, size = job.open_file(*parts)
    with os.fdopen(fd, "rb") as fh:
        os.set_blocking(fd, True)
        if size > MAX_DOCUMENT_BYTES:
            return _fail(traj, f"{size} bytes, over the {MAX_DOCUMENT_BYTES} byte limit")
        st = os.fstat(fd)
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        tasks = _json_tasks.get(key)
        if run_level and tasks is not None and traj.task_id not in tasks:
            traj.of_task = False  # as `_chosen` finds, without reading it again
            return None
        cached = _json_cache if _json_cache is not None and _json_cache[0] == key else None
        if cached is None:
            api = _log_api()
            if api is None:
                return _fail(traj, _INSTALL)
            data = fh.read(MAX_DOCUMENT_BYTES + 1)
            if len(data) > MAX_DOCUMENT_BYTES:
                return _fail(traj, f"over the {MAX_DOCUMENT_BYTES} byte limit")
            values = json_values(data, MAX_VALUES)
            if values <= MAX_VALUES and (tasks is not None or not run_level):
                budget.take(traj.path, values=values, nbytes=size, charge=False)
            cached = _json_cache = (key, _json_samples(data, api), values)
            if len(_json_tasks) >= _MAX_DIRECTORIES:
                _json_tasks.clear()
            _json_tasks[key] = frozenset(task_of(sid) for sid, _ in cached[1])
    samples = cached[1]

    def steps_of(sid: str, epoch: int) -> SampleSteps:
        budget.take(traj.path, samples=1)
        got = samples[(sid, epoch)]
        if isinstance(got, Exception):
            raise got
        return got

    chosen = _chosen(_by_task(samples), traj, run_level)
    if chosen:
        budget.take(traj.path, values=cached[2], nbytes=size)
        _fill(traj, chosen, steps_of, budget)
    return None


def read(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> None:
    """Fill `traj` with the steps of task `traj.task_id` in the Inspect log at `parts` (module docstring)."""
    run_level = parts[0] == RUN_FOLDER
    budget = inspect_budget.of(job, traj.task_id)
    budget.open(traj.path)
    try:
        if parts[-1].endswith(".eval"):
            _read_eval(job, parts, traj, run_level, budget)
        else:
            _read_json(job, parts, traj, run_level, budget)
    except BudgetSpent as exc:  # a JSON log that does not fit, whole
        budget.stop(traj.path, str(exc))
        _fail(traj, str(exc))
    except ImportError:  # zstandard, which inspect_ai installs, for a zstd member
        _fail(traj, _INSTALL)
    except Exception as exc:  # noqa: BLE001 - a hostile log is a note: a zip bomb, a bad archive, a bad log
        why = str(exc) if isinstance(exc, inspect_zip.UnsafeArchive) else f"{type(exc).__name__}: {exc}"
        _fail(traj, why)
