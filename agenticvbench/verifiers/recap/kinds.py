"""The recap python check kinds: `KINDS`, `run_kind`, `KindResult`, `loudness_facts`.

The 20 kinds are defined in `kinds_probe` (container facts), `kinds_ffmpeg` (filter measurements) and
`kinds_content` (shots, OCR, silence); importing this module registers all of them. Every kind reads its
measurements from a per-task `MediaFacts`, so each file is probed and decoded once per task, not once per item.

Deviations from the official kinds (all documented on the kind): brightness is measured (the official one always
failed); OCR uses RapidOCR instead of tesseract; silence uses the toolkit's resampler instead of soxr; black and
freeze detection run once with d=0 and apply the duration rule themselves (same verdicts); an unknown kind raises
`UnknownKindError` (a malformed rubric, D-C4) instead of quietly failing.
"""

from __future__ import annotations

from typing import Any

from agenticvbench.errors import ToolError
from agenticvbench.verifiers.recap import kinds_content, kinds_ffmpeg, kinds_probe  # noqa: F401  (registers the kinds)
from agenticvbench.verifiers.recap.kind_registry import (
    KINDS,
    KindFn,
    KindResult,
    ParamError,
    UnknownKindError,
    kind,
    kind_needs,
)
from agenticvbench.verifiers.recap.media_facts import MediaFacts, loudness_facts
from agenticvbench.verifiers.recap.ocr import OcrUnavailableError

__all__ = [
    "KINDS",
    "KindFn",
    "KindResult",
    "MediaFacts",
    "ParamError",
    "UnknownKindError",
    "kind",
    "kind_needs",
    "loudness_facts",
    "run_kind",
]


def run_kind(kind: str, params: dict[str, Any] | None, facts: MediaFacts) -> KindResult:
    """Run python kind `kind` with `params` on `facts`.

    None-valued params are dropped first (the HF union schema fills absent keys with None). An unknown kind raises
    `UnknownKindError`; any exception inside the kind (missing parameter, unreadable file, ...) becomes a failed
    result whose `error` reads `error in <kind>: ...`, as the official runner reported it.
    """
    fn = KINDS.get(kind) if isinstance(kind, str) else None
    if fn is None:
        raise UnknownKindError(kind)
    if params is not None and not isinstance(params, dict):
        return KindResult(
            False, "", error=f"error in {kind}: params must be an object, got {type(params).__name__}"
        )
    clean = {k: v for k, v in (params or {}).items() if v is not None}
    try:
        return fn(facts, clean)
    except (OcrUnavailableError, ToolError):
        raise  # a missing engine is the verifier's failure (task `error`), not the submission's
    except Exception as exc:  # noqa: BLE001 - a kind that cannot run fails with its error, never crashes scoring
        return KindResult(False, "", error=f"error in {kind}: {exc}")
