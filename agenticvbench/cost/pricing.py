"""Agent cost: token usage per trial (kept by `avb import harbor`) priced with a versioned list-price table.

Prices are USD per 1M tokens in four buckets (input, cache_read, cache_write, output). Two tables are shipped:
`paper` (the default, `agent_prices.json`: the paper's Table 7) and `vendors` (`vendor_prices.json`: vendors' list
prices for models the paper did not run); any file of the same shape can be given instead. A model is matched by
its name with every provider prefix (`openrouter/qwen/`) and a trailing date (`-20250805`, `-2025-08-05`) removed,
against the table's ids and aliases; nothing fuzzier, so a model that is not listed is *unpriced*, never $0. A trial whose usage has a
per-model breakdown is priced model by model (subagents often run a cheaper model); it is unpriced if any of its
models is. A trial without usage is *missing*, never free. A cache-write bucket that was not reported (Harbor's
totals alone have none) counts 0 tokens, and the row says how many trials reported it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from agenticvbench.cost.tokens import BUCKETS, tokens_from_dict
from agenticvbench.dataset.tasks import FAMILIES, FAMILY_ID_RANGES
from agenticvbench.errors import ConfigError
from agenticvbench.fsutil import parse_json_bounded, read_capped
from agenticvbench.sanitize import one_line

PRICE_KEYS = ("input", "cache_read", "cache_write", "output")
MAX_PRICES_BYTES = 1024 * 1024
_DATE = re.compile(r"(?:[-@]20\d{6}|-20\d{2}-\d{2}-\d{2})$")
#: The shipped tables by name (`--prices NAME`); the first is the default.
NAMED_TABLES = {"paper": "agent_prices.json", "vendors": "vendor_prices.json"}
DEFAULT_TABLE = "paper"


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens in each bucket."""

    input: float
    cache_read: float
    cache_write: float
    output: float
    source: str = ""

    def cost(self, tokens: Mapping[str, int | None]) -> float:
        """Cost of disjoint token buckets (`cost.tokens.BUCKETS` names; None counts 0)."""
        rates = (self.input, self.cache_read, self.cache_write, self.output)
        return sum((tokens.get(b) or 0) * r for b, r in zip(BUCKETS, rates, strict=True)) / 1e6


@dataclass
class PriceTable:
    """A price table: its version, where it came from, and the models it prices."""

    version: str
    origin: str
    models: dict[str, Price]
    aliases: dict[str, str] = field(default_factory=dict)
    sources: dict[str, Any] = field(default_factory=dict)

    def lookup(self, model: str) -> tuple[str, Price] | None:
        """(table id, price) of a model name, or None when it is unpriced (matching rule in the module docstring)."""
        name = model.strip().lower().rsplit("/", 1)[-1]
        for cand in (name, _DATE.sub("", name)):
            key = cand if cand in self.models else self.aliases.get(cand)
            if key:
                return key, self.models[key]
        return None

    @property
    def label(self) -> str:
        """'prices <version> (<origin>)'."""
        return f"prices {self.version} ({self.origin})"


MAX_MODELS = 10_000
MAX_NAME = 200
MAX_RATE = 1e6  # USD per 1M tokens: far above any list price, low enough that no sum can overflow
_ENTRY_KEYS = (*PRICE_KEYS, "source", "aliases")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _shown(value: Any) -> str:
    return one_line(repr(value)[:60])


def _rate(value: Any, where: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not 0 <= value <= MAX_RATE
    ):
        raise ConfigError(
            f"{where}: must be a number of USD per 1M tokens from 0 to {MAX_RATE:g}, got {_shown(value)}"
        )
    return float(value)


def _name(value: Any, where: str, what: str = "a model name", *, lower: bool = True) -> str:
    """A one-line name of 1 to `MAX_NAME` characters (lower-cased unless `lower` is False); `ConfigError`
    naming `where` otherwise."""
    if not isinstance(value, str) or not 0 < len(value.strip()) <= MAX_NAME or _CONTROL.search(value):
        raise ConfigError(f"{where}: must be {what} (one line, 1-{MAX_NAME} characters), got {_shown(value)}")
    return value.strip().lower() if lower else value.strip()


