"""The judge config file (`--judge-config FILE`, `$AVB_JUDGE_CONFIG`): settings and one judge per modality.

A TOML (`.toml`) or JSON file whose top-level keys are `JudgeSettings` fields (`CONFIG_KEYS`) and an optional
`modalities` table giving each modality (visual, audio, audio_visual, video) its own model and endpoint:

```toml
model = "gpt-4o-mini"
profile = "violation"
audio_format = "mp3"

[modalities.audio]
model = "gpt-4o-audio-preview"

[modalities.video]
model = "Qwen/Qwen2.5-Omni-7B"
base_url = "http://127.0.0.1:8000/v1"
```

It sits between the defaults and the environment in `JudgeSettings.from_env` (the one resolver): `$AVB_JUDGE_*`
variables and command-line options override it. API keys never go in the file (name the variable with
`api_key_env`). An unknown key, modality or field is a ValueError naming it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agenticvbench.judge.routing import MODALITIES

#: The `JudgeSettings` fields a config file may set, with their types.
CONFIG_KEYS: dict[str, type | tuple[type, ...]] = {
    "mode": str,
    "model": str,
    "base_url": str,
    "api_key_env": str,
    "profile": str,
    "frame_rate": (int, float),
    "max_frames": int,
    "max_side": int,
    "jpeg_quality": int,
    "image_detail": str,
    "transcribe": bool,
    "max_concurrency": int,
    "max_retries": int,
    "timeout": (int, float),
    "samples": int,
    "audio_format": str,
    "audio_bitrate_kbps": int,
    "audio_sample_rate": int,
    "audio_max_s": (int, float),
    "audio_style": str,
    "max_audio_bytes": int,
    "video_max_bytes": int,
    "video_max_s": (int, float),
    "video_fps": (int, float),
}
AUDIO_MODALITIES = ("audio", "audio_visual", "video")
AUDIO_FORMATS = ("mp3", "wav")
AUDIO_STYLES = ("auto", "input_audio", "audio_url")


def load_config(path: str | Path) -> dict[str, Any]:
    """The settings a judge config file sets (ValueError for an unreadable file or an unknown key)."""
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
        data = json.loads(text) if p.suffix.lower() == ".json" else _toml(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"judge config {p}: cannot read it ({exc})") from None
    if not isinstance(data, dict):
        raise ValueError(f"judge config {p}: the top level must be a table")
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "modalities":
            out["modality_judges"] = _modalities(p, value)
            continue
        want = CONFIG_KEYS.get(key)
        if want is None:
            raise ValueError(
                f"judge config {p}: unknown key {key!r} (known: {', '.join(CONFIG_KEYS)}, modalities)"
            )
        if not isinstance(value, want) or (isinstance(value, bool) and want is not bool):
            raise ValueError(f"judge config {p}: {key} has the wrong type ({type(value).__name__})")
        out[key] = value
    return out


def _toml(text: str) -> Any:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        raise ValueError("TOML needs Python 3.11 or newer; use a .json config file") from None
    return tomllib.loads(text)


def _modalities(p: Path, value: Any) -> dict[str, dict[str, str]]:
    if not isinstance(value, dict):
        raise ValueError(f"judge config {p}: modalities must be a table")
    out: dict[str, dict[str, str]] = {}
    for modality, entry in value.items():
        if modality not in MODALITIES:
            raise ValueError(
                f"judge config {p}: unknown modality {modality!r} (known: {', '.join(MODALITIES)})"
            )
        if not isinstance(entry, dict) or set(entry) - {"model", "base_url"}:
            raise ValueError(f"judge config {p}: modalities.{modality} takes only model and base_url")
        if not all(isinstance(v, str) and v for v in entry.values()):
            raise ValueError(f"judge config {p}: modalities.{modality} values must be non-empty strings")
        out[modality] = dict(entry)
    return out


def with_audio_judge(
    modality_judges: dict[str, dict[str, str]], audio_model: str | None, audio_base_url: str | None
) -> dict[str, dict[str, str]]:
    """`modality_judges` with `--judge-audio-model` / `--judge-audio-base-url` filled in for every modality that
    carries audio, where the config file left them unset."""
    out = {m: dict(e) for m, e in modality_judges.items()}
    for modality in AUDIO_MODALITIES if (audio_model or audio_base_url) else ():
        entry = out.setdefault(modality, {})
        if audio_model:
            entry.setdefault("model", audio_model)
        if audio_base_url:
            entry.setdefault("base_url", audio_base_url)
    return out
