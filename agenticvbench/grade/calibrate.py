"""A model judge's calibration against people: the record `avb judge agree --write-calibration` writes.

The reference is the people: the majority of the named graders' pass/fail verdicts on each (task, item, video)
key (`judge.human_store.majority`: `skip` is no vote, a tie is no reference). The judge is one model's decisive
verdicts in the judge cache under one prompt profile, written with the profile's current template (an older
template's verdicts are another judge and are left out). Both are compared with `agreement.compare`, overall and
per modality (the route the cached verdict records), and the statistics go into a
`judge.calibration.CalibrationRecord` with the package's threshold, the graders, the date and the version.
"""

from __future__ import annotations

from pathlib import Path

from agenticvbench.errors import ConfigError
from agenticvbench.grade.agreement import cached_verdicts, compare
from agenticvbench.grade.store import Key, VerdictStore, majority
from agenticvbench.judge.calibration import (
    KAPPA_LOWER,
    MIN_ITEMS,
    AgreementStats,
    CalibrationRecord,
    JudgeIdentity,
)
from agenticvbench.judge.human_store import now_utc
from agenticvbench.judge.profiles import DEFAULT_PROFILE, get_profile
from agenticvbench.judge.routing import MODALITIES
from agenticvbench.version import __version__


def human_reference(cache_root: Path, graders: list[str]) -> dict[Key, str]:
    """Key -> the graders' majority verdict (pass or fail; ties and skips left out)."""
    out: dict[Key, str] = {}
    for key, votes in VerdictStore(cache_root / "grades").by_key(graders).items():
        outcome = majority(votes)[0]
        if outcome in ("pass", "fail"):
            out[key] = outcome
    return out


def judge_verdicts(
    cache_root: Path, model: str, profile: str | None
) -> tuple[str, dict[Key, str], dict[tuple[int, str], str]]:
    """(profile, key -> verdict, (task, item) -> modality) of `model`'s cached verdicts under `profile` and its
    current template; with `profile` None, the one profile the model's verdicts use (ConfigError when they use
    several: the caller must choose)."""
    records = list(cached_verdicts(cache_root, model))
    used = sorted({str(rec.get("profile") or DEFAULT_PROFILE) for _, rec in records})
    if profile is None:
        if len(used) > 1:
            raise ConfigError(
                f"model {model!r} has cached verdicts under profiles {', '.join(used)}: choose one with --profile"
            )
        profile = used[0] if used else DEFAULT_PROFILE
    try:
        template = get_profile(profile).template_version
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    verdicts: dict[Key, str] = {}
    modalities: dict[tuple[int, str], str] = {}
    for key, rec in records:
        version = str(rec.get("template_version") or "").split("+", 1)[0]
        if str(rec.get("profile") or DEFAULT_PROFILE) != profile or version != template:
            continue
        verdicts[key] = rec["outcome"]
        if rec.get("modality") in MODALITIES:
            modalities[(key[0], key[1])] = str(rec["modality"])
    return profile, verdicts, modalities


def calibration_record(
    cache_root: Path, graders: list[str], model: str, profile: str | None = None
) -> CalibrationRecord:
    """The calibration of judge `model` (under `profile`, see `judge_verdicts`) against `graders`' majority."""
    if not graders:
        raise ConfigError("a calibration needs at least one human:<grader> source")
    profile, judged, modalities = judge_verdicts(cache_root, model, profile)
    stats = compare(human_reference(cache_root, graders), judged, {}, modalities)
    return CalibrationRecord(
        identity=JudgeIdentity(model=model, profile=profile, prompt_hash=get_profile(profile).prompt_hash()),
        graders=tuple(graders),
        overall=AgreementStats.of(stats["overall"]),
        modalities={m: AgreementStats.of(s) for m, s in stats["modalities"].items() if m in MODALITIES},
        kappa_lower=KAPPA_LOWER,
        min_items=MIN_ITEMS,
        created=now_utc(),
        package_version=__version__,
    )
