"""`MediaFacts`: everything the recap check kinds measure about one video file, each computed at most once.

One instance per (task, video file). Every measurement is lazy and memoised by its configuration (the probe,
each ffmpeg filter pass, the shot list, the 22 050 Hz audio and its RMS curve, the OCR text per sample rate,
the luma per time), errors included, so a rubric of 30 items probes and decodes the file once per kind of
measurement rather than once per item. With a `cache_dir`, the expensive results (filter passes, shots, OCR)
are also stored on disk, keyed by the file's SHA-256, so a rerun on the same file skips them.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Hashable
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from agenticvbench.errors import MediaError
from agenticvbench.fsutil import atomic_write_json, file_sha256, text_sha256
from agenticvbench.media import ProbeResult, VideoFrame, decode_audio, probe
from agenticvbench.media import filters as ff
from agenticvbench.media.scenes import detect_shots
from agenticvbench.media.video import DecodedFrame, iter_decoded
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
_VOLUME: _Codec = (lambda v: None if v is None else [v.mean_volume, v.max_volume],
                   lambda raw: None if raw is None else ff.VolumeStats(raw[0], raw[1]))


@lru_cache(maxsize=1)
def _toolchain() -> str:
    """Short hash of everything a stored measurement depends on besides the file: our code version, the
    ffmpeg build, PyAV and PySceneDetect. A change to any of them starts a fresh on-disk cache."""
    import av
    import scenedetect

    from agenticvbench.media import ffmpeg_exe

    parts = [FACTS_VERSION, Path(ffmpeg_exe()).name, av.__version__, scenedetect.__version__]
    return f"v{FACTS_VERSION}-" + text_sha256("|".join(parts))[:10]


class _Failure:
    """A memoised exception: re-raised on every later request instead of recomputing."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class MediaFacts:
    """Lazily computed, memoised measurements of one media file (see the module docstring)."""

    def __init__(self, path: Path | str, *, cache_dir: Path | None = None) -> None:
        self.path = Path(path)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.computed: Counter[str] = Counter()  # how often each measurement actually ran (diagnostics, tests)
        self.cache_errors: list[str] = []  # on-disk cache writes that failed (best-effort: scores unaffected)
        self._memo: dict[Hashable, Any] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._guard = threading.Lock()

    # -- memoisation --------------------------------------------------------------------------------------
    def _get(self, key: tuple, compute: Callable[[], T], codec: _Codec | None = None) -> T:
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._memo:
                self._memo[key] = self._load_or_compute(key, compute, codec)
        value = self._memo[key]
        if isinstance(value, _Failure):
            raise value.exc
        return value

    def _load_or_compute(self, key: tuple, compute: Callable[[], Any], codec: _Codec | None) -> Any:
        disk = self._disk_path(key) if codec is not None else None
        if disk is not None and disk.is_file():
            try:
                return codec[1](json.loads(disk.read_text())["value"])  # type: ignore[index]
            except (ValueError, KeyError, TypeError, IndexError):
                pass  # unreadable cache entry: recompute and overwrite
        self.computed[str(key[0])] += 1
        try:
            value = compute()
        except Exception as exc:  # noqa: BLE001 - memoised and re-raised to every caller
            return _Failure(exc)
        if disk is not None:
            self._store(disk, key, codec[0](value))  # type: ignore[index]
        return value

    def _store(self, disk: Path, key: tuple, raw: Any) -> None:
        """Write one measurement to the on-disk cache. Best-effort: a write that fails (unwritable cache dir,
        full disk, a value JSON cannot hold) is noted in `cache_errors` and must not fail the measurement."""
        try:
            atomic_write_json(disk, {"key": [str(k) for k in key], "value": raw})
        except (OSError, ValueError) as exc:
            with self._guard:
                self.cache_errors.append(f"{key[0]}: cache not written ({type(exc).__name__}: {exc})")

    def _disk_path(self, key: tuple) -> Path | None:
        if self.cache_dir is None:
            return None
        try:
            digest = self.sha256()
        except OSError:
            return None
        name = "-".join(str(k).replace("/", "_").replace(" ", "_") for k in key)
        return self.cache_dir / "recap-facts" / digest / f"{_toolchain()}-{name}.json"

    def sha256(self) -> str:
        """SHA-256 of the file (the on-disk cache key)."""
        return self._get(("sha256",), lambda: file_sha256(self.path))

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
    def _black_and_freeze(self) -> None:
        """One split pass for blackdetect(default pix_th) + freezedetect; fills both memo entries."""
        self._require_video()

        def compute() -> tuple[list[ff.Run], list[ff.Run]]:
            black, freeze = ff.detect_black_and_freeze(self.path, pix_th=DEFAULT_PIX_TH, freeze_noise=FREEZE_NOISE)
            return black, freeze or []
        black, freeze = self._get(("blackfreeze",), compute, (lambda v: [_RUNS[0](v[0]), _RUNS[0](v[1])],
                                                             lambda raw: (_RUNS[1](raw[0]), _RUNS[1](raw[1]))))
        self._memo.setdefault(("black", DEFAULT_PIX_TH), black)
        self._memo.setdefault(("freeze",), freeze)

    def black_runs(self, pix_th: float = DEFAULT_PIX_TH) -> list[ff.Run]:
        """Every black run (blackdetect `d=0`, this `pix_th`) of the first video stream."""
        pix_th = float(pix_th)
        self._require_video()
        if pix_th == DEFAULT_PIX_TH:
            self._black_and_freeze()
        return self._get(("black", pix_th),
                         lambda: ff.detect_black_and_freeze(self.path, pix_th=pix_th, with_freeze=False)[0], _RUNS)

    def freeze_runs(self) -> list[ff.Run]:
        """Every freeze run (freezedetect `n=0.003:d=0`); a run still frozen at end of file has `end=None`."""
        self._black_and_freeze()
        return self._get(("freeze",), lambda: ff.detect_black_and_freeze(self.path)[1] or [], _RUNS)

    def decode_errors(self) -> str:
        """stderr of `ffmpeg -v error -i F -f null -` (empty when the file decodes cleanly)."""
        return self._get(("decode",), lambda: ff.decode_error_log(self.path), _PLAIN)

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
        return self._get(("shots", SCENE_THRESHOLD), lambda: detect_shots(self.path, threshold=SCENE_THRESHOLD),
                         _SHOTS)

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
        engine = get_engine()
        return self._get(("ocr", fps, engine.name), lambda: _ocr_video(self.path, fps, engine.read), _PLAIN)