def _text(data: dict[str, Any], key: str, where: str, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or len(value) > 4000:
        raise ConfigError(f"{where}: field '{key}' must be a string of at most 4000 characters")
    return one_line(value)


def _sources(value: Any, origin: str) -> dict[str, dict[str, str]]:
    if value is None:
        return {}
    if not isinstance(value, dict) or len(value) > MAX_MODELS:
        raise ConfigError(f"{origin}: field 'sources' must be an object of source name -> description")
    out: dict[str, dict[str, str]] = {}
    for name, entry in value.items():
        where = f"{origin}: field 'sources.{one_line(str(name)[:60])}'"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where} must be an object of strings")
        out[_name(name, where, "a source name", lower=False)] = {
            _name(k, where, "a field name", lower=False): _text(entry, k, where) for k in entry
        }
    return out


def parse_prices(data: Any, origin: str) -> PriceTable:
    """The one reader of a price document (`agent_prices.json` shape), strict: rates are numbers from 0 to
    `MAX_RATE`, ids, aliases and source names one-line strings, `aliases` a list, no unknown field in a model
    entry (a typo would otherwise price a bucket at 0), no alias naming two models, currency USD. `ConfigError`
    names the file and the field."""
    if not isinstance(data, dict):
        raise ConfigError(f"{origin}: must be a JSON object with a field 'models'")
    if data.get("currency", "USD") != "USD":
        raise ConfigError(f"{origin}: field 'currency' must be \"USD\", got {_shown(data.get('currency'))}")
    raw = data.get("models")
    if not isinstance(raw, dict) or not raw or len(raw) > MAX_MODELS:
        raise ConfigError(f"{origin}: field 'models' must be an object of 1-{MAX_MODELS} model id -> prices")
    models: dict[str, Price] = {}
    aliases: dict[str, str] = {}
    for mid, entry in raw.items():
        where = f"{origin}: field 'models.{one_line(str(mid)[:60])}"
        key = _name(mid, where + "'", "a model id")
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}' must be an object")
        unknown = sorted(k for k in entry if k not in _ENTRY_KEYS)
        if unknown:
            raise ConfigError(
                f"{where}.{one_line(str(unknown[0])[:60])}' is not a price field (expected {', '.join(_ENTRY_KEYS)})"
            )
        rates = {k: _rate(entry.get(k), f"{where}.{k}'") for k in PRICE_KEYS}
        models[key] = Price(**rates, source=_text(entry, "source", where + "'")[:MAX_NAME])
        names = entry.get("aliases", [])
        if not isinstance(names, list) or len(names) > 1000:
            raise ConfigError(f"{where}.aliases' must be a list of model names, got {_shown(names)}")
        for i, alias in enumerate(names):
            name = _name(alias, f"{where}.aliases[{i}]'")
            if aliases.get(name, key) != key:
                raise ConfigError(f"{where}.aliases[{i}]': {name!r} is already an alias of {aliases[name]!r}")
            aliases[name] = key
    clash = sorted(a for a, k in aliases.items() if a in models and a != k)
    if clash:
        raise ConfigError(f"{origin}: alias {clash[0]!r} is also a model id")
    version = data.get("version", "unversioned")
    if not isinstance(version, str):
        raise ConfigError(f"{origin}: field 'version' must be a string, got {_shown(version)}")
    return PriceTable(
        _name(version, f"{origin}: field 'version'", "a version", lower=False),
        origin,
        models,
        aliases,
        _sources(data.get("sources"), origin),
    )


def load_prices(path: str | Path | None = None) -> PriceTable:
    """A shipped table by name (`NAMED_TABLES`; None = the paper's), or the one in the file `path` (bounded read;
    `ConfigError` when it is not a price table). A name wins over a file of that name in the current folder (give its full path)."""
    name = DEFAULT_TABLE if path is None else str(path)
    if name in NAMED_TABLES:
        fname = NAMED_TABLES[name]
        text = resources.files("agenticvbench.cost").joinpath(fname).read_text(encoding="utf-8")
        return parse_prices(json.loads(text), f"agenticvbench/cost/{fname}")
    try:
        data = parse_json_bounded(read_capped(name, MAX_PRICES_BYTES), name)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: not a readable price table ({exc})") from None
    return parse_prices(data, str(path))


