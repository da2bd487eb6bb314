"""Run identity: which (harness, model, rep) a run directory is, and where that came from.

Precedence: explicit values (`avb verify --harness/--model/--rep`, `verify_run(run_meta=...)`), then the run's
`run.json`, then the folder name as the model (harness "unknown"). Two distinct folders are always two runs
(results are keyed by folder); when two of them claim the same (harness, model, rep) in one comparison that is a
warning, and both stay separate runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

IDENTITY_KEYS = ("harness", "model", "rep")


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text or None


def run_identity(path: Path, meta: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
                 ) -> dict[str, Any]:
    """The `Result.run` block of a run: path, harness, model, rep, and `identity_source` per field."""
    overrides = overrides or {}
    info: dict[str, Any] = {"path": str(path)}
    sources: dict[str, str] = {}
    for key in IDENTITY_KEYS:
        given, recorded = _text(overrides.get(key)), _text(meta.get(key))
        if given is not None:  # a rep given as "2" is the int 2, as in run.json
            info[key] = int(given) if key == "rep" and given.isascii() and given.isdigit() else given
            sources[key] = "option"
        elif recorded is not None:
            info[key], sources[key] = (meta.get(key) if key == "rep" else recorded), "run.json"
        elif key == "model":
            info[key], sources[key] = Path(path).name, "folder name"
        elif key == "harness":
            info[key], sources[key] = "unknown", "default"
        else:
            info[key], sources[key] = None, "default"
    info["identity_source"] = sources
    return info


def duplicate_identities(runs: Iterable[tuple[str, str, Any, str]]) -> list[str]:
    """Warnings for distinct folders sharing one (harness, model, rep); input is (harness, model, rep, path)."""
    seen: dict[tuple[str, str, str], list[str]] = {}
    for harness, model, rep, path in runs:
        key = (str(harness), str(model), "" if rep is None else str(rep))
        if path not in seen.setdefault(key, []):
            seen[key].append(path)
    return [f"{len(paths)} different run folders claim harness {k[0]!r}, model {k[1]!r}, rep {k[2] or '-'!r}: "
            f"{', '.join(paths)}; they are kept as separate runs (set --rep or run.json to tell them apart)"
            for k, paths in seen.items() if len(paths) > 1]
