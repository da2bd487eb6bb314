"""Agent usage of one Harbor trial: tokens, cost, timing and outcome, from `result.json` and the agent's logs.

Harbor records per trial (`TrialResult`, harbor 0.26.0): `agent_info` (name, version, model), `agent_result`
(`n_input_tokens`, `n_cache_tokens`, `n_output_tokens`, `cost_usd`, and `model_usage` per model), the agent's
`agent_execution` start/end, and `exception_info`. Harbor 0.26.0 documents `n_input_tokens` as "including cache";
result files written before Harbor added `schema_version` do not say, so `input_includes_cache` is then None and
the split assumes the documented meaning. Harbor has no cache-write bucket; the harness's own totals do, so they
are read too and win when present:

- Claude Code (`agent/claude-code.txt`, `--output-format stream-json`): the final `{"type": "result"}` line,
  `usage.input_tokens` (uncached), `cache_read_input_tokens`, `cache_creation_input_tokens`, `output_tokens`,
  `total_cost_usd`, and `modelUsage` per model;
- Codex CLI (`agent/codex.txt` and `agent/sessions/**/rollout-*.jsonl`): the last `token_count` event's
  `info.total_token_usage` (`input_tokens` includes `cached_input_tokens`; `cache_write_input_tokens` if present);
- Gemini CLI (`agent/gemini-cli.txt`, `--output-format json`): the final object's `stats.models.<m>.tokens`
  (`prompt` includes `cached`; `candidates` and `thoughts` are output);
- OpenCode (the summed assistant rows of `opencode.db`) and OpenClaw (the summed assistant usage of its session
  JSONL), anywhere under `agent/`: `usage_stores`.

The four buckets kept are disjoint: uncached input, cache read, cache write, output. Every file is hostile: read
through `JobDir` (no symlinks, regular files only), logs only from their last `MAX_LOG_BYTES`, a bad field is
dropped with a note, and nothing here touches a score.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from agenticvbench.cost.tokens import (
    Tokens,
    get_path,
    read_log_tail,
    summed,
    token_count,
    tokens_from_dict,
    usd_amount,
)
from agenticvbench.cost.usage_stores import store_totals
from agenticvbench.fsutil import parse_json_bounded
from agenticvbench.runs.jobdir import JobDir
from agenticvbench.sanitize import one_line

MAX_SESSION_FILES = 64
MAX_MODELS = 32
MAX_TEXT = 200
_HARBOR_FIELDS = ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd")


@dataclass(kw_only=True)
class TrialUsage:
    """What `run.json["usage"][task_id]` holds for one imported trial."""

    agent: str
    agent_version: str | None
    model: str
    harbor_version: str | None
    source: str  # which totals the buckets come from: a harness log, Harbor's result.json, or "none"
    tokens: Tokens
    by_model: dict[str, Tokens] = field(default_factory=dict)
    harbor: dict[str, Any] = field(default_factory=dict)  # Harbor's own fields, as reported
    input_includes_cache: bool | None = None  # Harbor's n_input_tokens semantics (None: not documented)
    agent_started: str | None = None
    agent_finished: str | None = None
    errored: bool = False
    exception_type: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str, notes: list[str]) -> TrialUsage | None:
        """The strict reader of one `run.json` usage entry (the submitter's file: every field unproven).
        Counts must be non-negative integers below `MAX_TOKENS` and costs finite; strings are capped and put
        on one line; at most `MAX_MODELS` per-model entries; a bad field is dropped (None) with a note
        `<where>.<field>: ...`. None, with a note, when the entry is not an object."""
        if not isinstance(data, dict):
            notes.append(f"{where}: not an object ({one_line(str(data)[:40])!r}); ignored")
            return None

        def text(key: str, default: str | None = None) -> str | None:
            v = data.get(key)
            if v is None:
                return default
            if not isinstance(v, str):
                notes.append(f"{where}.{key}: not a string; ignored")
                return default
            return one_line(v[:MAX_TEXT]) or default

        def flag(key: str) -> bool | None:
            v = data.get(key)
            if v is not None and not isinstance(v, bool):
                notes.append(f"{where}.{key}: not true/false; ignored")
                return None
            return v

        by_model: dict[str, Tokens] = {}
        raw_models = data.get("by_model")
        if raw_models is not None and not isinstance(raw_models, dict):
            notes.append(f"{where}.by_model: not an object; ignored")
        for name, t in list(raw_models.items() if isinstance(raw_models, dict) else [])[:MAX_MODELS]:
            key = one_line(str(name)[:MAX_TEXT])
            by_model[key] = tokens_from_dict(t, f"{where}.by_model.{key[:60]}", notes)
        if isinstance(raw_models, dict) and len(raw_models) > MAX_MODELS:
            notes.append(f"{where}.by_model: more than {MAX_MODELS} models; the rest ignored")
        raw_harbor = data.get("harbor")
        harbor = {
            k: v
            for k, v in (raw_harbor.items() if isinstance(raw_harbor, dict) else [])
            if k in _HARBOR_FIELDS
            and (v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)))
        }
        raw_notes = data.get("notes")
        return cls(
            agent=text("agent", "unknown") or "unknown",
            agent_version=text("agent_version"),
            model=text("model", "none") or "none",
            harbor_version=text("harbor_version"),
            source=text("source", "none") or "none",
            tokens=tokens_from_dict(data.get("tokens"), f"{where}.tokens", notes),
            by_model=by_model,
            harbor=harbor,
            input_includes_cache=flag("input_includes_cache"),
            agent_started=text("agent_started"),
            agent_finished=text("agent_finished"),
            errored=bool(flag("errored")),
            exception_type=text("exception_type"),
            notes=[
                one_line(str(n)[:MAX_TEXT]) for n in (raw_notes if isinstance(raw_notes, list) else [])[:20]
            ],
        )


def _sub(a: int | None, b: int | None) -> int | None:
    return None if a is None else max(0, a - (b or 0))


def _text(obj: Any, *keys: str) -> str | None:
    v = get_path(obj, *keys)
    return v[:200] if isinstance(v, str) and v else None


def harbor_tokens(ctx: Any, where: str, notes: list[str], includes_cache: bool | None) -> Tokens:
    """Harbor's `AgentContext` (or `ModelUsage`) as disjoint buckets: uncached input = input - cache."""
    if not isinstance(ctx, dict):
        return Tokens()
    n_in = token_count(ctx.get("n_input_tokens"), f"{where}.n_input_tokens", notes)
    n_cache = token_count(ctx.get("n_cache_tokens"), f"{where}.n_cache_tokens", notes)
    return Tokens(
        n_in if includes_cache is False else _sub(n_in, n_cache),
        n_cache,
        None,
        token_count(ctx.get("n_output_tokens"), f"{where}.n_output_tokens", notes),
        usd_amount(ctx.get("cost_usd"), f"{where}.cost_usd", notes),
    )


def _json_lines(text: str, needle: str, where: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{") and needle in line:
            try:
                obj = parse_json_bounded(line.encode("utf-8"), where)
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


def claude_code_totals(text: str, where: str, notes: list[str]) -> tuple[Tokens, dict[str, Tokens]] | None:
    """Totals from Claude Code's final stream-json `result` line."""
    results = [o for o in _json_lines(text, '"result"', where) if o.get("type") == "result"]
    if not results:
        return None
    last = results[-1]
    u: dict[str, Any] = last["usage"] if isinstance(last.get("usage"), dict) else {}
    tokens = Tokens(
        token_count(u.get("input_tokens"), f"{where}: usage.input_tokens", notes),
        token_count(u.get("cache_read_input_tokens"), f"{where}: usage.cache_read_input_tokens", notes),
        token_count(
            u.get("cache_creation_input_tokens"), f"{where}: usage.cache_creation_input_tokens", notes
        ),
        token_count(u.get("output_tokens"), f"{where}: usage.output_tokens", notes),
        usd_amount(last.get("total_cost_usd"), f"{where}: total_cost_usd", notes),
    )
    by_model: dict[str, Tokens] = {}
    models = last.get("modelUsage")
    for name, m in models.items() if isinstance(models, dict) else []:
        if isinstance(m, dict) and len(by_model) < 32:
            w = f"{where}: modelUsage.{str(name)[:60]}"
            by_model[str(name)[:200]] = Tokens(
                token_count(m.get("inputTokens"), w, notes),
                token_count(m.get("cacheReadInputTokens"), w, notes),
                token_count(m.get("cacheCreationInputTokens"), w, notes),
                token_count(m.get("outputTokens"), w, notes),
                usd_amount(m.get("costUSD"), w, notes),
            )
    return tokens, by_model


def codex_totals(text: str, where: str, notes: list[str]) -> Tokens | None:
    """Totals from Codex CLI's last `token_count` event (`info.total_token_usage`)."""
    found = None
    for event in _json_lines(text, "token_count", where):
        payload = event.get("payload") if isinstance(event.get("payload"), dict) else event.get("msg")
        total = get_path(payload, "info", "total_token_usage")
        if isinstance(payload, dict) and payload.get("type") == "token_count" and isinstance(total, dict):
            found = total
    if found is None:
        return None
    w = f"{where}: total_token_usage"
    n_in = token_count(found.get("input_tokens"), f"{w}.input_tokens", notes)
    cached = token_count(found.get("cached_input_tokens"), f"{w}.cached_input_tokens", notes)
    write = token_count(found.get("cache_write_input_tokens"), f"{w}.cache_write_input_tokens", notes)
    return Tokens(
        _sub(_sub(n_in, cached), write),
        cached,
        write,
        token_count(found.get("output_tokens"), f"{w}.output_tokens", notes),
        None,
    )


def gemini_totals(text: str, where: str, notes: list[str]) -> tuple[Tokens, dict[str, Tokens]] | None:
    """Totals from Gemini CLI's final JSON output (`stats.models.<model>.tokens`), summed over models."""
    candidates: list[str] = []
    end = len(text)
    while (
        len(candidates) < 20 and (start := text.rfind("\n{", 0, end)) >= 0
    ):  # the final object starts a line
        candidates.append(text[start + 1 :])
        end = start
    if text.lstrip().startswith("{"):
        candidates.append(text.lstrip())
    stats = None
    for chunk in candidates:
        try:
            obj = parse_json_bounded(chunk.encode("utf-8"), where)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(get_path(obj, "stats", "models"), dict):
            stats = obj["stats"]["models"]
            break
    if stats is None:
        return None
    by_model: dict[str, Tokens] = {}
    for name, m in list(stats.items())[:32]:
        t = get_path(m, "tokens")
        if not isinstance(t, dict):
            continue
        w = f"{where}: stats.models.{str(name)[:60]}.tokens"
        prompt, cached = token_count(t.get("prompt"), w, notes), token_count(t.get("cached"), w, notes)
        out, thoughts = token_count(t.get("candidates"), w, notes), token_count(t.get("thoughts"), w, notes)
        by_model[str(name)[:200]] = Tokens(
            _sub(prompt, cached), cached, None, None if out is None else out + (thoughts or 0), None
        )
    return summed(by_model.values(), None), by_model


def _codex_text(job: JobDir, trial: str) -> str:
    texts = [read_log_tail(job, (trial, "agent", "codex.txt")) or ""]
    stack: list[tuple[str, ...]] = [(trial, "agent", "sessions")]
    files: list[tuple[str, ...]] = []
    while stack and len(files) < MAX_SESSION_FILES:
        parts = stack.pop()
        if len(parts) > 8:
            continue
        for name in job.listdir(*parts):
            if name.startswith("rollout-") and name.endswith(".jsonl"):
                files.append((*parts, name))
            elif job.is_dir(*parts, name):
                stack.append((*parts, name))
    for parts in sorted(files)[-MAX_SESSION_FILES:]:
        texts.append(read_log_tail(job, parts) or "")
    return "\n".join(texts)


def harness_totals(job: JobDir, trial: str, notes: list[str]) -> tuple[str, Tokens, dict[str, Tokens]] | None:
    """(source, totals, per model) from the first harness log found in the trial's `agent/` folder."""
    names = set(job.listdir(trial, "agent"))
    if "claude-code.txt" in names:
        text = read_log_tail(job, (trial, "agent", "claude-code.txt"))
        found = claude_code_totals(text or "", f"{trial}/agent/claude-code.txt", notes)
        if found:
            return "claude-code stream-json result", found[0], found[1]
    if "codex.txt" in names or "sessions" in names:
        tokens = codex_totals(_codex_text(job, trial), f"{trial}/agent (codex)", notes)
        if tokens:
            return "codex-cli token_count", tokens, {}
    if "gemini-cli.txt" in names:
        text = read_log_tail(job, (trial, "agent", "gemini-cli.txt"))
        found = gemini_totals(text or "", f"{trial}/agent/gemini-cli.txt", notes)
        if found:
            return "gemini-cli stats", found[0], found[1]
    return store_totals(job, trial, notes)


def trial_usage(
    job: JobDir, trial: str, result: dict[str, Any], *, harbor_version: str | None = None
) -> TrialUsage:
    """The usage of one trial (module docstring); never raises for bad content."""
    notes: list[str] = []
    where = f"{trial}/result.json: agent_result"
    includes = (
        "schema_version" in result
        or isinstance(get_path(result, "agent_result", "model_usage"), dict)
        or None
    )
    ctx = result.get("agent_result")
    h_tokens = harbor_tokens(ctx, where, notes, includes)
    h_models: dict[str, Tokens] = {}
    mu = get_path(ctx, "model_usage")
    for name, m in list(mu.items())[:32] if isinstance(mu, dict) else []:
        h_models[str(name)[:200]] = harbor_tokens(m, f"{where}.model_usage.{str(name)[:60]}", notes, includes)
    raw = (
        {k: ctx.get(k) for k in ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd")}
        if isinstance(ctx, dict)
        else {}
    )
    source, tokens, by_model = "harbor result.json", h_tokens, h_models
    found = harness_totals(job, trial, notes)
    if found:
        source, tokens, log_models = found
        if log_models:  # the per-model figures cover subagents too: the totals are their sums
            tokens = summed(log_models.values(), tokens.cost_usd)
        if tokens.cost_usd is None:
            tokens.cost_usd = h_tokens.cost_usd
        by_model = log_models or h_models
    if tokens.empty:
        source = "none"
    exc = result.get("exception_info")
    return TrialUsage(
        agent=_text(result, "agent_info", "name") or "unknown",
        agent_version=_text(result, "agent_info", "version"),
        model=_text(result, "config", "agent", "model_name")
        or _text(result, "agent_info", "model_info", "name")
        or "none",
        harbor_version=harbor_version,
        source=source,
        tokens=tokens,
        by_model=by_model,
        harbor=raw,
        input_includes_cache=includes,
        agent_started=_text(result, "agent_execution", "started_at"),
        agent_finished=_text(result, "agent_execution", "finished_at"),
        errored=isinstance(exc, dict),
        exception_type=_text(exc, "exception_type"),
        notes=notes[:20],
    )
