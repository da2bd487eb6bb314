"""`MediaFacts`: everything the recap check kinds measure about one video file, each computed at most once.

One instance per (task, video file). Every measurement is lazy and memoised by its configuration (the probe,
each ffmpeg filter pass, the shot list, the 22 050 Hz audio and its RMS curve, the OCR text per sample rate,
the luma per time), errors included, so a rubric of 30 items probes and decodes the file once per kind of
measurement rather than once per item. With a `cache_dir`, the expensive results (filter passes, shots, OCR)
are also stored on disk, keyed by the file's SHA-256, so a rerun on the same file skips them.

Measurements that decode the whole video are grouped so the file is decoded once per task, not once per kind:
the "filters" group (black and freeze runs, the decode-error log: one ffmpeg run, `media.filters.video_pass`)
and the "frames" group (shots and OCR text: one PyAV decode, `frame_pass`). `expect` declares what the task's
rubric will ask for; the first request to a group computes all of its expected members, and starts the other
groups' passes on a background thread so the ffmpeg run and the Python decode use both cores.
"""

from __future__ import annotations

import contextvars
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.fsutil import file_sha256, text_sha256
from agenticvbench.media import ProbeResult, decode_audio, probe
from agenticvbench.media import filters as ff
from agenticvbench.memo import MISSING, JsonStore, Memo
from agenticvbench.runs.pinned import pinned
from agenticvbench.verifiers.recap.frame_pass import frame_pass
from agenticvbench.verifiers.recap.ocr import get_engine

T = TypeVar("T")
FACTS_VERSION = "1"
"""Bumped whenever a stored measurement could change; part of every on-disk cache key."""

AUDIO_SR = 22050
RMS_FRAME, RMS_HOP = 2048, 512
SILENCE_DB = -40.0
SCENE_THRESHOLD = 27.0
DEFAULT_PIX_TH = 0.10
FREEZE_NOISE = 0.003

_Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]
_RUNS: _Codec = (lambda runs: [[r.start, r.end] for r in runs], lambda raw: [ff.Run(s, e) for s, e in raw])
_PLAIN: _Codec = (lambda v: v, lambda v: v)
_SHOTS: _Codec = (lambda v: [list(p) for p in v], lambda raw: [tuple(p) for p in raw])
_BLACKFREEZE: _Codec = (
    lambda v: [_RUNS[0](v[0]), _RUNS[0](v[1])],
    lambda raw: (_RUNS[1](raw[0]), _RUNS[1](raw[1])),
)
_VOLUME: _Codec = (
    lambda v: None if v is None else [v.mean_volume, v.max_volume],
    lambda raw: None if raw is None else ff.VolumeStats(raw[0], raw[1]),
)


def _toolchain() -> str:
    """Short hash of everything a stored measurement depends on besides the file: our code version, the
    ffmpeg build and PyAV (`media.toolchain`) and PySceneDetect. A change to any of them starts a fresh cache.
    Not memoised: the ffmpeg in use can change within a process (`IMAGEIO_FFMPEG_EXE`), and a stale key served
    measurements of the old build; `media.toolchain` already caches the costly part per binary."""
    import scenedetect

    from agenticvbench.media.toolchain import toolchain_identity

    parts = [FACTS_VERSION, json.dumps(toolchain_identity(), sort_keys=True), scenedetect.__version__]
    return f"v{FACTS_VERSION}-" + text_sha256("|".join(parts))[:10]


