"""StudioBench run directories (`runs/<batch>/<task>/<model>/`): artifact set, `submitted`, `valid_for_bench`.

The protocol (§2-3) names the artifacts and the validity conditions but not the layout of `result.json` or of a
`.calls.jsonl` record, so this module reads the fields documented in docs/interop.md ("What a run must record"):

- `.calls.jsonl`: parsed by `studiobench_calls` (the record format is documented there).
- `result.json`: `model` (string); `backends.required` / `backends.available` (lists of names);
  `timings.wall_clock_s` (or `timings.started_at` + `timings.ended_at`, RFC 3339); optional `tools_available`,
  `calls.total`, `submitted`, `valid_for_bench` (compared with what we compute; a mismatch is a warning).

`submitted` = final.mp4 exists, the call log parses and holds a successful StudioBench `export` call.
`valid_for_bench` = submitted, isolation (no foreign tool in the call log, in `tools_available`, or among
`mcp.json`'s servers), every required backend available, final.mp4 decodes with a video stream, and its duration
lies within the task's `duration_sec` range. The wall clock and call count are reported against the protocol's
limits (4 h for tasks whose longest allowed cut is under 2 minutes, 8 h otherwise; 200 calls); an overrun is a
warning, not a validity rule, because the protocol lists the validity conditions exhaustively and the harness
enforces the limits while the run happens. The record rules (all six artifacts present, `result.json` readable,
`mcp.json` without secrets) do not change `valid_for_bench` but make the run fail validation (`ok`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from agenticvbench.errors import MediaError
from agenticvbench.fsutil import TooLargeError, escape_reason, parse_json_bounded, read_capped
from agenticvbench.interop.secrets import find_secrets
from agenticvbench.interop.studiobench_calls import STUDIOBENCH_SERVER, ToolCall, parse_calls, split_tool_name
from agenticvbench.interop.studiobench_task import Issue, duration_range, validate_task
from agenticvbench.media import iter_frames, probe

ARTIFACTS: tuple[str, ...] = ("prompt.txt", "sp.md", "result.json", "final.mp4", "mcp.json", ".calls.jsonl")
EXPORT_TOOL = "export"
CALL_LIMIT = 200
WALL_CLOCK_SHORT_S = 4 * 3600
WALL_CLOCK_LONG_S = 8 * 3600
SHORT_TASK_MAX_S = 120.0
#: Cap on the agent-written JSON files read here (`result.json`, `mcp.json`).
JSON_MAX_BYTES = 5 * 1024 * 1024
#: Float slack when comparing a container duration with the task's bounds (1 ms).
DURATION_EPS_S = 1e-3

#: Rule name -> what it gates: "submitted" and "bench" rules decide the flags, "record" rules only `ok`.
RULES: dict[str, str] = {
    "final_present": "submitted",
    "calls_log": "submitted",
    "export_called": "submitted",
    "isolation": "bench",
    "backends": "bench",
    "decodable": "bench",
    "duration": "bench",
    "artifacts": "record",
    "result_json": "record",
    "mcp_json": "record",
}


@dataclass(frozen=True)
class RuleResult:
    """One rule: passed or not, and why not."""

    rule: str
    ok: bool
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return {"rule": self.rule, "gates": RULES[self.rule], "ok": self.ok, "reason": self.reason}


@dataclass(kw_only=True)
class RunValidation:
    """Everything `validate_run` found about one run directory."""

    run_dir: str
    task_id: str
    model: str
    rules: list[RuleResult] = field(default_factory=list)
    limits: dict[str, Any] = field(default_factory=dict)
    secrets: list[Issue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    final_duration_s: float | None = None

    def _passed(self, gate: str) -> bool:
        return all(r.ok for r in self.rules if RULES[r.rule] == gate)

    @property
    def submitted(self) -> bool:
        """final.mp4 exists and the call log shows the export tool produced it."""
        return self._passed("submitted")

    @property
    def valid_for_bench(self) -> bool:
        """Submitted, isolated, backends available, decodable, duration in range."""
        return self.submitted and self._passed("bench")

    @property
    def record_ok(self) -> bool:
        """All six artifacts present, result.json readable, mcp.json free of secrets."""
        return self._passed("record")

    @property
    def ok(self) -> bool:
        """Valid for the bench and a complete, secret-free record: what the CLI's exit code reflects."""
        return self.valid_for_bench and self.record_ok

    @property
    def failures(self) -> list[RuleResult]:
        """The rules that failed."""
        return [r for r in self.rules if not r.ok]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form for `--json` output."""
        return {
            "run_dir": self.run_dir,
            "task_id": self.task_id,
            "model": self.model,
            "submitted": self.submitted,
            "valid_for_bench": self.valid_for_bench,
            "record_ok": self.record_ok,
            "ok": self.ok,
            "rules": [r.to_dict() for r in self.rules],
            "limits": self.limits,
            "final_duration_s": self.final_duration_s,
            "secrets": [s.to_dict() for s in self.secrets],
            "warnings": self.warnings,
        }


def _read_json(path: Path, escapes: dict[str, str]) -> tuple[Any, str]:
    if path.name in escapes:
        return None, f"{path.name} is refused: it resolves outside the run folder"
    try:
        return parse_json_bounded(read_capped(path, JSON_MAX_BYTES), path.name), ""
    except FileNotFoundError:
        return None, f"{path.name} is missing"
    except TooLargeError:
        return None, f"{path.name}: over the {JSON_MAX_BYTES} byte limit"
    except OSError as exc:
        return None, f"{path.name}: cannot read ({exc.__class__.__name__})"
    except ValueError as exc:  # not UTF-8, invalid JSON, nested too deeply
        return None, str(exc)


def _missing(name: str, escapes: dict[str, str]) -> str:
    refused = " (refused: it resolves outside the run folder)" if name in escapes else ""
    return f"{name} is missing{refused}"


def _wall_clock(result: dict[str, Any]) -> float | None:
    timings = result.get("timings")
    if not isinstance(timings, dict):
        return None
    wc = timings.get("wall_clock_s")
    if isinstance(wc, (int, float)) and not isinstance(wc, bool) and math.isfinite(wc) and wc >= 0:
        return float(wc)
    try:
        start = datetime.fromisoformat(str(timings["started_at"]))
        end = datetime.fromisoformat(str(timings["ended_at"]))
        return (end - start).total_seconds()
    except (KeyError, ValueError, TypeError):
        return None


def wall_clock_limit_s(duration: tuple[float, float] | None) -> int | None:
    """The protocol's per-task wall clock: 4 h when the longest allowed cut is under 2 minutes, else 8 h."""
    if duration is None:
        return None
    return WALL_CLOCK_SHORT_S if duration[1] < SHORT_TASK_MAX_S else WALL_CLOCK_LONG_S


