"""Judge calibration records: how well one model judge agreed with people on this benchmark, per modality.

`avb judge agree human:<grader>... model:<name> --write-calibration` compares the model's cached verdicts with the
graders' (`avb grade`) and writes one `CalibrationRecord` to `<cache>/calibration/<identity key>.json`. The
analysis reads those records (`agenticvbench.analysis.calibration`) and marks recap cells judged by a judge that
has none passing (docs/grading.md, "Calibration gate").

A judge's identity (`JudgeIdentity`) is what `analysis.comparability.judge_identity` records of it, without the
endpoint: the model, the prompt profile and the profile's prompt hash. A record passes a modality when at least
`MIN_ITEMS` human-graded items of that modality were compared and the lower end of the 95% bootstrap interval of
Cohen's kappa is at least `KAPPA_LOWER` ("substantial", Landis and Koch 1977). Why `MIN_ITEMS` is 120:
`benchmarks/bench_kappa_precision.py` and docs/grading.md.

Records are read as hostile input: a file that is torn, oversized, a symbolic link, of another schema, with a field
of the wrong type or with numbers no agreement computation yields (an interval not ordered or not containing its
kappa, a kappa outside [-1, 1], a count that is not a whole number of at most `MAX_ITEMS`) is no record (and the
reader names it), never a crash. Records are not signed: whoever can write the cache can write a record that
passes (docs/grading.md).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import text_sha256
from agenticvbench.judge.routing import MODALITIES
from agenticvbench.memo import MISSING, JsonStore

#: The folder of the cache that holds the records.
CALIBRATION_DIRNAME = "calibration"
#: The gate: kappa's 95% lower bound must reach this ...
KAPPA_LOWER = 0.6
#: ... over at least this many human-graded items of each judged modality.
MIN_ITEMS = 120
RECORD_SCHEMA = 1
MAX_RECORD_BYTES = 64 * 1024
MAX_RECORDS = 1000
MAX_TEXT = 200
#: The most items a record may count (the benchmark's human-graded items are some thousands at most).
MAX_ITEMS = 1_000_000


@dataclass(frozen=True, kw_only=True)
class JudgeIdentity:
    """The judge a record is about: model (one name), prompt profile and its prompt hash; no endpoint."""

    model: str
    profile: str
    prompt_hash: str

    @property
    def key(self) -> str:
        """The record's file stem: SHA-256 of the three fields."""
        return text_sha256(json.dumps([self.model, self.profile, self.prompt_hash]))

    @property
    def label(self) -> str:
        """'gpt-4o-mini (legacy)'."""
        return f"{self.model} ({self.profile})"


@dataclass(frozen=True, kw_only=True)
class AgreementStats:
    """Agreement of the judge with the people on a set of items: n, raw agreement, kappa and its 95% interval."""

    n: int
    agreement: float | None = None
    kappa: float | None = None
    kappa_ci95: tuple[float, float] | None = None

    @property
    def kappa_low(self) -> float | None:
        """The interval's lower end (None without an interval)."""
        return self.kappa_ci95[0] if self.kappa_ci95 else None

    @classmethod
    def of(cls, stats: dict[str, Any]) -> AgreementStats:
        """From `grade.agreement`'s pair statistics (`n`, `agreement`, `kappa`, `kappa_ci95`)."""
        ci = stats.get("kappa_ci95")
        return cls(
            n=int(stats["n"]),
            agreement=stats.get("agreement"),
            kappa=stats.get("kappa"),
            kappa_ci95=(float(ci[0]), float(ci[1])) if ci else None,
        )


def gate_reason(stats: AgreementStats | None, *, kappa_lower: float, min_items: int) -> str:
    """'' when `stats` pass the gate, else why not (one short phrase)."""
    if stats is None or stats.n == 0:
        return "no human-graded items"
    if stats.n < min_items:
        return f"n={stats.n} < {min_items} human-graded items"
    low = stats.kappa_low
    if low is None:
        return f"kappa undefined over n={stats.n} (one label throughout)"
    if low < kappa_lower:
        return f"kappa 95% lower bound {low:.3f} < {kappa_lower}"
    return ""