class MediaFacts:
    """Lazily computed, memoised measurements of one media file (see the module docstring)."""

    def __init__(self, path: Path | str, *, cache_dir: Path | None = None) -> None:
        self.path = Path(path)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        # how often each measurement actually ran (diagnostics, tests)
        self.computed: Counter[str] = Counter()
        self._store = JsonStore(self.cache_dir / "recap-facts") if self.cache_dir is not None else None
        # on-disk cache writes that failed (best-effort: scores unaffected); the store's own list when there is one
        self.cache_errors: list[str] = self._store.errors if self._store is not None else []
        self._memo = Memo(memoise_failures=True)  # a broken file is probed/decoded once, not once per item
        self._guard = threading.Lock()
        self._expected: set[tuple[Any, ...]] = set()
        self._started: set[str] = set()
        self._threads: list[threading.Thread] = []

    # -- memoisation --------------------------------------------------------------------------------------
    def _get(self, key: tuple, compute: Callable[[], T], codec: _Codec | None = None) -> T:
        """`key`'s measurement: memoised (errors included), else from the on-disk cache when `codec` says it is
        stored there, else computed (counted in `computed`) and stored."""

        def counted() -> T:
            with self._guard:
                self.computed[str(key[0])] += 1
            return compute()

        if codec is None:
            return self._memo.get(key, counted)
        return self._memo.get(
            key,
            counted,
            load=lambda: self._load(key, codec),
            save=lambda value: self._save(key, codec, value),
        )

    def _load(self, key: tuple, codec: _Codec) -> Any:
        """The on-disk cached value of `key`, or `MISSING` (no cache, no entry, or an unreadable one)."""
        entry = self._entry(key)
        if entry is None:
            return MISSING
        assert self._store is not None
        return self._store.read(entry, lambda data: codec[1](data["value"]))

    def _save(self, key: tuple, codec: _Codec, value: Any) -> None:
        """Write one measurement to the on-disk cache. Best-effort: a write that fails (unwritable cache dir,
        full disk, a value JSON cannot hold) is noted in `cache_errors` and must not fail the measurement."""
        entry = self._entry(key)
        if entry is None:
            return
        assert self._store is not None
        self._store.write(
            entry,
            value,
            encode=lambda v: {"key": [str(k) for k in key], "value": codec[0](v)},
            label=str(key[0]),
        )

    def _entry(self, key: tuple) -> str | None:
        """The store entry name of `key` (`<file sha256>/<toolchain>-<key>.json`), None without a cache."""
        if self._store is None:
            return None
        try:
            digest = self.sha256()
        except OSError:
            return None
        name = "-".join(str(k).replace("/", "_").replace(" ", "_") for k in key)
        return f"{digest}/{_toolchain()}-{name}.json"

    def sha256(self) -> str:
        """SHA-256 of the file (the on-disk cache key): the hash taken when the engine pinned it, else read."""
        pin = pinned(self.path)
        return pin.sha256 if pin is not None else self._get(("sha256",), lambda: file_sha256(self.path))

    # -- container ----------------------------------------------------------------------------------------
    def probe(self) -> ProbeResult:
        """ffprobe-style description of the file; raises `MediaError` when it cannot be probed."""
        return self._get(("probe",), lambda: probe(self.path))

    def _require_video(self) -> None:
        """Raise `MediaError` unless the file probes and has a video stream (filters need one)."""
        if self.probe().video is None:
            raise MediaError(f"{self.path}: no video stream")

    def has_audio(self) -> bool:
        """True when the file has at least one audio stream."""
        return self.probe().audio is not None

    # -- ffmpeg filter passes -------------------------------------------------------------------------------
    def black_runs(self, pix_th: float = DEFAULT_PIX_TH) -> list[ff.Run]:
        """Every black run (blackdetect `d=0`, this `pix_th`) of the first video stream."""
        pix_th = float(pix_th)
        self._require_video()
        if pix_th == DEFAULT_PIX_TH:
            return self._group_get("filters", ("blackfreeze",))[0]
        return self._get(
            ("black", pix_th),
            lambda: ff.video_pass(self.path, black_pix_th=pix_th, freeze_noise=None).black or [],
            _RUNS,
        )

    def freeze_runs(self) -> list[ff.Run]:
        """Every freeze run (freezedetect `n=0.003:d=0`); a run still frozen at end of file has `end=None`."""
        self._require_video()
        return self._group_get("filters", ("blackfreeze",))[1]

    def decode_errors(self) -> str:
        """stderr of `ffmpeg -v error -i F -f null -` (empty when the file decodes cleanly)."""
        return self._group_get("filters", ("decode",))

    def volume(self) -> ff.VolumeStats | None:
        """volumedetect's mean/max volume, None when there is no audio to measure."""
        if not self.has_audio():
            return None
        return self._get(("volume",), lambda: ff.volumedetect(self.path), _VOLUME)

    def loudnorm(self) -> dict[str, str] | None:
        """loudnorm's measurement JSON (`input_i`, ...), None when there is no audio to measure."""
        if not self.has_audio():
            return None
        return self._get(("loudnorm",), lambda: ff.loudnorm_measure(self.path), _PLAIN)

    def luma_at(self, time_s: float) -> float | None:
        """Mean luma (YAVG, 0-255) of the first frame at or after `time_s`; None past the end."""
        t = float(time_s)
        self._require_video()
        return self._get(("luma", t), lambda: ff.luma_at(self.path, t))

    # -- decoded content ------------------------------------------------------------------------------------
    def shots(self) -> list[tuple[float, float]]:
        """Shots (start_s, end_s) from ContentDetector(threshold 27); empty when no cut was found."""
        return self._group_get("frames", ("shots", SCENE_THRESHOLD))

    def audio(self) -> np.ndarray:
        """The first audio stream at 22 050 Hz, mono as librosa makes it (mean of the channels)."""

        def compute() -> np.ndarray:
            data = decode_audio(self.path, sample_rate=AUDIO_SR, mono=False)
            return data.mean(axis=0).astype(np.float32) if data.ndim == 2 else data

        return self._get(("audio", AUDIO_SR), compute)

    def rms_db(self) -> np.ndarray:
        """Per-frame RMS level in dB (`librosa.feature.rms`, frame 2048, hop 512; floor 1e-9)."""
        return self._get(("rms_db",), lambda: 20.0 * np.log10(np.maximum(rms_frames(self.audio()), 1e-9)))

    def longest_silence_s(self, threshold_db: float = SILENCE_DB) -> float:
        """Longest run of RMS frames below `threshold_db`, in seconds (frames x 512 / 22050)."""
        below = self.rms_db() < float(threshold_db)
        longest = current = 0
        for flag in below:
            current = current + 1 if flag else 0
            longest = max(longest, current)
        return longest * RMS_HOP / AUDIO_SR

    def ocr_text(self, sample_fps: float = 1.0) -> str:
        """Text OCR'd from frames sampled at `sample_fps` (ffmpeg `fps` filter selection), one line per line."""
        fps = float(sample_fps)
        if not fps > 0:
            raise ValueError(f"sample_fps must be > 0, got {sample_fps!r}")
        return self._group_get("frames", ("ocr", fps, get_engine().name))

    # -- grouped whole-file passes --------------------------------------------------------------------------
    def expect(self, needs: Iterable[tuple[Any, ...]]) -> None:
        """Declare measurements the task will ask for: `("blackfreeze",)`, `("decode",)`, `("shots",)`,
        `("ocr", fps)`. Expected members of a group are computed by the group's first pass; anything not
        declared is still measured when asked, by a pass of its own."""
        with self._guard:
            self._expected.update(tuple(n) for n in needs)

    def close(self) -> None:
        """Wait for the passes started in the background (a task whose items stopped early, e.g. on a malformed
        rubric, must not leave a decode running into the next task)."""
        for thread in self._threads:
            thread.join()

    def _group_members(self, group: str) -> list[tuple[Any, ...]]:
        """The memo keys of `group` the task expects (OCR only when an engine is installed)."""
        with self._guard:
            expected = set(self._expected)
        if group == "filters":
            return [k for k in (("blackfreeze",), ("decode",)) if k in expected]
        keys: list[tuple[Any, ...]] = [("shots", SCENE_THRESHOLD)] if ("shots",) in expected else []
        ocr = sorted(float(n[1]) for n in expected if n[0] == "ocr" and len(n) == 2)
        if ocr:
            try:
                name = get_engine().name
            except Exception:  # noqa: BLE001 - reported when the OCR item itself asks
                return keys
            keys += [("ocr", fps, name) for fps in ocr if fps > 0]
        return keys

    def _group_get(self, group: str, key: tuple[Any, ...]) -> Any:
        """`key`'s value, computed by its group's pass together with the group's other expected members."""
        lock = self._memo.lock(("group", group))
        with self._guard:
            others = [g for g in _GROUPS if g != group and g not in self._started]
            self._started.add(group)
        for other in others:
            if any(k not in self._memo for k in self._group_members(other)):
                with self._guard:
                    self._started.add(other)
                thread = threading.Thread(  # in this task's context: its ffmpeg failures stay this task's
                    target=contextvars.copy_context().run,
                    args=(self._fill_group, other, None),
                    daemon=True,
                    name=f"avb-{other}",
                )
                self._threads.append(thread)
                thread.start()
        with lock:
            if key not in self._memo:
                self._fill_group(group, key, locked=True)
        return self._memo.result(key)

    def _fill_group(self, group: str, key: tuple[Any, ...] | None, locked: bool = False) -> None:
        """Compute `key` and every expected member of `group` not known yet (from disk when cached)."""
        if not locked:
            with self._memo.lock(("group", group)):
                self._fill_group(group, key, locked=True)
            return
        keys = ([key] if key is not None else []) + [k for k in self._group_members(group) if k != key]
        todo = []
        for k in keys:
            if k in self._memo:
                continue
            cached = self._load(k, _CODECS[k[0]])
            if cached is MISSING:
                todo.append(k)
            else:
                self._memo.put(k, cached)
        if not todo:
            return
        results = self._compute_filters(todo) if group == "filters" else self._compute_frames(todo)
        for k, value in results.items():
            with self._guard:
                self.computed[str(k[0])] += 1
            if isinstance(value, BaseException):
                self._memo.put_failure(k, value)
            else:
                self._memo.put(k, value)
                self._save(k, _CODECS[k[0]], value)

    def _compute_filters(self, keys: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], Any]:
        """One ffmpeg filter pass for the "filters" keys; a key's value is its exception when it failed."""
        out: dict[tuple[Any, ...], Any] = {}
        want_runs = ("blackfreeze",) in keys
        if want_runs:
            try:
                self._require_video()
            except MediaError as exc:
                out[("blackfreeze",)] = exc
                want_runs = False
        want_errors = ("decode",) in keys
        if not (want_runs or want_errors):
            return out
        try:
            res = ff.video_pass(
                self.path,
                black_pix_th=DEFAULT_PIX_TH if want_runs else None,
                freeze_noise=FREEZE_NOISE if want_runs else None,
                errors=want_errors,
            )
        except Exception as exc:  # noqa: BLE001 - memoised and re-raised to every caller
            out.update({k: exc for k in keys if k not in out})
            return out
        if want_runs:
            out[("blackfreeze",)] = (res.black or [], res.freeze or [])
        if want_errors:
            out[("decode",)] = res.errors or ""
        return out

    def _compute_frames(self, keys: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], Any]:
        """One PyAV decode for the "frames" keys; a key's value is its exception when it failed."""
        shot_keys = [k for k in keys if k[0] == "shots"]
        ocr_keys = [k for k in keys if k[0] == "ocr"]
        read = get_engine().read if ocr_keys else None
        try:
            res = frame_pass(
                self.path,
                shots_threshold=shot_keys[0][1] if shot_keys else None,
                ocr_fps=[k[1] for k in ocr_keys],
                read=read,
            )
        except Exception as exc:  # noqa: BLE001 - memoised and re-raised to every caller
            return {k: exc for k in keys}
        out: dict[tuple[Any, ...], Any] = {k: res.shots for k in shot_keys}  # an exception stays one
        out.update({k: res.ocr[k[1]] for k in ocr_keys})
        return out


