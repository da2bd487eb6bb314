"""Run validated rubric items against one video: python checks, llm questions and compound items.

- **python**: the check kind runs on the task's shared `MediaFacts`; its evidence is the item's reason. A kind that
  raises fails the item (`error in <kind>: ...`); an unknown kind is a `RubricError` (D-C4), normally caught
  earlier by `parse_rubric(known_kinds=...)`.
- **llm**: one judge question with the item's `prompt` (or `criterion`).
- **compound**: stages run in order. A python stage saves its evidence under `save_as` (or its kind name); if it
  fails, the item fails at once with "python stage '<kind>' failed: <evidence>". The FIRST llm stage's prompt is
  filled from the saved evidence and its verdict is the item's result; later stages are ignored. With no llm
  stage the item passes iff every python stage passed; an empty `stages` list passes.

Placeholder filling (D-C2 fixed): `{name}` is replaced by the evidence saved under `name`; `{{` and `}}` become
literal braces (str.format's escapes); every other brace (JSON examples, unknown names, a lone `{`) stays
literal. Upstream used `str.format`, which left the WHOLE prompt raw when any name was missing and crashed the
task on a lone brace; here known names are always filled and nothing raises.

Each judged item (llm, or a compound item's llm stage) is routed to a modality (`judge.routing.route_item`: visual,
audio, audio_visual or video) from its dispatch, its python stages' kinds and its text; the route travels with the
request and is recorded in the item's detail. A negative-weight item's request names the outcome that deducts
(`fires_on`), which the `violation` profile needs.

Python checks run first, sequentially (they share memoised media facts); then every llm question goes to the
judge in one concurrent batch.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from agenticvbench.errors import ToolError
from agenticvbench.judge.client import JudgeCall, JudgeRequest
from agenticvbench.judge.routing import Route, route_item
from agenticvbench.verifiers.recap.detail import OfficialItem, RecapItemDetail
from agenticvbench.verifiers.recap.rubric import Outcome, RubricError, RubricItem

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")


class _Judge(Protocol):
    def judge_many(self, requests: list[JudgeRequest]) -> list[JudgeCall]: ...


@dataclass(kw_only=True, frozen=True)
class KindBackend:
    """Where python checks come from (injectable for tests): the kind runner and its companions."""

    run_kind: Callable[[str, dict[str, Any], Any], Any]  # -> object with .passed, .evidence, .error
    make_facts: Callable[[Path, Path | None], Any]  # (video, cache_dir) -> MediaFacts
    known_kinds: frozenset[str] | None = None  # None: checked only when a kind runs
    unknown_kind_errors: tuple[type[BaseException], ...] = ()
    loudness_facts: Callable[[Any], Mapping[str, Any]] | None = None
    kind_needs: Callable[[str, dict[str, Any]], set[tuple[Any, ...]]] | None = None  # -> MediaFacts.expect


def default_backend() -> KindBackend:
    """The real check kinds (`verifiers.recap.kinds`, `verifiers.recap.media_facts`), imported on first use."""
    kinds = importlib.import_module("agenticvbench.verifiers.recap.kinds")
    media_facts = importlib.import_module("agenticvbench.verifiers.recap.media_facts")
    return KindBackend(
        run_kind=kinds.run_kind,
        make_facts=lambda path, cache_dir: media_facts.MediaFacts(path, cache_dir=cache_dir),
        known_kinds=frozenset(kinds.KINDS),
        unknown_kind_errors=(kinds.UnknownKindError,),
        loudness_facts=kinds.loudness_facts,
        kind_needs=kinds.kind_needs,
    )


def fill_placeholders(template: str, evidence: Mapping[str, str]) -> str:
    """Fill `{name}` from `evidence`; `{{`/`}}` become braces; anything else stays literal (never raises)."""

    def sub(m: re.Match[str]) -> str:
        token = m.group(0)
        if token in ("{{", "}}"):
            return token[0]
        name = m.group(1)
        return str(evidence[name]) if name in evidence else token

    return _PLACEHOLDER.sub(sub, template)


def placeholder_names(template: str) -> set[str]:
    """The `{name}` placeholders `fill_placeholders` would fill in `template` (escaped `{{`/`}}` excluded)."""
    return {m.group(1) for m in _PLACEHOLDER.finditer(template) if m.group(1)}


def upstream_fill_note(template: str, evidence: Mapping[str, str]) -> str | None:
    """How upstream's `template.format(**evidence)` would have differed from `fill_placeholders` (None: same)."""
    try:
        template.format(**evidence)
    except (KeyError, IndexError):
        return "upstream would have sent this prompt unfilled (a placeholder has no saved evidence)"
    except Exception:  # ValueError for a lone brace, AttributeError, ...: upstream crashed here
        return "upstream str.format would have crashed the whole task on this prompt's braces (D-C2, fixed)"
    return None


