"""The calibration gate: recap cells judged by a model judge that was not calibrated against people are marked.

A recap result scored by a model judge (judge mode `cache` or `replay`) counts as calibrated only when, for every
modality among its decisively judged items (visual, audio, audio_visual, video), the judge of that modality
(`judge_modalities[m].model`, else `judge_model`; with the result's `judge_profile` and `prompt_hash`: the judge
identity of `comparability.judge_identity`, without the endpoint) has a calibration record
(`agenticvbench.judge.calibration`, written by `avb judge agree --write-calibration`) that passes that modality
under the package's threshold: kappa's 95% lower bound >= `KAPPA_LOWER` over >= `MIN_ITEMS` human-graded items.
Otherwise the cell carries the `uncalibrated` mark (`comparability.MARKS`). An ensemble (several models voting) has
no record of its own yet, so its cells stay marked.

`CalibrationGate.read` reads the records once per command from one folder (`<cache>/calibration/`, the cache
folder the command was given, else the package cache); the gate travels in `settings.Aggregation`, so every
surface (leaderboard, report, viewer) marks the same cells and the JSON names the folder it read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenticvbench.analysis.comparability import judge_identity
from agenticvbench.judge.calibration import (
    CALIBRATION_DIRNAME,
    KAPPA_LOWER,
    MIN_ITEMS,
    CalibrationRecord,
    JudgeIdentity,
    read_records,
)
from agenticvbench.results.model import Result
from agenticvbench.runs.trial_outcomes import get_path
from agenticvbench.verifiers import uses_judge
from agenticvbench.verifiers.recap.explain import judge_by_modality

#: Judge modes whose verdicts come from a model (`off` has none, `human` is people themselves).
MODEL_MODES = ("cache", "replay")


def model_judged(result: Result) -> bool:
    """True for a scored result of a judged family whose judge was a model (mode cache or replay)."""
    if result.status != "scored" or not uses_judge(result.family):
        return False
    ident = judge_identity(result.provenance if isinstance(result.provenance, dict) else {}) or {}
    return ident.get("mode") in MODEL_MODES


def modality_identity(prov: dict[str, Any], modality: str) -> JudgeIdentity | None:
    """The judge identity that judged `modality` in a result with provenance `prov` (None when it names no
    model or profile)."""
    ident = judge_identity(prov) or {}
    model = get_path(prov, "judge_modalities", modality, "model") or ident.get("model")
    profile, digest = ident.get("profile"), ident.get("prompt_hash")
    if not all(isinstance(x, str) and x for x in (model, profile, digest)):
        return None
    return JudgeIdentity(model=str(model), profile=str(profile), prompt_hash=str(digest))


@dataclass(frozen=True, kw_only=True)
class CalibrationGate:
    """The records one command read, where from, and the threshold it applies (module docstring)."""

    source: str = ""  # the folder read ('' when none was)
    records: dict[str, CalibrationRecord] = field(default_factory=dict)
    notes: tuple[str, ...] = ()  # files that are not records
    kappa_lower: float = KAPPA_LOWER
    min_items: int = MIN_ITEMS

    @classmethod
    def read(cls, cache_root: str | Path) -> CalibrationGate:
        """The gate over the records under `<cache_root>/calibration/`."""
        records, notes = read_records(cache_root)
        return cls(source=str(Path(cache_root) / CALIBRATION_DIRNAME), records=records, notes=tuple(notes))

    def missing(self, result: Result) -> list[str]:
        """Why `result` is not calibrated, one phrase per judged modality that fails ([] when it is calibrated
        or was not judged by a model)."""
        if not model_judged(result):
            return []
        prov = result.provenance if isinstance(result.provenance, dict) else {}
        modalities = [m for m, row in judge_by_modality([result]).items() if row["judged"]]
        out = []
        for m in modalities:
            ident = modality_identity(prov, m)
            if ident is None:
                out.append(f"{m}: the result names no judge model, profile or prompt hash")
                continue
            record = self.records.get(ident.key)
            why = (
                "no calibration record"
                if record is None
                else record.reason(m, kappa_lower=self.kappa_lower, min_items=self.min_items)
            )
            if why:
                out.append(f"{ident.label} on {m}: {why}")
        return out

    def uncalibrated(self, results: Sequence[Result]) -> list[str]:
        """The distinct reasons over `results` (sorted), for a cell's note."""
        return sorted({why for r in results for why in self.missing(r)})

    def to_dict(self) -> dict[str, Any]:
        """The JSON block (`judge_calibration`): the folder read, the threshold, and each record's judge and
        per-modality pass/fail under this threshold."""
        return {
            "source": self.source,
            "threshold": {
                "kappa_ci95_low_at_least": self.kappa_lower,
                "min_items_per_modality": self.min_items,
            },
            "records": [
                {
                    "identity": {"model": r.identity.model, "profile": r.identity.profile},
                    "identity_key": key,
                    "n": r.overall.n,
                    "created": r.created,
                    "calibrated": {
                        m: not r.reason(m, kappa_lower=self.kappa_lower, min_items=self.min_items)
                        for m in sorted(r.modalities)
                    },
                }
                for key, r in sorted(self.records.items())
            ],
            "notes": list(self.notes),
        }