_GROUPS = ("filters", "frames")
_CODECS: dict[str, _Codec] = {"blackfreeze": _BLACKFREEZE, "decode": _PLAIN, "shots": _SHOTS, "ocr": _PLAIN}


def rms_frames(y: np.ndarray, frame_length: int = RMS_FRAME, hop_length: int = RMS_HOP) -> np.ndarray:
    """`librosa.feature.rms(y=y, frame_length=..., hop_length=...)[0]` (center=True, zero padding, float32 power),
    computed in blocks of frames so memory stays small, and without librosa's lazy imports (seconds on first use)."""
    half = frame_length // 2
    padded = np.pad(np.asarray(y, dtype=np.float32), (half, half))
    windows = np.lib.stride_tricks.sliding_window_view(padded, frame_length)[::hop_length]
    out = np.empty(len(windows), dtype=np.float32)
    block = 1024
    for i in range(0, len(windows), block):
        chunk = windows[i : i + block]
        out[i : i + block] = np.sqrt(np.mean(np.square(chunk), axis=-1, dtype=np.float32))
    return out


def loudness_facts(facts: MediaFacts) -> dict[str, Any]:
    """Measured audio facts for the judge's audio description: has_audio, integrated_lufs, mean_volume_db,
    max_volume_db, longest_silence_s (below -40 dB). A measurement that fails is None; never raises."""
    out: dict[str, Any] = {
        "has_audio": None,
        "integrated_lufs": None,
        "mean_volume_db": None,
        "max_volume_db": None,
        "longest_silence_s": None,
    }
    try:
        out["has_audio"] = facts.has_audio()
    except MediaError:
        return out
    if not out["has_audio"]:
        return out
    with suppress(MediaError, KeyError, ValueError, TypeError):
        stats = facts.loudnorm()
        if stats is not None:
            out["integrated_lufs"] = float(stats["input_i"])
    with suppress(MediaError):
        vol = facts.volume()
        if vol is not None:
            out["mean_volume_db"], out["max_volume_db"] = vol.mean_volume, vol.max_volume
    with suppress(MediaError, ValueError):
        out["longest_silence_s"] = round(facts.longest_silence_s(SILENCE_DB), 3)
    return out