@dataclass(kw_only=True)
class ItemResult:
    """One item's outcome, reason, saved evidence (compound) and judge call (llm)."""

    item: RubricItem
    outcome: Outcome
    reason: str
    evidence: dict[str, str] = field(default_factory=dict)
    judge: JudgeCall | None = None
    judge_prompt: str | None = None
    route: Route | None = None
    notes: list[str] = field(default_factory=list)  # where we knowingly differ from upstream for this item

    @property
    def passed(self) -> bool | None:
        """True/False, or None when unscored."""
        return None if self.outcome == "unscored" else self.outcome == "pass"

    def official(self) -> OfficialItem:
        """The item row of the official recap JSON (reason cut to 300 characters; unscored: passed/score null)."""
        it = self.item
        return {
            "item_id": it.id,
            "dispatch": it.dispatch,
            "weight": it.weight,
            "pillar": it.pillar,
            "passed": self.passed,
            "score": None if self.passed is None else int(self.passed),
            "reason": self.reason[:300],
        }

    def detail(self) -> RecapItemDetail:
        """Everything known about the item, for a result's `detail`."""
        d: RecapItemDetail = {
            **self.official(),
            "outcome": self.outcome,
            "kind": self.item.kind,
            "pillar_name": self.item.pillar_name,
            "reason": self.reason,
        }
        if self.evidence:
            d["evidence"] = dict(self.evidence)
        if self.judge_prompt is not None:
            d["judge_prompt"] = self.judge_prompt
        if self.route is not None:
            d["route"] = self.route.to_dict()
        if self.notes:
            d["notes"] = list(self.notes)
        if self.judge is not None:
            d["judge"] = {
                k: v for k, v in self.judge.to_dict().items() if k not in ("item_id", "outcome", "reason")
            }
        return d


@dataclass
class RunReport:
    """All item results (rubric order) and how long each phase took."""

    results: list[ItemResult]
    timings: dict[str, float]


def _run_check(
    kind: str, params: dict[str, Any], facts: Any, backend: KindBackend, item: RubricItem
) -> tuple[bool, str]:
    """(passed, evidence) of one python check; exceptions fail the check, an unknown kind is a RubricError."""
    try:
        res = backend.run_kind(kind, {k: v for k, v in params.items() if v is not None}, facts)
    except backend.unknown_kind_errors as exc:
        raise RubricError(f"item #{item.index} ('{item.id}'): unknown kind '{kind}' ({exc})") from None
    except ToolError:
        raise  # the scorer's tool failed: the task is an `error`, never a failed check
    except Exception as exc:
        return False, f"error in {kind}: {exc}"
    evidence = str(getattr(res, "evidence", "") or "")
    error = str(getattr(res, "error", "") or "")  # already "error in <kind>: ..." (the run_kind contract)
    if error:
        evidence = f"{evidence}; {error}" if evidence else error
    return bool(getattr(res, "passed", False)), evidence