def _str_list(value: Any) -> list[str] | None:
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def _isolation(calls: list[ToolCall], result: dict[str, Any], mcp: Any) -> RuleResult:
    foreign = sorted({c.name for c in calls if not c.studiobench})
    reasons = []
    if foreign:
        reasons.append(f"call log has tools outside the {STUDIOBENCH_SERVER} server: {', '.join(foreign)}")
    avail = result.get("tools_available")
    if avail is not None:
        names = _str_list(avail)
        if names is None:
            reasons.append("result.json: tools_available must be a list of tool names")
        else:
            if extra := sorted(n for n in names if split_tool_name(n)[0] != STUDIOBENCH_SERVER):
                reasons.append(f"result.json lists non-StudioBench tools as available: {', '.join(extra)}")
    servers = mcp.get("mcpServers") if isinstance(mcp, dict) else None
    if isinstance(servers, dict):
        if other := sorted(s for s in servers if s != STUDIOBENCH_SERVER):
            reasons.append(f"mcp.json configures other MCP servers: {', '.join(other)}")
    return RuleResult("isolation", not reasons, "; ".join(reasons))


def _backends(result: Any, problem: str) -> RuleResult:
    if problem:
        return RuleResult("backends", False, f"cannot check backends: {problem}")
    b = result.get("backends") if isinstance(result, dict) else None
    req = _str_list(b.get("required")) if isinstance(b, dict) else None
    avail = _str_list(b.get("available")) if isinstance(b, dict) else None
    if req is None or avail is None:
        why = "result.json: expected backends.required and backends.available as lists of backend names"
        return RuleResult("backends", False, why)
    if missing := [r for r in req if r not in avail]:
        return RuleResult("backends", False, f"required backends not available: {', '.join(missing)}")
    return RuleResult("backends", True)


def _decode(final: Path | None) -> tuple[RuleResult, float | None]:
    if final is None or not final.is_file():
        return RuleResult("decodable", False, "final.mp4 is missing"), None
    try:
        info = probe(final)
        if info.video is None:
            return RuleResult("decodable", False, "final.mp4 has no video stream"), info.duration
        frames = sum(1 for _ in iter_frames(final, pix_fmt="gray"))
    except MediaError as exc:
        return RuleResult("decodable", False, f"final.mp4 does not decode: {exc}"), None
    if frames == 0:
        return RuleResult("decodable", False, "final.mp4 decodes to no video frames"), info.duration
    return RuleResult("decodable", True), info.duration


def _duration(actual: float | None, task: dict[str, Any] | None, task_id: str) -> RuleResult:
    if task is None:
        return RuleResult("duration", False, f"task {task_id!r} not given: its duration range is unknown")
    rng = duration_range(task)
    if rng is None or not validate_task(task).valid:
        return RuleResult(
            "duration", False, f"task {task_id!r} is not a valid task, so its range is unusable"
        )
    if actual is None:
        return RuleResult("duration", False, "final.mp4 has no readable duration")
    lo, hi = rng
    if actual < lo - DURATION_EPS_S or actual > hi + DURATION_EPS_S:
        return RuleResult(
            "duration", False, f"final.mp4 lasts {actual:.3f} s, outside the task's [{lo:g}, {hi:g}] s"
        )
    return RuleResult("duration", True)


