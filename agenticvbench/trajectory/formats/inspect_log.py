"""Inspect AI's eval logs (`inspect eval`, inspect-harbor's runs of the exported tasks), read with inspect_ai's
own log reader (`inspect_ai.log`, the optional extra `agenticvbench[inspect]`): a `.eval` archive one sample at
a time (`read_eval_log_sample`), a `.json` log whole (`read_eval_log`, at most `source.MAX_DOCUMENT_BYTES`).

A log holds many samples; the ones read are the task's (`task_of` its sample id): inspect-harbor names a sample
after the exported task (`agenticvbench/sequencing-037`, `...@<hash>` when two share a name), an own Inspect
task may use the task id itself (`37`). A log in the task's own folder with one unnamed sample is that task's.
All epochs of the task are read, at most `MAX_SAMPLES`, one after the other (a note says where each starts). A
run-level log (`RUN/logs/`) without a sample of the task is not the task's log (`Trajectory.of_task`).

Each sample becomes steps from `sample.messages`: system and user messages; per assistant message its text and
one step per tool call (`ToolCall.function`, `arguments`), or per server-side tool use (`ContentToolUse`), paired
with the `ChatMessageTool` result of the same call id (its `ToolCallError` as the error). `sample.events` give the
times (a `ToolEvent` per call id, a `ModelEvent` per output message) and tokens (the model event's input + output
tokens, on the message's first step), and the tool calls that appear only there (sub-agents), added after the
messages. URL citations on an answer mark it grounded; a sample's error is a `system` step.

A `.eval` is unpacked and bounded first (`inspect_zip`), and each sample's JSON parsed with its nesting bounded
(`MAX_DEPTH`) before inspect_ai reads it; a JSON log is read whole once per process for every task folder that
reads it (`_read_json`). A log that cannot be read at all (inspect_ai missing, a zip bomb, a malformed log) is
left `unknown` with a one-line note, so the task counts as unreadable, not clean; a sample that cannot be read
is a note.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from agenticvbench.cost.usage_stores import MAX_SESSION_BYTES
from agenticvbench.dataset.tasks import FAMILIES, FAMILY_ID_RANGES
from agenticvbench.fsutil import parse_json_bounded
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.runs.submission import LOGS_DIRNAME
from agenticvbench.sanitize import one_line
from agenticvbench.trajectory.formats import inspect_zip
from agenticvbench.trajectory.formats.common import StepBuilder
from agenticvbench.trajectory.model import MAX_STEPS, Step, Trajectory, token_sum
from agenticvbench.trajectory.source import MAX_DOCUMENT_BYTES

NAME = "inspect"
DESCRIPTION = "Inspect AI eval log (.eval or .json)"
RUN_FOLDER = LOGS_DIRNAME  # RUN/logs/: a run's Inspect logs (Inspect's default --log-dir is ./logs)
MAX_EVAL_BYTES = MAX_SESSION_BYTES  # a .eval archive, as a JSONL session file
MAX_SAMPLES = 32  # samples (epochs) of one task read from one log
MAX_DEPTH = 256  # JSON nesting of a sample (Inspect's own is some 20 levels; tool arguments add theirs)
_INSTALL = "inspect_ai is not installed (pip install 'agenticvbench[inspect]')"
_JSON_LOG = re.compile(rb'\A\s*\{\s*"version"\s*:\s*[0-9]+\s*,\s*"status"\s*:')
_MEMBER = re.compile(r"samples/(.+)_epoch_([0-9]{1,6})\.json")
_TASK_NAME = re.compile(rf"(?:.*/)?({'|'.join(FAMILIES)})-0*([0-9]{{1,3}})(?:@[0-9a-f]{{1,64}})?")
_TASK_ID = re.compile(r"0*([0-9]{1,3})")
_EXCLUDED = {"store"}  # not read: the sample's key-value store
#: Attachments resolved (the events keep text over 100 characters there), the model calls' payloads not.
_RESOLVE = "core"
SampleSteps = tuple[list[Step], int]  # a sample's steps, and how many of them only its events gave
#: The last JSON log read whole: (its file's device, inode, size, mtime) and its samples' steps (`_read_json`).
_json_cache: tuple[tuple[int, int, int, int], dict[tuple[str, int], SampleSteps | Exception]] | None = None


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


def _chosen(ids: list[tuple[str, int]], traj: Trajectory, run_level: bool) -> list[tuple[str, int]]:
    """The (sample id, epoch) pairs of the task among a log's, in order. None in a run-level log: not the task's
    log (`traj.of_task`); none in the task's own folder: a log that is not the task's, not read."""
    mine = [s for s in ids if traj.task_id is not None and task_of(s[0]) == traj.task_id]
    if not mine and not run_level and len({s for s, _ in ids}) == 1 and task_of(ids[0][0]) is None:
        mine = list(ids)  # the task folder's own log of one unnamed sample
    if not mine and run_level:
        traj.of_task = False
    elif not mine:
        shown = ", ".join(repr(one_line(s)[:60]) for s in sorted({s for s, _ in ids})[:5])
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


def _text(content: Any) -> str:
    """The text of a message content: a string, or its text parts joined (reasoning, media and tool use left)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return " ".join(p.text for p in parts[:1000] if getattr(p, "type", None) == "text")