def _run_compound(
    item: RubricItem, facts: Any, backend: KindBackend
) -> ItemResult | tuple[dict[str, str], str, list[str]]:
    """Run the python stages; returns a finished result, or (evidence, filled prompt, notes) for the judge."""
    evidence: dict[str, str] = {}
    for stage in item.stages:
        if stage.dispatch == "python":
            assert stage.kind is not None
            ok, ev = _run_check(stage.kind, stage.params, facts, backend, item)
            evidence[stage.save_as or stage.kind] = ev
            if not ok:
                return ItemResult(
                    item=item,
                    outcome="fail",
                    reason=f"python stage '{stage.kind}' failed: {ev}",
                    evidence=evidence,
                )
        else:
            template = stage.prompt or ""
            note = upstream_fill_note(template, evidence)
            return evidence, fill_placeholders(template, evidence), [note] if note else []
    if not item.stages:
        return ItemResult(item=item, outcome="pass", reason="no stages", evidence=evidence)
    return ItemResult(
        item=item,
        outcome="pass",
        reason="all python stages passed: " + "; ".join(evidence.values()),
        evidence=evidence,
    )


def _declare_needs(items: list[RubricItem], facts: Any, backend: KindBackend) -> None:
    """Tell `facts` every whole-file measurement the python checks will read, so each pass runs once."""
    expect = getattr(facts, "expect", None)
    if backend.kind_needs is None or expect is None:
        return
    needs: set[tuple[Any, ...]] = set()
    for item in items:
        checks = (
            [(item.kind, item.params)]
            if item.dispatch == "python"
            else [(s.kind, s.params) for s in item.stages if s.dispatch == "python"]
            if item.dispatch == "compound"
            else []
        )
        for kind_name, params in checks:
            if kind_name is not None:
                needs |= backend.kind_needs(kind_name, params or {})
    expect(needs)


def judge_request(item: RubricItem, prompt: str) -> JudgeRequest:
    """The judge request of a judged item: its filled prompt, its route and, for a negative item, the outcome
    that deducts."""
    kinds = [s.kind for s in item.stages if s.dispatch == "python" and s.kind]
    route = route_item(item.dispatch, kinds, f"{prompt}\n{item.criterion or ''}")
    fires_on: Outcome | None = None
    if item.weight < 0:
        fires_on = "pass" if item.deducts("pass") else "fail"
    return JudgeRequest(item.id, prompt, route=route, fires_on=fires_on)


def run_rubric(items: list[RubricItem], *, facts: Any, judge: _Judge, backend: KindBackend) -> RunReport:
    """Run every item (python first, then one concurrent judge batch); raises RubricError for an unknown kind."""
    t0 = time.perf_counter()
    _declare_needs(items, facts, backend)
    done: dict[int, ItemResult] = {}
    pending: list[tuple[int, JudgeRequest, dict[str, str], list[str]]] = []
    for i, item in enumerate(items):
        if item.dispatch == "python":
            assert item.kind is not None
            ok, ev = _run_check(item.kind, item.params, facts, backend, item)
            done[i] = ItemResult(item=item, outcome="pass" if ok else "fail", reason=ev)
        elif item.dispatch == "llm":
            pending.append((i, judge_request(item, item.prompt or ""), {}, []))
        elif item.dispatch == "compound":
            res = _run_compound(item, facts, backend)
            if isinstance(res, ItemResult):
                done[i] = res
            else:
                pending.append((i, judge_request(item, res[1]), res[0], res[2]))
        else:  # parse_rubric never lets one through
            raise RubricError(f"item #{item.index} ('{item.id}'): unknown dispatch {item.dispatch!r}")
    t1 = time.perf_counter()
    calls = judge.judge_many([req for _, req, _, _ in pending])
    for (i, req, evidence, notes), call in zip(pending, calls, strict=True):
        done[i] = ItemResult(
            item=items[i],
            outcome=call.outcome,
            reason=call.reason,
            evidence=evidence,
            judge=call,
            judge_prompt=req.prompt,
            route=req.route,
            notes=notes,
        )
    t2 = time.perf_counter()
    return RunReport([done[i] for i in range(len(items))], {"python_s": t1 - t0, "judge_s": t2 - t1})
