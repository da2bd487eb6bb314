"""OpenVibe `bench.benchmark@1`: the shipped JSON Schema, `validate()`, and the AgenticVBench export.

The schema (`schemas/bench.benchmark@1.schema.json`, draft 2020-12) follows the contract's field table; its `$defs`
are decided from the contract's three fixtures and documented in docs/interop.md. `validate()` answers like the
contract's own `validate()`: `{"valid": bool, "errors": [{"path", "message"}]}`, with `path` a JSON pointer to the
offending field (for a missing or unknown field, the pointer names that field). Beyond the schema it checks what a
schema cannot say: task ids and judge types are unique, every scoring weight names a judge, scale.min < scale.max.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator, ValidationError

from agenticvbench.dataset.tasks import FAMILIES, AssemblyTask, RecapTask, RepairTask, SequencingTask, Task
from agenticvbench.errors import AVBError
from agenticvbench.fsutil import atomic_write_text, text_sha256
from agenticvbench.interop.studiobench_task import json_pointer
from agenticvbench.interop.ulid import new_ulid
from agenticvbench.verifiers import headline_field

SCHEMA_NAME = "bench.benchmark@1"
SCHEMA_RESOURCE = "schemas/bench.benchmark@1.schema.json"
PUBLISHED_RESOURCE = "published.json"
JUDGE_PREFIX = "agenticvbench."
RecapRubricMode = Literal["full", "digest"]


class InvalidDocumentError(AVBError):
    """An export produced a document that fails `bench.benchmark@1` validation (nothing was written)."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        shown = "; ".join(f"{e['path'] or '/'}: {e['message']}" for e in errors[:5])
        super().__init__(f"{SCHEMA_NAME} document is invalid ({len(errors)} errors): {shown}")


def _resource_text(name: str) -> str:
    return (resources.files("agenticvbench.interop") / name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    """The shipped `bench.benchmark@1` JSON Schema (package data)."""
    return json.loads(_resource_text(SCHEMA_RESOURCE))


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    checker = Draft202012Validator.FORMAT_CHECKER
    # needs rfc3339-validator; without it date-time is silently unchecked
    if "date-time" not in checker.checkers:
        raise RuntimeError("jsonschema cannot check 'date-time' (is rfc3339-validator installed?)")
    return Draft202012Validator(schema, format_checker=checker)


def _issues(error: ValidationError) -> list[dict[str, str]]:
    """One `{path, message}` per problem; missing and unknown fields get a pointer to the field itself."""
    base = list(error.absolute_path)
    inst = error.instance
    if error.validator == "required" and isinstance(inst, dict):
        missing = [p for p in error.validator_value if p not in inst and error.message.startswith(repr(p))]
        if missing:
            return [{"path": json_pointer(*base, missing[0]), "message": "required field is missing"}]
    if (
        error.validator == "additionalProperties"
        and isinstance(inst, dict)
        and error.validator_value is False
    ):
        known = set(error.schema.get("properties", {}))
        if extra := [k for k in inst if k not in known]:
            unknown = "unknown field (additional properties are not allowed)"
            return [{"path": json_pointer(*base, k), "message": unknown} for k in extra]
    return [{"path": json_pointer(*base), "message": error.message}]


def _semantic_errors(doc: dict[str, Any]) -> list[dict[str, str]]:
    errors: list[dict[str, str]] = []

    def error(message: str, *path: str | int) -> None:
        errors.append({"path": json_pointer(*path), "message": message})

    seen: set[Any] = set()
    for i, t in enumerate(doc.get("tasks") or []):
        tid = t.get("id") if isinstance(t, dict) else None
        if isinstance(tid, str) and tid in seen:
            error(f"duplicate task id {tid!r}", "tasks", i, "id")
        seen.add(tid)
    types: set[str] = set()
    for i, j in enumerate(doc.get("judges") or []):
        jt = j.get("type") if isinstance(j, dict) else None
        if isinstance(jt, str) and jt in types:
            error(f"duplicate judge type {jt!r}", "judges", i, "type")
        if isinstance(jt, str):
            types.add(jt)
    scoring = s if isinstance(s := doc.get("scoring"), dict) else {}
    weights = scoring.get("weights")
    if isinstance(weights, dict) and isinstance(doc.get("judges"), list):
        for key in weights:
            if key not in types:
                error(f"weight for {key!r}, which is not the type of any judge", "scoring", "weights", key)
    scale = scoring.get("scale")
    if isinstance(scale, dict):
        lo, hi = scale.get("min"), scale.get("max")
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lo, hi)) and not lo < hi:  # type: ignore[operator]
            error(f"expected min < max, got {lo}..{hi}", "scoring", "scale")
    return errors


def validate(doc: Any) -> dict[str, Any]:
    """Validate a `bench.benchmark@1` document: `{"valid": bool, "errors": [{"path", "message"}]}`."""
    errors: list[dict[str, str]] = []
    for err in _validator().iter_errors(doc):
        errors.extend(_issues(err))
    if isinstance(doc, dict):
        errors.extend(_semantic_errors(doc))
    errors.sort(key=lambda e: (e["path"], e["message"]))
    return {"valid": not errors, "errors": errors}


# --------------------------------------------------------------------------------------------- export


@lru_cache(maxsize=1)
def load_published() -> dict[str, Any]:
    """Published facts for the export (family weights, run limits, model x harness matrix) with their sources."""
    return json.loads(_resource_text(PUBLISHED_RESOURCE))


