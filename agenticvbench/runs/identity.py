"""Run identity: which (harness, model, rep) a run directory is, and where that came from (`RunIdentity`).

One type, three uses: the engine resolves it for each run and writes it into every result (`Result.run`, via
`to_dict`), reports read it back from the results (`Result.identity`, via `from_dict`), and the report's run key
(`analysis.aggregate.RunRef`) is built from it.

Precedence when resolving: explicit values (`avb verify --harness/--model/--rep`, `verify_run(run_meta=...)`),
then the run's `run.json`, then the folder name as the model (harness "unknown"). Two distinct folders are always
two runs (results are keyed by folder); when two of them claim the same (harness, model, rep) in one comparison
that is a warning, and both stay separate runs.

The folder-name fallback has one implementation (`folder_model`): at verify time it names a run without a
declared model; when reading results back (`RunIdentity.named`) it also names a run recorded as model "unknown"
(results written before the fallback existed), so runs without a run.json never merge into one row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

IDENTITY_KEYS = ("harness", "model", "rep")
UNKNOWN = "unknown"
#: Where an identity field came from (`RunIdentity.source`).
SOURCES = ("option", "run.json", "folder name", "default")


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text or None


def folder_model(path: str | Path) -> str | None:
    """The model a run folder is named after: the last component of `path` (None for an empty path or `/`).

    A recorded path without a `/` but with a `\\` (written on Windows) is split at its backslashes, so a result
    read on another system names the same folder."""
    text = str(path)
    sep = "/" if "/" in text or "\\" not in text else "\\"
    return text.rstrip(sep).rsplit(sep, 1)[-1] or None


def _rep(value: Any) -> int | str | None:
    """A rep as stored: an int (not a bool), a string, or None (anything else from a crafted file)."""
    if isinstance(value, bool):
        return None
    if (
        isinstance(value, float) and value.is_integer() and abs(value) < 1e15
    ):  # JSON Schema: 1.0 is an integer
        return int(value)
    return value if isinstance(value, (int, str)) else None


@dataclass(kw_only=True, frozen=True)
class RunIdentity:
    """Which run a result belongs to: its folder (`path`, the key), harness, model and rep, and per field the
    source it was resolved from (`source`: pairs of field and one of `SOURCES`; empty for results written
    before sources were recorded). `recorded_path` is set by readers when the results were read from another
    folder than the one they name (a copied run)."""

    path: str
    harness: str = UNKNOWN
    model: str = UNKNOWN
    rep: int | str | None = None
    source: tuple[tuple[str, str], ...] = ()
    recorded_path: str | None = None

    @classmethod
    def resolve(
        cls, path: str | Path, declared: Any = None, overrides: Mapping[str, Any] | None = None
    ) -> RunIdentity:
        """The identity of the run at `path`: `overrides` (options) > `declared` (run.json: a `RunMeta` or a
        mapping; wrong types count as absent) > the folder name as the model, harness "unknown", rep None."""
        meta = (
            declared
            if isinstance(declared, Mapping)
            else {k: getattr(declared, k, None) for k in IDENTITY_KEYS}
        )
        overrides = overrides or {}
        values: dict[str, Any] = {}
        sources: list[tuple[str, str]] = []
        for key in IDENTITY_KEYS:
            given, recorded = _text(overrides.get(key)), _text(meta.get(key))
            if given is not None:  # a rep given as "2" is the int 2, as in run.json
                values[key] = int(given) if key == "rep" and given.isascii() and given.isdigit() else given
                sources.append((key, "option"))
            elif recorded is not None:
                values[key] = meta.get(key) if key == "rep" else recorded
                sources.append((key, "run.json"))
            elif key == "model" and (name := folder_model(path)) is not None:
                values[key] = name
                sources.append((key, "folder name"))
            else:
                sources.append((key, "default"))
        return cls(
            path=str(path),
            harness=values.get("harness", UNKNOWN),
            model=values.get("model", UNKNOWN),
            rep=values.get("rep"),
            source=tuple(sources),
        )

    @classmethod
    def from_dict(cls, data: Any) -> RunIdentity:
        """Read a `Result.run` block back (hostile input: never raises). A field of the wrong type counts as
        absent: path "", harness and model "unknown", rep None; `identity_source` entries that are not text are
        dropped. The inverse of `to_dict` for every identity `to_dict` writes."""
        data = data if isinstance(data, Mapping) else {}

        def text(key: str, default: str) -> str:
            value = data.get(key)
            return value if isinstance(value, str) and value else default

        raw = data.get("identity_source")
        source = (
            tuple((k, v) for k, v in raw.items() if isinstance(k, str) and isinstance(v, str))
            if isinstance(raw, Mapping)
            else ()
        )
        recorded = data.get("recorded_path")
        return cls(
            path=text("path", ""),
            harness=text("harness", UNKNOWN),
            model=text("model", UNKNOWN),
            rep=_rep(data.get("rep")),
            source=source,
            recorded_path=recorded if isinstance(recorded, str) else None,
        )

    def to_dict(self) -> dict[str, Any]:
        """The `Result.run` block: path, harness, model, rep, then `identity_source` and `recorded_path` when
        known (key order and values as result files have always held them)."""
        out: dict[str, Any] = {
            "path": self.path,
            "harness": self.harness,
            "model": self.model,
            "rep": self.rep,
        }
        if self.source:
            out["identity_source"] = dict(self.source)
        if self.recorded_path is not None:
            out["recorded_path"] = self.recorded_path
        return out

    @property
    def rep_label(self) -> str:
        """The rep as text ('' when there is none)."""
        return "" if self.rep is None else str(self.rep)

    def named(self) -> RunIdentity:
        """This identity with the folder-name fallback applied to a model recorded as "unknown" (results written
        before the fallback existed, or a run.json saying "unknown"); unchanged when the path names no folder."""
        if self.model != UNKNOWN or not self.path or (name := folder_model(self.path)) is None:
            return self
        return replace(
            self, model=name, source=(*(p for p in self.source if p[0] != "model"), ("model", "folder name"))
        )


def duplicate_identities(runs: Iterable[tuple[str, str, Any, str]]) -> list[str]:
    """Warnings for distinct folders sharing one (harness, model, rep); input is (harness, model, rep, path)."""
    seen: dict[tuple[str, str, str], list[str]] = {}
    for harness, model, rep, path in runs:
        key = (str(harness), str(model), "" if rep is None else str(rep))
        if path not in seen.setdefault(key, []):
            seen[key].append(path)
    return [
        f"{len(paths)} different run folders claim harness {k[0]!r}, model {k[1]!r}, rep {k[2] or '-'!r}: "
        f"{', '.join(paths)}; they are kept as separate runs (set --rep or run.json to tell them apart)"
        for k, paths in seen.items()
        if len(paths) > 1
    ]