def rms_frames(y: np.ndarray, frame_length: int = RMS_FRAME, hop_length: int = RMS_HOP) -> np.ndarray:
    """`librosa.feature.rms(y=y, frame_length=..., hop_length=...)[0]` (center=True, zero padding, float32 power),
    computed in blocks of frames so memory stays small, and without librosa's lazy imports (seconds on first use)."""
    half = frame_length // 2
    padded = np.pad(np.asarray(y, dtype=np.float32), (half, half))
    windows = np.lib.stride_tricks.sliding_window_view(padded, frame_length)[::hop_length]
    out = np.empty(len(windows), dtype=np.float32)
    block = 1024
    for i in range(0, len(windows), block):
        chunk = windows[i:i + block]
        out[i:i + block] = np.sqrt(np.mean(np.square(chunk), axis=-1, dtype=np.float32))
    return out


def _fps_filter_frames(path: Path, fps: float):
    """Yield the frames ffmpeg's `fps=<fps>` filter would output (each distinct frame once).

    Measured on ffmpeg 9: output k is the last input frame whose time is before (k + 0.5) / fps, and the
    filter emits round(end * fps) frames, where end is the last frame's time plus one frame duration.
    Only the emitted frames are converted to pixels (the decision about a frame needs the next one's time).
    """
    k = 0
    prev: DecodedFrame | None = None
    last_emitted = -1
    frame_dur = None
    frames = iter_decoded(path)
    try:
        for frame in frames:
            if prev is not None:
                frame_dur = frame.time - prev.time
            while prev is not None and frame.time >= (k + 0.5) / fps:
                if prev.index != last_emitted:
                    last_emitted = prev.index
                    yield VideoFrame(prev.index, prev.time, prev.image("bgr24"))
                k += 1
            prev = frame
    finally:
        frames.close()
    if prev is None:
        return
    end = prev.time + (frame_dur if frame_dur and frame_dur > 0 else 0.0)
    if k < max(1, round(end * fps)) and prev.index != last_emitted:
        yield VideoFrame(prev.index, prev.time, prev.image("bgr24"))


def _ocr_video(path: Path, fps: float, read: Callable[[np.ndarray], str]) -> str:
    """OCR every sampled frame; a frame nearly identical to the last one read reuses its (already kept) text."""
    import cv2

    texts: list[str] = []
    last_thumb: np.ndarray | None = None
    for frame in _fps_filter_frames(path, fps):
        thumb = cv2.resize(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), (64, 36),
                           interpolation=cv2.INTER_AREA).astype(np.float32)
        if last_thumb is not None and float(np.mean(np.abs(thumb - last_thumb))) < 0.5:
            continue
        last_thumb = thumb
        text = read(frame.image).strip()
        if text:
            texts.append(text)
    return "\n".join(texts)


def loudness_facts(facts: MediaFacts) -> dict[str, Any]:
    """Measured audio facts for the judge's audio description: has_audio, integrated_lufs, mean_volume_db,
    max_volume_db, longest_silence_s (below -40 dB). A measurement that fails is None; never raises."""
    out: dict[str, Any] = {"has_audio": None, "integrated_lufs": None, "mean_volume_db": None,
                           "max_volume_db": None, "longest_silence_s": None}
    try:
        out["has_audio"] = facts.has_audio()
    except MediaError:
        return out
    if not out["has_audio"]:
        return out
    try:
        stats = facts.loudnorm()
        if stats is not None:
            out["integrated_lufs"] = float(stats["input_i"])
    except (MediaError, KeyError, ValueError, TypeError):
        pass
    try:
        vol = facts.volume()
        if vol is not None:
            out["mean_volume_db"], out["max_volume_db"] = vol.mean_volume, vol.max_volume
    except MediaError:
        pass
    try:
        out["longest_silence_s"] = round(facts.longest_silence_s(SILENCE_DB), 3)
    except (MediaError, ValueError):
        pass
    return out