def verifier_version(family: str) -> str:
    """The registered verifier's `version` for `family`, or "unknown" when that verifier cannot be loaded.

    Any failure counts (the module may be missing or half-written while the suite is being built): the export
    must still work and says "unknown" rather than guessing.
    """
    try:
        from agenticvbench.verifiers import get_verifier

        version = str(get_verifier(family).version)
    except Exception:  # see docstring: a broken verifier must not break the export
        return "unknown"
    return version if 0 < len(version) <= 40 else "unknown"


def rfc3339_utc(moment: datetime) -> str:
    """`moment` as RFC 3339 UTC with milliseconds, e.g. `2026-10-30T12:00:00.000Z` (the fixtures' style)."""
    utc = moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def task_expected(task: Task, recap_rubric: RecapRubricMode = "full") -> dict[str, Any]:
    """What the family's verifier needs to score `task` (every AgenticVBench task is public, so it is shown).

    sequencing: the correct order; assembly: the correct pick per slot; repair: the ground-truth cell (plus the
    inline profile of a demo task, whose cell does not resolve against the shipped ground truth); recap: the rubric
    items (`full`), or their SHA-256 and count (`digest`) for a compact document.
    """
    if isinstance(task, SequencingTask):
        return {"correct_order": list(task.correct_order)}
    if isinstance(task, AssemblyTask):
        return {"correct_assembly_in_slot_order": list(task.correct_assembly_in_slot_order)}
    if isinstance(task, RepairTask):
        rubric = json.loads(task.rubric_json)
        out: dict[str, Any] = {"cell": task.cell}
        if isinstance(rubric, dict) and isinstance(rubric.get("profile"), dict):
            out["profile"] = rubric["profile"]
        return out
    if isinstance(task, RecapTask):
        if recap_rubric == "digest":
            return {"rubric_sha256": text_sha256(task.rubric_json), "n_items": len(task.items)}
        return {"rubric": task.items}
    raise TypeError(f"unknown task type {type(task).__name__}")


def judge_type(family: str) -> str:
    """The OpenVibe judge type for a family's verifier, e.g. `agenticvbench.sequencing`."""
    return JUDGE_PREFIX + family


def build_document(
    tasks: list[Task],
    *,
    owner: str | None = None,
    now: datetime | None = None,
    benchmark_id: str | None = None,
    recap_rubric: RecapRubricMode = "full",
    published: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The `bench.benchmark@1` document for `tasks` (one OpenVibe task per dataset row, one judge per family).

    `created_at` is `now` (default: the current time, UTC) and the id is `bmk_` + a fresh ULID stamped with the
    same instant, unless `benchmark_id` is given. Does not validate; `export_openvibe` does.
    """
    pub = published or load_published()
    moment = now or datetime.now(timezone.utc)
    if benchmark_id is None:
        benchmark_id = "bmk_" + new_ulid(math.floor(moment.timestamp() * 1000))
    ordered = sorted(tasks, key=lambda t: t.task_id)
    present = [f for f in FAMILIES if any(t.family == f for t in ordered)]
    sources = {json.dumps(t.source.provenance(), sort_keys=True) for t in ordered if t.source is not None}
    dataset = json.loads(next(iter(sources))) if len(sources) == 1 else None
    judges = []
    for fam in present:
        config: dict[str, Any] = {
            "family": fam,
            "verifier": f"agenticvbench.verifiers.{fam}",
            "score_field": headline_field(fam),
            "score_range": [0, 1],
            "multiplier": 100,
            "tasks": [f"{fam}-{t.task_id}" for t in ordered if t.family == fam],
        }
        if dataset is not None:
            config["dataset"] = dataset
        judges.append({"type": judge_type(fam), "version": verifier_version(fam), "config": config})
    limits = pub["limits"]
    return {
        "id": benchmark_id,
        "owner": owner or pub["owner"],
        "title": pub["title"],
        "description": pub["description"],
        "kind": pub["kind"],
        "tags": list(pub["tags"]),
        "visibility": pub["visibility"],
        "version": 1,
        "parent": None,
        "tasks": [
            {
                "id": f"{t.family}-{t.task_id}",
                "prompt": t.prompt,
                "holdout": False,
                "expected": task_expected(t, recap_rubric),
            }
            for t in ordered
        ],
        "judges": judges,
        "scoring": {
            "method": "mean",
            "scale": {"min": 0, "max": 100},
            "weights": {judge_type(f): pub["family_weights"][f] for f in present},
        },
        "limits": {
            "ms": None if limits["seconds"] is None else int(limits["seconds"] * 1000),
            "tokens": limits["tokens"],
            "usd": limits["usd"],
            "turns": limits["turns"],
        },
        "matrix": {"models": list(pub["matrix"]["models"]), "harnesses": list(pub["matrix"]["harnesses"])},
        "created_at": rfc3339_utc(moment),
    }


def export_openvibe(tasks: list[Task], out: str | Path | None = None, **kwargs: Any) -> dict[str, Any]:
    """Build, validate and (when `out` is given) atomically write the document; returns it.

    Raises `InvalidDocumentError` (and writes nothing) when the document fails validation.
    Keyword arguments go to `build_document`.
    """
    doc = build_document(tasks, **kwargs)
    report = validate(doc)
    if not report["valid"]:
        raise InvalidDocumentError(report["errors"])
    if out is not None:
        atomic_write_text(out, json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    return doc