@dataclass(kw_only=True)
class TrialCost:
    """One trial's usage and cost."""

    harness: str
    model: str
    rep: str
    task_id: int
    family: str
    usage: dict[str, Any] | None  # `cost.usage.TrialUsage` dict; None = no usage recorded
    cost_usd: float | None = None
    unpriced: list[str] = field(default_factory=list)  # model names without a price

    @property
    def tokens(self) -> dict[str, Any]:
        """The usage's token buckets and reported cost, as recorded ({} without usage)."""
        return (self.usage or {}).get("tokens") or {}

    @property
    def has_usage(self) -> bool:
        """True when any token bucket is known."""
        return any(self.tokens.get(b) is not None for b in BUCKETS)


def family_of(task_id: int) -> str:
    """The family a global task id belongs to ('unknown' outside the published ranges)."""
    return next((f for f, ids in FAMILY_ID_RANGES.items() if task_id in ids), "unknown")


def price_trial(trial: TrialCost, table: PriceTable) -> None:
    """Fill `cost_usd` / `unpriced` of a trial with usage (rules in the module docstring)."""
    if not trial.has_usage:
        return
    usage = trial.usage or {}
    by_model = {m: tokens_from_dict(t) for m, t in (usage.get("by_model") or {}).items()}
    parts = [(m, asdict(t)) for m, t in by_model.items() if any(getattr(t, b) is not None for b in BUCKETS)]
    if not parts:
        parts = [(trial.model, asdict(tokens_from_dict(usage.get("tokens"))))]
    total = 0.0
    for model, tokens in parts:
        found = table.lookup(model)
        if found is None:
            trial.unpriced.append(model)
        else:
            total += found[1].cost(tokens)
    trial.cost_usd = None if trial.unpriced else total


@dataclass(kw_only=True)
class CostRow:
    """One row of `avb cost`: a (harness, model) over one slice (a family, or 'all')."""

    harness: str
    model: str
    slice: str
    trials: int
    extracted: int  # trials with usage
    missing: int
    errored: int
    tokens: dict[str, int]
    cache_write_reported: int
    cost_usd: float | None  # None: some trial with usage is unpriced (or no trial has usage)
    unpriced_trials: int
    unpriced_models: list[str]
    reported_cost_usd: float | None  # the harness's / Harbor's own figure, summed where reported
    reported_trials: int

    @property
    def total_tokens(self) -> int:
        """Sum of the four buckets."""
        return sum(self.tokens.values())

    @property
    def cost_per_trial(self) -> float | None:
        """Cost over the trials with usage."""
        return None if self.cost_usd is None or not self.extracted else self.cost_usd / self.extracted


def cost_rows(trials: Iterable[TrialCost]) -> list[CostRow]:
    """Rows per (harness, model) x (each family, then 'all'), in harness/model then benchmark family order."""
    groups: dict[tuple[str, str], list[TrialCost]] = {}
    for t in trials:
        groups.setdefault((t.harness, t.model), []).append(t)
    rows = []
    for (harness, model), ts in sorted(groups.items()):
        fams = [f for f in (*FAMILIES, "unknown") if any(t.family == f for t in ts)]
        for sl in [*fams, "all"]:
            rows.append(cost_row(harness, model, sl, [t for t in ts if sl in ("all", t.family)]))
    return rows


def cost_row(harness: str, model: str, sl: str, ts: Sequence[TrialCost]) -> CostRow:
    """The `CostRow` of the trials `ts` (their tokens and cost summed over the trials with usage)."""
    used = [t for t in ts if t.has_usage]
    unpriced = [t for t in used if t.unpriced]
    reported = [float(t.tokens["cost_usd"]) for t in used if t.tokens.get("cost_usd") is not None]
    return CostRow(
        harness=harness,
        model=model,
        slice=sl,
        trials=len(ts),
        extracted=len(used),
        missing=len(ts) - len(used),
        errored=sum(1 for t in ts if (t.usage or {}).get("errored")),
        tokens={b: sum(int(t.tokens.get(b) or 0) for t in used) for b in BUCKETS},
        cache_write_reported=sum(1 for t in used if t.tokens.get("cache_write_tokens") is not None),
        cost_usd=None if unpriced or not used else sum(t.cost_usd or 0.0 for t in used),
        unpriced_trials=len(unpriced),
        unpriced_models=sorted({m for t in unpriced for m in t.unpriced}),
        reported_cost_usd=sum(reported) if reported else None,
        reported_trials=len(reported),
    )
