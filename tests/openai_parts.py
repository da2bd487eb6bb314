"""The media parts of an OpenAI-compatible chat request, as the fake endpoint (`openai_server.py`) reads and checks
them: `image_url`, `input_audio` (base64 `data`, `format` wav|mp3), `audio_url` and `video_url` (base64 data URLs).
A part is well formed when its base64 decodes and its bytes carry the WAV, MP3 or MP4 signature its declared
format names."""

from __future__ import annotations

import base64
import binascii
from typing import Any

PART_KINDS = {"image_url": "image", "input_audio": "audio", "audio_url": "audio", "video_url": "video"}


def media_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    """Every non-text content part of a chat request, in order."""
    return [
        p
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if isinstance(p, dict) and p.get("type") != "text"
    ]


def part_kinds(body: dict[str, Any]) -> list[str]:
    """The kind (image, audio, video) of every media part of a chat request."""
    return [PART_KINDS.get(str(p.get("type")), str(p.get("type"))) for p in media_parts(body)]


def _b64(text: Any) -> bytes | None:
    try:
        return base64.b64decode(str(text), validate=True)
    except (binascii.Error, ValueError):
        return None


def _data_url(url: Any, mime_prefix: str) -> tuple[str, bytes] | None:
    """(mime type, bytes) of a base64 data URL whose type starts with `mime_prefix`, else None."""
    if not isinstance(url, str) or not url.startswith(f"data:{mime_prefix}") or ";base64," not in url:
        return None
    head, data = url[5:].split(";base64,", 1)
    raw = _b64(data)
    return (head, raw) if raw else None


def _audio_ok(fmt: str, raw: bytes | None) -> bool:
    if not raw:
        return False
    if fmt in ("wav", "audio/wav", "audio/x-wav"):
        return raw[:4] == b"RIFF" and raw[8:12] == b"WAVE"
    if fmt in ("mp3", "audio/mpeg", "audio/mp3"):
        return raw[:3] == b"ID3" or (raw[0] == 0xFF and raw[1] & 0xE0 == 0xE0)
    return False


def part_problem(part: dict[str, Any]) -> str | None:
    """Why a media part is malformed (None: it is well formed)."""
    kind = part.get("type")
    if kind == "image_url":
        url = (part.get("image_url") or {}).get("url")
        return None if isinstance(url, str) and url else "image_url without a url"
    if kind == "input_audio":
        spec = part.get("input_audio") or {}
        fmt = spec.get("format")
        if fmt not in ("wav", "mp3"):
            return f"input_audio format must be wav or mp3, got {fmt!r}"
        return None if _audio_ok(fmt, _b64(spec.get("data"))) else f"input_audio data is not base64 {fmt}"
    if kind == "audio_url":
        got = _data_url((part.get("audio_url") or {}).get("url"), "audio/")
        return None if got and _audio_ok(got[0], got[1]) else "audio_url is not a base64 audio data URL"
    if kind == "video_url":
        got = _data_url((part.get("video_url") or {}).get("url"), "video/")
        return None if got and got[1][4:8] == b"ftyp" else "video_url is not a base64 MP4 data URL"
    return f"unknown content part type {kind!r}"