def _grounded(content: Any) -> bool:
    """An answer citing URLs (a provider's web search grounding it)."""
    parts = content if isinstance(content, list) else []
    return any(
        getattr(c, "type", None) == "url" for p in parts[:1000] for c in (getattr(p, "citations", None) or ())
    )


def _when(value: Any) -> str | None:
    return value.isoformat() if hasattr(value, "isoformat") else None


def _result(value: Any) -> str:
    """A tool result (a string, a number, a content part or a list of them) as text."""
    if isinstance(value, (str, list)):
        return _text(value)
    text = getattr(value, "text", None)
    return text if isinstance(text, str) else str(value)


def _error(err: Any) -> str | None:
    return f"{err.type}: {err.message}" if err is not None else None


def _assistant(
    b: StepBuilder, msg: Any, at: tuple[str | None, int | None], tool_times: dict[str, str | None] | None
) -> None:
    """The steps of one assistant message: its text, its tool calls (each at its `ToolEvent`'s time) and its
    server-side tool uses; `at` is (time, tokens) of the model call that wrote it. `tool_times` None marks a
    message seen only in the events: its tool calls come as `ToolEvent`s, and its text only when grounded."""
    time, tokens = at
    grounded = _grounded(msg.content)
    text = _text(msg.content)
    if (tool_times is not None and text.strip()) or grounded:
        b.add(None, role="agent", arguments=text, time=time, tokens=tokens, grounded=grounded)
        tokens = None
    parts = msg.content if isinstance(msg.content, list) else []
    for part in parts[:1000]:
        if getattr(part, "type", None) == "tool_use":
            b.add(
                part.id,
                role="agent",
                tool=part.name,
                arguments=part.arguments,
                result=part.result,
                error=part.error,
                time=time,
                tokens=tokens,
                grounded=grounded,
            )
            tokens = None
    if tool_times is None:
        return
    for call in (msg.tool_calls or [])[:1000]:
        b.add(
            call.id,
            role="agent",
            tool=call.function,
            arguments=call.arguments,
            time=tool_times.get(call.id) or time,
            tokens=tokens,
            grounded=grounded,
        )
        tokens = None


def sample_steps(sample: Any) -> SampleSteps:
    """(the steps of one `EvalSample`, how many of them only its events gave): see the module docstring."""
    b = StepBuilder()
    tool_times: dict[str, str | None] = {}
    models: dict[str, tuple[str | None, int | None, Any]] = {}
    for e in sample.events:
        if e.event == "tool":
            tool_times[e.id] = _when(e.timestamp)
        elif e.event == "model" and e.output.choices:
            usage = e.output.usage
            tokens = token_sum(usage.input_tokens, usage.output_tokens) if usage else None
            message = e.output.choices[0].message
            models[str(message.id)] = (_when(e.completed or e.timestamp), tokens, message)
    seen: set[str] = set()
    for msg in sample.messages[:MAX_STEPS]:
        if msg.role in ("system", "user"):
            b.add(None, role=msg.role, arguments=_text(msg.content))
        elif msg.role == "assistant":
            seen.add(str(msg.id))
            time, tokens, _ = models.get(str(msg.id), (None, None, None))
            _assistant(b, msg, (time, tokens), tool_times)
        elif msg.role == "tool":
            b.result(msg.tool_call_id, _text(msg.content), _error(msg.error), None)
    before = len(b.steps)
    for mid, (time, _, message) in models.items():
        if mid not in seen:
            _assistant(b, message, (time, None), None)
    for e in sample.events:
        if e.event == "tool" and e.id not in b.calls:
            b.add(
                e.id,
                role="agent",
                tool=e.function,
                arguments=e.arguments,
                result=_result(e.result),
                error=_error(e.error),
                time=_when(e.timestamp),
            )
    extra = len(b.steps) - before
    if sample.error is not None:
        b.add(None, role="system", error=sample.error.message or "error")
    return b.steps, extra


def _fail(traj: Trajectory, why: str) -> None:
    """The log could not be read: `unknown`, so the task is unreadable rather than clean."""
    traj.format, traj.steps = "unknown", []
    traj.note(f"{one_line(traj.path)}: an Inspect log, not read ({one_line(why)[:240]})")


def _fill(
    traj: Trajectory, chosen: list[tuple[str, int]], steps_of: Callable[[str, int], SampleSteps]
) -> None:
    """Read the chosen samples one at a time (`steps_of`) into `traj`, in order; a sample that cannot be read is
    a note, and a log none of whose samples could be read is not read."""
    where = one_line(traj.path)
    read = 0
    for sid, epoch in chosen:
        shown = f"sample {one_line(sid)[:80]!r} epoch {epoch}"
        try:
            steps, extra = steps_of(sid, epoch)
        except Exception as exc:  # noqa: BLE001 - a malformed sample is a note (pydantic, JSON, missing member)
            traj.note(f"{where}: {shown} not read ({type(exc).__name__}: {one_line(str(exc))[:160]})")
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