@dataclass(frozen=True, kw_only=True)
class CalibrationRecord:
    """One judge's calibration on this benchmark (module docstring): overall and per modality, with the
    threshold it was written under, the graders, the date and the package version."""

    identity: JudgeIdentity
    graders: tuple[str, ...]
    overall: AgreementStats
    modalities: dict[str, AgreementStats] = field(default_factory=dict)
    kappa_lower: float = KAPPA_LOWER
    min_items: int = MIN_ITEMS
    created: str = ""
    package_version: str = ""
    schema: int = RECORD_SCHEMA

    def reason(self, modality: str, *, kappa_lower: float = KAPPA_LOWER, min_items: int = MIN_ITEMS) -> str:
        """'' when `modality` passes the gate under the given threshold (the package's by default), else why not."""
        return gate_reason(self.modalities.get(modality), kappa_lower=kappa_lower, min_items=min_items)

    def passed(self) -> dict[str, bool]:
        """Modality -> whether it passes under the threshold the record was written with."""
        return {
            m: not self.reason(m, kappa_lower=self.kappa_lower, min_items=self.min_items) for m in MODALITIES
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the file's content), with each modality's pass/fail under the record's threshold."""
        d = asdict(self)
        d["identity_key"] = self.identity.key
        d["passed"] = self.passed()
        return d

    @classmethod
    def from_dict(cls, data: Any) -> CalibrationRecord:
        """The strict reader: ValueError naming the first bad field (`read_records` turns it into a note)."""
        if not isinstance(data, dict) or data.get("schema") != RECORD_SCHEMA:
            raise ValueError(f"not a calibration record of schema {RECORD_SCHEMA}")
        ident = data.get("identity")
        if not isinstance(ident, dict):
            raise ValueError("identity: not an object")
        identity = JudgeIdentity(
            **{k: _text(ident.get(k), f"identity.{k}") for k in ("model", "profile", "prompt_hash")}
        )
        graders = data.get("graders")
        if not isinstance(graders, list) or len(graders) > MAX_RECORDS:
            raise ValueError("graders: not a list")
        mods = data.get("modalities")
        if not isinstance(mods, dict) or set(mods) - set(MODALITIES):
            raise ValueError(f"modalities: not an object of {', '.join(MODALITIES)}")
        return cls(
            identity=identity,
            graders=tuple(_text(g, "graders[]") for g in graders),
            overall=_stats(data.get("overall"), "overall"),
            modalities={m: _stats(v, f"modalities.{m}") for m, v in mods.items()},
            kappa_lower=_number(data.get("kappa_lower"), "kappa_lower", -1.0, 1.0),
            min_items=_count(data.get("min_items"), "min_items"),
            created=_text(data.get("created", ""), "created", empty=True),
            package_version=_text(data.get("package_version", ""), "package_version", empty=True),
        )


def _text(value: Any, where: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT or (not value and not empty):
        raise ValueError(f"{where}: not a string of 1-{MAX_TEXT} characters")
    return value


def _number(value: Any, where: str, lo: float = -1.0, hi: float = 1.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: not a finite number")
    if not lo <= value <= hi:
        raise ValueError(f"{where}: {value} is out of range")
    return float(value)


def _optional(value: Any, where: str) -> float | None:
    return None if value is None else _number(value, where, -1.0, 1.0)


def _count(value: Any, where: str) -> int:
    """A whole number of items, 0 to `MAX_ITEMS` (a JSON integer: `1e9` is a float, refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ITEMS:
        raise ValueError(f"{where}: not a whole number of 0-{MAX_ITEMS} items")
    return value


def _interval(value: Any, kappa: float | None, where: str) -> tuple[float, float] | None:
    """Kappa's 95% interval: two numbers in [-1, 1], ordered, holding `kappa` when it is given."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError(f"{where}: not a pair")
    lo, hi = _number(value[0], where), _number(value[1], where)
    if lo > hi:
        raise ValueError(f"{where}: [{lo}, {hi}] is not ordered")
    if kappa is not None and not lo - 1e-9 <= kappa <= hi + 1e-9:
        raise ValueError(f"{where}: [{lo}, {hi}] does not contain kappa {kappa}")
    return lo, hi


def _stats(value: Any, where: str) -> AgreementStats:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: not an object")
    kappa = _optional(value.get("kappa"), f"{where}.kappa")
    return AgreementStats(
        n=_count(value.get("n"), f"{where}.n"),
        agreement=None
        if value.get("agreement") is None
        else _number(value["agreement"], f"{where}.agreement", 0, 1),
        kappa=kappa,
        kappa_ci95=_interval(value.get("kappa_ci95"), kappa, f"{where}.kappa_ci95"),
    )


def write_record(cache_root: str | Path, record: CalibrationRecord) -> Path:
    """Write `record` atomically to `<cache_root>/calibration/<identity key>.json` (a newer record of the same
    judge replaces the older one); OSError when it cannot be written."""
    store = JsonStore(Path(cache_root) / CALIBRATION_DIRNAME, max_bytes=MAX_RECORD_BYTES)
    name = f"{record.identity.key}.json"
    failed = store.write(name, record.to_dict(), label=name)
    if failed is not None:
        raise OSError(f"{store.path(name)}: calibration record not written ({failed})")
    return store.path(name)


def read_records(cache_root: str | Path) -> tuple[dict[str, CalibrationRecord], list[str]]:
    """(identity key -> record, one note per file that is not a record) from `<cache_root>/calibration/`; at most
    `MAX_RECORDS` files are read, each of at most `MAX_RECORD_BYTES`. A record filed under another key than its
    identity's is refused (a renamed file must not calibrate another judge), and so is a symbolic link (a record
    is a file of the folder, not a pointer to one elsewhere)."""
    folder = Path(cache_root) / CALIBRATION_DIRNAME
    store = JsonStore(folder, max_bytes=MAX_RECORD_BYTES)
    records: dict[str, CalibrationRecord] = {}
    notes: list[str] = []
    try:
        names = sorted(p.name for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return records, notes
    if len(names) > MAX_RECORDS:
        notes.append(f"{folder}: {len(names)} files, only the first {MAX_RECORDS} read")
    for name in names[:MAX_RECORDS]:
        link = (folder / name).is_symlink()
        data = MISSING if link else store.read(name)
        try:
            if link:
                raise ValueError("a symbolic link, not read")
            if data is MISSING:
                raise ValueError("not readable JSON (torn, oversized or not a regular file)")
            record = CalibrationRecord.from_dict(data)
            if record.identity.key != name[: -len(".json")]:
                raise ValueError("identity: does not match the file name")
        except (ValueError, TypeError) as exc:
            notes.append(f"{folder / name}: not a calibration record ({exc})")
            continue
        records[record.identity.key] = record
    return records, notes