def validate_run(run_dir: str | Path, task: dict[str, Any] | None = None) -> RunValidation:
    """Check one run directory against the protocol; `task` is the task object (its `duration_sec` is needed).

    The task id is the run's parent folder name (`runs/<batch>/<task>/<model>/`); the model is `result.json`'s
    `model`, else the folder name.
    """
    d = Path(run_dir)
    out = RunValidation(run_dir=str(d), task_id=d.parent.name, model=d.name)
    rules = out.rules
    # An artifact that resolves outside the run folder (a symlink to another run's file, or to /etc) is refused and
    # then read as missing: the agent writes this folder, and a link would let it borrow or probe any file.
    escapes = {a: why for a in ARTIFACTS if (why := escape_reason(d / a, d, "the run folder"))}
    missing = [a for a in ARTIFACTS if a not in escapes and not (d / a).is_file()]
    reasons = [f"refused {why}" for why in escapes.values()]
    if missing:
        reasons.insert(0, f"missing: {', '.join(missing)}")
    rules.append(RuleResult("artifacts", not reasons, "; ".join(reasons)))

    result, problem = _read_json(d / "result.json", escapes)
    if not problem and not isinstance(result, dict):
        problem = "result.json: expected a JSON object"
    elif not problem and not (isinstance(result.get("model"), str) and result["model"].strip()):
        problem = "result.json: expected 'model' as a non-empty string"
    rules.append(RuleResult("result_json", not problem, problem))
    res: dict[str, Any] = result if isinstance(result, dict) else {}
    if isinstance(res.get("model"), str) and res["model"].strip():
        out.model = res["model"]

    mcp, mcp_problem = _read_json(d / "mcp.json", escapes)
    if not mcp_problem:
        out.secrets = [Issue(f.path, f.to_dict()["message"]) for f in find_secrets(mcp)]
        if out.secrets:
            mcp_problem = "mcp.json contains values that look like secrets at " + ", ".join(
                s.path or "/" for s in out.secrets
            )
    rules.append(RuleResult("mcp_json", not mcp_problem, mcp_problem))

    final = d / "final.mp4"
    final_ok = final.is_file() and "final.mp4" not in escapes
    rules.append(RuleResult("final_present", final_ok, "" if final_ok else _missing("final.mp4", escapes)))
    calls_path = d / ".calls.jsonl"
    calls: list[ToolCall] = []
    calls_ok = calls_path.is_file() and ".calls.jsonl" not in escapes
    if calls_ok:
        calls, bad_lines = parse_calls(calls_path)
        more = f" (+{len(bad_lines) - 5} more)" if len(bad_lines) > 5 else ""
        rules.append(RuleResult("calls_log", not bad_lines, "; ".join(bad_lines[:5]) + more))
    else:
        rules.append(RuleResult("calls_log", False, _missing(".calls.jsonl", escapes)))
    exported = any(c.studiobench and c.tool == EXPORT_TOOL and c.ok for c in calls)
    no_export = f"no successful call to the {STUDIOBENCH_SERVER} '{EXPORT_TOOL}' tool in the call log"
    rules.append(RuleResult("export_called", exported, "" if exported else no_export))

    rules.append(_isolation(calls, res, mcp))
    rules.append(_backends(result, problem))
    decodable, out.final_duration_s = _decode(final if final_ok else None)
    rules.append(decodable)
    rules.append(_duration(out.final_duration_s, task, out.task_id))

    rng = duration_range(task) if task is not None else None
    wc, limit = _wall_clock(res), wall_clock_limit_s(rng)
    n_calls = len(calls) if calls_ok else None
    out.limits = {
        "wall_clock_s": wc,
        "wall_clock_limit_s": limit,
        "wall_clock_within": None if wc is None or limit is None else wc <= limit,
        "calls": n_calls,
        "call_limit": CALL_LIMIT,
        "calls_within": None if n_calls is None else n_calls <= CALL_LIMIT,
    }
    if out.limits["wall_clock_within"] is False:
        out.warnings.append(f"wall clock {wc:.0f} s exceeds the protocol's {limit} s")
    if out.limits["calls_within"] is False:
        out.warnings.append(f"{n_calls} tool calls exceed the protocol's budget of {CALL_LIMIT}")
    if wc is None:
        out.warnings.append("result.json records no wall clock (timings.wall_clock_s)")
    _compare_recorded(out, res, n_calls)
    return out


def _compare_recorded(out: RunValidation, res: dict[str, Any], n_calls: int | None) -> None:
    """Warn where result.json's own summary disagrees with what the artifacts show."""
    for flag in ("submitted", "valid_for_bench"):
        rec = res.get(flag)
        if isinstance(rec, bool) and rec != getattr(out, flag):
            out.warnings.append(
                f"result.json says {flag}={str(rec).lower()}, the checks say "
                f"{str(getattr(out, flag)).lower()}"
            )
    summary = res.get("calls")
    total = summary.get("total") if isinstance(summary, dict) else None
    if isinstance(total, int) and n_calls is not None and total != n_calls:
        out.warnings.append(f"result.json counts {total} calls, .calls.jsonl holds {n_calls}")