def _eval_sample(api: Any, local: str, member: str, sid: str, epoch: int) -> SampleSteps:
    """The steps of one sample of the unpacked archive `local`: its JSON is parsed bounded first (nesting past
    `MAX_DEPTH` is refused: inspect_ai's reader slows and grows quadratically with it, 30,000 levels took 1.7 s
    and 100,000 exhausted memory), then read by inspect_ai."""
    with zipfile.ZipFile(local) as unpacked:
        parse_json_bounded(unpacked.read(member), one_line(member)[:80], max_depth=MAX_DEPTH)
    sample = api.read_eval_log_sample(
        local, sid, epoch, resolve_attachments=_RESOLVE, exclude_fields=_EXCLUDED
    )
    return sample_steps(sample)


def _read_eval(job: JobDir, parts: tuple[str, ...], traj: Trajectory, run_level: bool) -> None:
    fd, size = job.open_file(*parts)
    with os.fdopen(fd, "rb") as fh:
        os.set_blocking(fd, True)
        if size > MAX_EVAL_BYTES:
            return _fail(traj, f"{size} bytes, over the {MAX_EVAL_BYTES} byte limit")
        members: dict[tuple[str, int], zipfile.ZipInfo] = {}
        for info in inspect_zip.entries(fh, size):  # a re-logged sample: the last member of a name wins
            m = _MEMBER.fullmatch(info.filename)
            if m:
                members[(m.group(1), int(m.group(2)))] = info
        chosen = _chosen(list(members), traj, run_level)
        if not chosen:
            return None
        with tempfile.TemporaryDirectory(prefix="avb-audit-inspect-") as tmp:
            local = str(Path(tmp) / "log.eval")
            inspect_zip.unpack(fh, size, [members[c] for c in chosen], Path(local))
            api = _log_api()
            if api is None:
                return _fail(traj, _INSTALL)
            _fill(
                traj, chosen, lambda sid, ep: _eval_sample(api, local, members[(sid, ep)].filename, sid, ep)
            )
    return None


def _json_samples(fh: IO[bytes], api: Any) -> dict[tuple[str, int], SampleSteps | Exception]:
    """The steps of every sample of a JSON log (at most `MAX_DOCUMENT_BYTES`), or why a sample has none."""
    data = fh.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise ValueError(f"over the {MAX_DOCUMENT_BYTES} byte limit")
    out: dict[tuple[str, int], SampleSteps | Exception] = {}
    for sample in (
        api.read_eval_log(io.BytesIO(data), resolve_attachments=_RESOLVE, format="json").samples or []
    ):
        try:
            out[(str(sample.id), sample.epoch)] = sample_steps(sample)
        except Exception as exc:  # noqa: BLE001 - kept, and noted by `_fill` for the task it belongs to
            out[(str(sample.id), sample.epoch)] = exc
    return out


def _read_json(job: JobDir, parts: tuple[str, ...], traj: Trajectory, run_level: bool) -> None:
    """A JSON log has no sample-level reading: it is read whole once (its samples' steps kept, keyed by the
    file's identity, for the next task folder reading the same run-level log) and each task takes its own."""
    global _json_cache
    fd, size = job.open_file(*parts)
    with os.fdopen(fd, "rb") as fh:
        os.set_blocking(fd, True)
        if size > MAX_DOCUMENT_BYTES:
            return _fail(traj, f"{size} bytes, over the {MAX_DOCUMENT_BYTES} byte limit")
        st = os.fstat(fd)
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        cached = _json_cache
        if cached is not None and cached[0] == key:
            samples = cached[1]
        else:
            api = _log_api()
            if api is None:
                return _fail(traj, _INSTALL)
            samples = _json_samples(fh, api)
            _json_cache = (key, samples)

    def steps_of(sid: str, epoch: int) -> SampleSteps:
        got = samples[(sid, epoch)]
        if isinstance(got, Exception):
            raise got
        return got

    chosen = _chosen(list(samples), traj, run_level)
    if chosen:
        _fill(traj, chosen, steps_of)
    return None


def read(job: JobDir, parts: tuple[str, ...], traj: Trajectory) -> None:
    """Fill `traj` with the steps of task `traj.task_id` in the Inspect log at `parts` (module docstring)."""
    run_level = parts[0] == RUN_FOLDER
    try:
        if parts[-1].endswith(".eval"):
            _read_eval(job, parts, traj, run_level)
        else:
            _read_json(job, parts, traj, run_level)
    except ImportError:  # zstandard, which inspect_ai installs, for a zstd member
        _fail(traj, _INSTALL)
    except Exception as exc:  # noqa: BLE001 - a hostile log is a note: a zip bomb, a bad archive, a bad log
        why = str(exc) if isinstance(exc, inspect_zip.UnsafeArchive) else f"{type(exc).__name__}: {exc}"
        _fail(traj, why)
