"""Content recap kinds: shot lengths (PySceneDetect), on-screen text (OCR), silence (librosa RMS)."""

from __future__ import annotations

from typing import Any

from agenticvbench.verifiers.recap.kind_registry import KindResult, fmt, kind, num, req, str_list
from agenticvbench.verifiers.recap.media_facts import MediaFacts

NO_SCENES = "no scenes detected"


def _shot_lengths(facts: MediaFacts) -> list[float]:
    return [end - start for start, end in facts.shots()]


@kind("scenedetect_median_shot_duration", needs={("shots",)})
def median_shot_duration(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """The upper median shot length (sorted[n // 2]) lies in [min (0), max (1e9)]; no cut fails."""
    lo, hi = num(params.get("min", 0), "min"), num(params.get("max", 1e9), "max")
    lengths = sorted(_shot_lengths(facts))
    if not lengths:
        return KindResult(False, NO_SCENES)
    median = lengths[len(lengths) // 2]
    return KindResult(
        lo <= median <= hi,
        f"median shot {fmt(median, 's')} over {len(lengths)} shots (range {fmt(lo)}-{fmt(hi)} s)",
    )


@kind("scenedetect_max_shot_duration", needs={("shots",)})
def max_shot_duration(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """The longest shot is at most `max_seconds`; no cut fails."""
    limit = num(req(params, "max_seconds"), "max_seconds")
    lengths = _shot_lengths(facts)
    if not lengths:
        return KindResult(False, NO_SCENES)
    longest = max(lengths)
    return KindResult(
        longest <= limit, f"longest shot {fmt(longest, 's')} over {len(lengths)} shots (max {fmt(limit)} s)"
    )


@kind(
    "pytesseract_substring_match",
    needs=lambda params: {("ocr", num(params.get("sample_fps", 1.0), "sample_fps"))},
)
def ocr_substring_match(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """Any (mode "any", default) or all (mode "all") `substrings` occur in the text OCR'd from frames sampled at
    `sample_fps` (1.0); case-insensitive by default. The OCR engine is RapidOCR (see `verifiers.recap.ocr`), and
    runs of whitespace (including line breaks between text boxes) compare as one space on both sides."""
    subs = str_list(req(params, "substrings"), "substrings")
    flag = params.get("case_insensitive", True)
    insensitive = flag.strip().lower() in ("1", "true", "yes") if isinstance(flag, str) else bool(flag)
    fps = num(params.get("sample_fps", 1.0), "sample_fps")
    mode = str(params.get("mode", "any")).lower()
    text = facts.ocr_text(fps)

    def norm(value: str) -> str:  # RapidOCR returns one box per line where tesseract would write a space
        value = " ".join(value.split())
        return value.lower() if insensitive else value

    hay = norm(text)
    found = [s for s in subs if norm(s) in hay]
    passed = len(found) == len(subs) if mode == "all" else bool(found)
    snippet = " ".join(text.split())[:200]
    return KindResult(
        passed,
        f"found {found} of {subs} (mode {'all' if mode == 'all' else 'any'}); "
        f"OCR text: {snippet or '(none)'}",
    )


@kind("librosa_silence_max_run")
def silence_max_run(facts: MediaFacts, params: dict[str, Any]) -> KindResult:
    """The longest run of RMS frames below `threshold_db` (-40) is at most `max_seconds`.

    Audio is decoded by the toolkit at 22 050 Hz and averaged to mono as librosa.load does; the resampler is
    libswresample rather than librosa's soxr (a negligible difference for RMS levels).
    """
    limit = num(req(params, "max_seconds"), "max_seconds")
    thr = num(params.get("threshold_db", -40.0), "threshold_db")
    if not facts.has_audio():
        return KindResult(False, "no audio stream")
    longest = facts.longest_silence_s(thr)
    return KindResult(
        longest <= limit, f"longest silence {fmt(longest, 's')} below {fmt(thr)} dB (max {fmt(limit)} s)"
    )
