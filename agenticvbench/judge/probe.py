"""Capability probes: can this (endpoint, model) receive an image, an audio or a video part?

A probe is one minimal chat completion carrying one tiny part of that kind (`av_parts.probe_part`) and asking for
one token. Its HTTP status decides, never the reply's content: 2xx means the part is accepted, a 4xx means it is
not. The exceptions are answers about the request rather than the part: 401/403 (the key), 404 (the route or
model) and the transient 408/409/429 and 5xx, as well as timeouts and connection errors, which leave the
capability unknown (the item is `unscored` with that reason, nothing is cached). Audio is tried as an
`input_audio` part, then (with `audio_style` auto) as an `audio_url` data URL; the accepted style is recorded.

Answers are cached per (endpoint URL, model, part kind, audio style and format) in `<cache>/judge/probes/` (a
`memo.JsonStore`), else for the life of the process, and each task's results go to its provenance
(`extra["judge"]["capabilities"]` and `provenance["judge_capabilities"]`). Probes are counted as `probes` in the
judge's stats, not as `calls`, and the fake endpoint of the tests recognises them by `PROBE_TEXT`.
"""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import openai

from agenticvbench.fsutil import text_sha256
from agenticvbench.judge.av_parts import probe_part
from agenticvbench.judge.calls import Tally
from agenticvbench.judge.endpoint import CallFailed, Endpoint, short
from agenticvbench.memo import MISSING, JsonStore

PROBE_TEXT = "avb-capability-probe: reply with the single word ok."
PROBE_SCHEMA = 1
_ABOUT_REQUEST = (401, 403, 404, 408, 409, 429)
_process_cache: dict[str, dict[str, Any]] = {}
_process_lock = threading.Lock()


@dataclass(kw_only=True, frozen=True)
class Capability:
    """Whether `model` at `endpoint` (host only) accepts parts of `part` (as `style`), from HTTP `status`."""

    endpoint: str
    model: str
    part: str
    style: str | None
    supported: bool
    status: int
    checked_at: str
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (provenance); `cached` is left out so the record is the same on every task."""
        d = asdict(self)
        d.pop("cached")
        return d


class CapabilityProbe:
    """Probe results for one task, backed by the on-disk cache under `cache_root` (None: this process only)."""

    def __init__(self, *, cache_root: Path | None, audio_format: str, audio_style: str, tally: Tally) -> None:
        self._store = JsonStore(cache_root / "probes") if cache_root is not None else None
        self.audio_format = audio_format
        self.audio_style = audio_style
        self._tally = tally

    def check(self, endpoint: Endpoint, model: str, part: str) -> Capability:
        """The capability of (endpoint, model) for `part`; raises `CallFailed` when the probe is inconclusive."""
        styles: list[str | None] = [None]
        if part == "audio":
            styles = ["input_audio", "audio_url"] if self.audio_style == "auto" else [self.audio_style]
        cap: Capability | None = None
        for style in styles:
            cap = self._one(endpoint, model, part, style)
            if cap.supported:
                break
        assert cap is not None
        self._tally.capability(cap.to_dict())
        return cap

    def _key(self, endpoint: Endpoint, model: str, part: str, style: str | None) -> str:
        fmt = self.audio_format if part == "audio" else None
        return text_sha256(json.dumps([PROBE_SCHEMA, endpoint.base_url, model, part, style, fmt]))

    def _one(self, endpoint: Endpoint, model: str, part: str, style: str | None) -> Capability:
        key = self._key(endpoint, model, part, style)
        known = self._read(key)
        if known is not None:
            try:
                return Capability(**{k: v for k, v in known.items() if k != "schema"}, cached=True)
            except TypeError:  # a foreign or hand-edited entry: probe again
                pass
        status = self._send(endpoint, model, part, style)
        cap = Capability(
            endpoint=endpoint.host,
            model=model,
            part=part,
            style=style,
            supported=200 <= status < 300,
            status=status,
            checked_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        self._write(key, cap.to_dict())
        return cap

    def _send(self, endpoint: Endpoint, model: str, part: str, style: str | None) -> int:
        content: list[dict[str, Any]] = [
            {"type": "text", "text": PROBE_TEXT},
            probe_part(part, audio_format=self.audio_format, audio_style=style or "input_audio"),
        ]

        def once() -> int:
            self._tally.add(probes=1)
            try:
                raw = endpoint.client().chat.completions.with_raw_response.create(
                    model=model,
                    messages=[{"role": "user", "content": content}],  # type: ignore[list-item,misc]
                    max_tokens=1,
                    temperature=0,
                )
            except openai.APIStatusError as exc:
                if 400 <= exc.status_code < 500 and exc.status_code not in _ABOUT_REQUEST:
                    return exc.status_code
                raise
            return int(raw.http_response.status_code)

        try:
            status, _ = endpoint.with_retries(once)
        except CallFailed as exc:
            raise CallFailed(f"capability probe ({part}) failed: {exc}", fatal=exc.fatal) from None
        except Exception as exc:  # a probe must never sink more than its item
            raise CallFailed(f"capability probe ({part}) failed: {short(exc)}", fatal=False) from None
        return int(status)

    def _read(self, key: str) -> dict[str, Any] | None:
        if self._store is None:
            with _process_lock:
                return _process_cache.get(key)
        data = self._store.read(f"{key}.json")
        if data is MISSING or not isinstance(data, dict) or data.get("schema") != PROBE_SCHEMA:
            return None
        return data

    def _write(self, key: str, record: dict[str, Any]) -> None:
        if self._store is None:
            with _process_lock:
                _process_cache[key] = {**record, "schema": PROBE_SCHEMA}
            return
        if self._store.write(f"{key}.json", {**record, "schema": PROBE_SCHEMA}, label=key) is not None:
            self._tally.note("capability probe cache not written (the probe is repeated next time)")
