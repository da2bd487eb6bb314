"""The persisted result model (versioned), its JSON file per task, and `load_results()` as a DataFrame.

Result files live inside run directories, which are written by the agents being scored, so they are read as
hostile input: bounded reads, the shipped JSON Schema (`agenticvbench/results/result.schema.json`) and the
file's own content hash (`result_sha256`) decide whether a file is a valid result; `scan_results` returns the valid
results plus the invalid files with a reason each, so callers count them instead of crashing or dropping them.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agenticvbench.fsutil import TooLargeError, atomic_write_json, parse_json_bounded, read_capped
from agenticvbench.results.signing import ALG, ResultKey
from agenticvbench.runs.identity import RunIdentity
from agenticvbench.runs.submission import RESULTS_DIRNAME
from agenticvbench.sanitize import one_line

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

RESULT_SCHEMA_VERSION = 2
#: The largest result file read. An honest result is tens of KB (the demo's largest is 15 KB); the cap is
#: checked against the file's size before a byte is read, so sparse files planted in a results folder cost a
#: `stat` each, not a read.
RESULT_MAX_BYTES = 16 * 1024 * 1024
INVALID_STATUS: Literal["invalid"] = "invalid"
_RESULT_NAME_RE = re.compile(r"[0-9]+\.json", re.ASCII)
#: `invalid` exists only in memory: readers give a result file that is not valid a stand-in `Result` with it
#: (`invalid_stand_in`). The schema has no such status, so a file holding one is itself read back as invalid.
#: `excluded`: the run declares the task left out of the means (an infrastructure failure imported with
#: `avb harbor import --infra-policy exclude`); aggregation skips the cell instead of counting it 0.
Status = Literal["scored", "missing", "malformed", "error", "excluded", "invalid"]
#: What a result file can hold.
STATUSES: tuple[str, ...] = ("scored", "missing", "malformed", "error", "excluded")
_IDENTITY_TEXT = frozenset({"harness", "model", "rep"})  # run fields declared by the run (the path is ours)


@dataclass(kw_only=True)
class Result:
    """One (run, task) result. `headline_score` is what leaderboards average (0 unless status is `scored`)."""

    task_id: int
    family: str
    status: Status
    final_score: float = 0.0
    adjusted_final_score: float | None = None
    headline_score: float = 0.0
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    components: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    official: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    #: `RunIdentity.to_dict()`; read it back with `.identity`
    run: dict[str, Any] = field(default_factory=dict)
    fingerprint: str = ""
    schema_version: int = RESULT_SCHEMA_VERSION
    #: Codes of known official scoring holes this input hits.
    integrity: list[str] = field(default_factory=list)
    result_sha256: str = ""  # SHA-256 of the file's canonical JSON without this field (set when written)
    #: {alg, key_id, mac}; absent on disk when unsigned.
    signature: dict[str, str] = field(default_factory=dict)
    resumed: bool = False  # True when this run reused the file instead of rescoring (never True on disk)
    signature_status: str = ""  # set by readers (`SIGNATURE_STATUSES`); never on disk

    def __post_init__(self) -> None:
        # The reason, the warnings and the declared identity carry agent-written text (clip ids, run.json fields,
        # a planted result file): kept on one line with controls and surrogates escaped (`sanitize.one_line`).
        if isinstance(self.reason, str):
            self.reason = one_line(self.reason)
        if isinstance(self.warnings, list):
            self.warnings = [one_line(w) if isinstance(w, str) else w for w in self.warnings]
        if isinstance(self.run, dict):
            self.run = {
                k: one_line(v) if isinstance(v, str) and k in _IDENTITY_TEXT else v
                for k, v in self.run.items()
            }

    @property
    def identity(self) -> RunIdentity:
        """The run this result belongs to, read from `run` (`RunIdentity.from_dict`: wrong types count as absent,
        never an error). Reports apply the folder-name fallback on top (`RunIdentity.named`)."""
        return RunIdentity.from_dict(self.run)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (without the transient `resumed` and `signature_status`, and without an empty
        `signature`)."""
        data = asdict(self)
        for name in TRANSIENT:
            data.pop(name, None)
        if not data["signature"]:
            del data["signature"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Result:
        """Rebuild from JSON; unknown keys are ignored so older readers survive newer files, and so are the
        transient fields (a file cannot declare itself reused or its signature checked)."""
        names = {f.name for f in fields(cls)} - TRANSIENT
        return cls(**{k: v for k, v in data.items() if k in names})


TRANSIENT = frozenset({"resumed", "signature_status"})
#: What a reader found out about a result's signature (`Result.signature_status`):
SIGNATURE_STATUSES: dict[str, str] = {
    "valid": "signed with this scorer's key",
    "unsigned": "carries no signature (written before results were signed, or not by avb verify)",
    "other_key": "is signed with another key than this scorer's",
    "bad": "has a signature that does not match its content (not written by this scorer)",
    "unchecked": "is signed, but no key was available to check it",
}


def json_safe(obj: Any) -> tuple[Any, int]:
    """A copy of `obj` with every non-finite float (inf, NaN) replaced by None, and how many were replaced.

    Result files are strict JSON; an agent's input can legitimately drive a diagnostic value to infinity (e.g. a
    400-digit timestamp in report.md) without the score itself being wrong.
    """
    if isinstance(obj, float):
        return (obj, 0) if math.isfinite(obj) else (None, 1)
    if isinstance(obj, dict):
        pairs = {k: json_safe(v) for k, v in obj.items()}
        return {k: v for k, (v, _) in pairs.items()}, sum(n for _, n in pairs.values())
    if isinstance(obj, (list, tuple)):
        items = [json_safe(v) for v in obj]
        return [v for v, _ in items], sum(m for _, m in items)
    return obj, 0


def result_path(out_dir: Path, task_id: int) -> Path:
    """Where the result of `task_id` lives inside a results folder."""
    return Path(out_dir) / f"{task_id}.json"


def canonical_bytes(data: dict[str, Any], without: tuple[str, ...] = ("result_sha256",)) -> bytes:
    """A result's canonical JSON (keys sorted, no whitespace, ASCII, no NaN) without the keys in `without`.

    The data is round-tripped through JSON first, so the bytes of what is written equal those of what is read.
    """
    body = {k: v for k, v in data.items() if k not in without}
    body = json.loads(json.dumps(body, allow_nan=False, default=str))
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return text.encode("ascii")


def canonical_sha256(data: dict[str, Any]) -> str:
    """SHA-256 of a result's canonical JSON (`canonical_bytes`) without `result_sha256`."""
    return hashlib.sha256(canonical_bytes(data)).hexdigest()


_SIGNED_WITHOUT = ("result_sha256", "signature")


def signature_of(data: dict[str, Any], key: ResultKey) -> dict[str, str]:
    """The `signature` block of result JSON `data`: HMAC-SHA256 under `key` of its canonical JSON without
    `result_sha256` and `signature`."""
    return {"alg": ALG, "key_id": key.key_id, "mac": key.mac(canonical_bytes(data, _SIGNED_WITHOUT))}


def check_signature(data: dict[str, Any], key: ResultKey | None) -> str:
    """What `data`'s signature says under `key`: one of `SIGNATURE_STATUSES` (`data` already schema-valid)."""
    sig = data.get("signature")
    if not sig:
        return "unsigned"
    if key is None:
        return "unchecked"
    if sig.get("key_id") != key.key_id:
        return "other_key"
    return "valid" if key.verify(canonical_bytes(data, _SIGNED_WITHOUT), sig.get("mac", "")) else "bad"


def write_result(out_dir: Path, result: Result, key: ResultKey | None = None) -> Path:
    """Atomically write one result file with its content hash, signed when `key` is given; returns its path."""
    path = result_path(out_dir, result.task_id)
    result.signature = {}
    data = result.to_dict()
    if key is not None:
        result.signature = data["signature"] = signature_of(data, key)
    result.result_sha256 = data["result_sha256"] = canonical_sha256(data)
    result.signature_status = "valid" if key is not None else "unsigned"
    atomic_write_json(path, data)
    return path


@lru_cache(maxsize=1)
def result_schema() -> dict[str, Any]:
    """The shipped JSON Schema of a result file (`agenticvbench/results/result.schema.json`)."""
    text = resources.files("agenticvbench.results").joinpath("result.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(result_schema())


def result_problem(data: Any) -> str:
    """Why parsed result JSON is not a valid result ('' when it is): schema version, the shipped JSON Schema
    (types, 0..1 ranges, status enum, zero scores unless scored), then the content hash."""
    if not isinstance(data, dict):
        return "top level is not an object"
    if data.get("schema_version") != RESULT_SCHEMA_VERSION:
        return (
            f"schema_version {data.get('schema_version')!r}, expected {RESULT_SCHEMA_VERSION} "
            "(written by another version of agenticvbench)"
        )
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        fields_ = sorted({".".join(str(x) for x in e.absolute_path) or "(top level)" for e in errors})
        return f"field(s) {', '.join(fields_[:8])}: {errors[0].message[:200]}" + (
            f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        )
    try:
        digest = canonical_sha256(data)
    except (TypeError, ValueError) as exc:
        return f"cannot be hashed ({exc})"
    if digest != data["result_sha256"]:
        return "result_sha256 does not match the content (the file was edited after it was written)"
    return ""


def read_result_checked(path: Path, key: ResultKey | None = None) -> tuple[Result | None, str]:
    """Read one result file as untrusted input: (result, '') when valid, (None, '') when absent, and
    (None, reason) when present but invalid (not a regular file, over `RESULT_MAX_BYTES` (16 MiB, by size
    before any read), torn, failing schema or hash).
    The result's `signature_status` says what its signature is under `key` (`check_signature`)."""
    p = Path(path)
    try:
        st = os.lstat(p)
    except (FileNotFoundError, NotADirectoryError):
        return None, ""
    except OSError as exc:
        return None, f"cannot be examined ({exc.strerror or exc})"
    if os.path.islink(p):
        return None, f"is a symlink (to {os.path.realpath(p)}); results must be regular files"
    if st.st_size > RESULT_MAX_BYTES:  # by size, before reading (a sparse file's apparent size counts)
        return None, f"{st.st_size} bytes, over the {RESULT_MAX_BYTES} byte limit"
    try:
        data = parse_json_bounded(read_capped(p, RESULT_MAX_BYTES), p.name, max_depth=256)
    except TooLargeError:
        return None, f"{st.st_size} bytes, over the {RESULT_MAX_BYTES} byte limit"
    except (OSError, ValueError) as exc:
        return None, str(exc)
    if problem := result_problem(data):
        return None, problem
    try:
        result = Result.from_dict(data)
    except TypeError as exc:
        return None, f"does not fit the result model ({exc})"
    result.signature_status = check_signature(data, key)
    return result, ""


def read_result(path: Path) -> Result | None:
    """Read one result file; None if it is absent or invalid (see `read_result_checked` for the reason)."""
    return read_result_checked(path)[0]


@dataclass(frozen=True)
class InvalidResult:
    """A result file that is present but not a valid result: it counts as `invalid` (score 0), never dropped."""

    path: Path
    task_id: int | None
    reason: str


def invalid_stand_in(bad: InvalidResult, run: dict[str, Any]) -> Result | None:
    """The in-memory `Result` a report counts for an invalid result file: status `invalid`, scores 0, the reason
    naming the file. None when the file name is not a benchmark task id (nothing to count it against).

    Without it, an invalid file would drop its task from the report, and a run could raise its mean by
    corrupting its worst results.
    """
    from agenticvbench.dataset.tasks import FAMILY_ID_RANGES

    family = next((f for f, ids in FAMILY_ID_RANGES.items() if bad.task_id in ids), None)
    if family is None or bad.task_id is None:
        return None
    return Result(
        task_id=bad.task_id,
        family=family,
        status=INVALID_STATUS,
        adjusted_final_score=None,
        reason=f"invalid result file {bad.path}: {bad.reason}; rerun `avb verify` to rescore it",
        run=dict(run),
    )


@dataclass
class ResultScan:
    """Everything found in results folders: the valid results and the invalid files."""

    results: list[Result] = field(default_factory=list)
    invalid: list[InvalidResult] = field(default_factory=list)


def results_dir_for(path: str | Path) -> Path:
    """Accept a run directory or a results folder and return the results folder."""
    p = Path(path)
    return p / RESULTS_DIRNAME if (p / RESULTS_DIRNAME).is_dir() else p


def scan_results(paths: list[str | Path] | str | Path, key: ResultKey | None = None) -> ResultScan:
    """Valid results and invalid result files under the given run directories or results folders (each valid
    result's `signature_status` checked under `key`).

    Only `<ASCII digits>.json` files are results; a file whose `task_id` differs from its name is invalid.
    Callers (`avb report`, `avb leaderboard`) count each invalid file as an `invalid result` scoring 0, list its
    path, and exit 1.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    scan = ResultScan()
    for p in paths:
        folder = results_dir_for(p)
        if not folder.is_dir():
            continue
        names = sorted(
            (f for f in os.listdir(folder) if _RESULT_NAME_RE.fullmatch(f)), key=lambda n: (len(n), n)
        )
        for name in names:
            f = folder / name
            tid = int(name[:-5])
            r, problem = read_result_checked(f, key)
            if r is not None and r.task_id != tid:
                problem = f"holds task {r.task_id} but is named {name}"
            if r is not None and not problem:
                scan.results.append(r)
            elif problem:
                scan.invalid.append(InvalidResult(f, tid, problem))
    return scan


def announce_invalid_results(paths: list[str | Path] | str | Path, prog: str) -> int:
    """Print one stderr line per invalid result file under `paths` (`prog: invalid result PATH: reason`) and
    return how many there are; commands that read results exit 1 when it is not 0."""
    import sys

    invalid = scan_results(paths).invalid
    for bad in invalid:
        print(f"{prog}: invalid result {bad.path}: {bad.reason} (counted as 0)", file=sys.stderr)
    return len(invalid)


def iter_results(paths: list[str | Path] | str | Path) -> list[Result]:
    """All valid results under the given run directories or results folders (`scan_results` also lists the
    invalid files, which callers must not ignore)."""
    return scan_results(paths).results


def load_results(paths: list[str | Path] | str | Path, key: ResultKey | None = None) -> pd.DataFrame:
    """One row per (run, task) with the run's harness/model/rep, family, status, scores and `signature` (the
    result's signature status under `key`, by default the key every reader uses: as `avb verify` finds it).

    An invalid result file is a row with status `invalid`, scores 0 and the reason naming the file. A path that
    does not exist raises `SubmissionError` (a typo must not read as an empty run).
    """
    import pandas as pd

    from agenticvbench.errors import SubmissionError

    for p in [paths] if isinstance(paths, (str, Path)) else paths:
        if not Path(p).exists():
            raise SubmissionError(f"{p}: no such run directory or results folder")

    from agenticvbench.results.signing import load_key

    # The row of an invalid result file (counted, never dropped: it scores 0 like a missing output); its
    # keys are the frame's columns.
    invalid_row: dict[str, Any] = {
        "run": "",
        "harness": "unknown",
        "model": "unknown",
        "rep": None,
        "task_id": None,
        "family": "",
        "status": INVALID_STATUS,
        "final_score": 0.0,
        "adjusted_final_score": None,
        "headline_score": 0.0,
        "reason": "",
        "n_warnings": 0,
        "seconds": None,
        "signature": "",
    }
    scan = scan_results(paths, key if key is not None else load_key(None, create=False)[0])
    rows = [
        {
            **invalid_row,
            "run": str(
                bad.path.parent.parent if bad.path.parent.name == RESULTS_DIRNAME else bad.path.parent
            ),
            "task_id": bad.task_id,
            "reason": f"invalid result {bad.path}: {bad.reason}",
        }
        for bad in scan.invalid
    ]
    for r in scan.results:
        ident = r.identity
        rows.append(
            {
                "run": ident.path,
                "harness": ident.harness,
                "model": ident.model,
                "rep": ident.rep,
                "task_id": r.task_id,
                "family": r.family,
                "status": r.status,
                "final_score": r.final_score,
                "adjusted_final_score": r.adjusted_final_score,
                "headline_score": r.headline_score,
                "reason": r.reason,
                "n_warnings": len(r.warnings),
                "seconds": r.timings.get("total_s"),
                "signature": r.signature_status,
            }
        )
    return pd.DataFrame(rows, columns=list(invalid_row))


class _TaskRef(Protocol):
    @property
    def task_id(self) -> int: ...
    @property
    def family(self) -> str: ...


class ScoringJob(Protocol):
    """What a result needs of the job that was to produce it: its task and its run's identity (`engine.Job` is
    one; executors are generic over jobs, so they name only this)."""

    @property
    def task(self) -> _TaskRef: ...
    @property
    def run_info(self) -> dict[str, Any]: ...


def lost_result(job: ScoringJob, exc: BaseException) -> Result:
    """An `error` result for a job that failed outside `score_job` (worker killed, lost, unpicklable, ...).

    It is not written to disk, so the next run retries the task."""
    return Result(
        task_id=int(job.task.task_id),
        family=str(job.task.family),
        status="error",
        reason=f"worker failed: {type(exc).__name__}: {exc}",
        run=dict(job.run_info or {}),
    )
