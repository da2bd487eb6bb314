"""Edit rubric, video part: both videos streamed once, every fixed sample scored against its source lag band.

Each video is decoded once, sequentially (`FrameWindow`); only frames inside the +/-10-frame lag band stay in
memory; per-frame features are computed lazily (`FrameFeatures`), the dHash of four frames per resize in the
decoding thread; samples are scored by `match_sample` (in `pool` when given) with bounded in-flight work. The
outcome is a `VideoPass`: per chunk its samples (`ChunkVideo`) and the pass's counters.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from agenticvbench.errors import MediaError
from agenticvbench.media import VideoFrame
from agenticvbench.media.chunks import FrameWindow
from agenticvbench.verifiers.repair.features import (
    LAG_BAND_FRAMES,
    FrameFeatures,
    Match,
    dhash64_many,
    fixed_frame,
    match_sample,
)
from agenticvbench.verifiers.repair.source_cache import SourceCache


@dataclass(kw_only=True, frozen=True)
class ChunkPlan:
    """One 10-s chunk: its time span and the frame ranges the official scorer reads for it."""

    index: int
    start: float
    end: float
    src_first: int  # global index of the first source frame (OpenCV seek)
    src_count: int  # round(dur * fps_src): the source buffer length
    fix_first: int
    samples: tuple[int, ...]  # sampled fixed-frame offsets i (local to the chunk)

    @property
    def dur(self) -> float:
        """Chunk duration (s)."""
        return self.end - self.start

    def band(self, i: int) -> tuple[int, int]:
        """Local [lo, hi] source candidates for fixed offset i, clipped to the (full) buffer."""
        return max(0, i - LAG_BAND_FRAMES), min(self.src_count - 1, i + LAG_BAND_FRAMES)


@dataclass(frozen=True)
class ChunkVideo:
    """One chunk's scored samples: time (s), value and lag (frames) of each, in sample order.

    `error` is the official worker's message when scoring a sample raised (the chunk is then dropped);
    `fixed_ended` is True when the fixed video stopped before the chunk's last sample (OpenCV's read() failed).
    """

    ts: tuple[float, ...] = ()
    values: tuple[float, ...] = ()
    lags: tuple[int, ...] = ()
    error: str | None = None
    fixed_ended: bool = False


@dataclass(kw_only=True, frozen=True)
class VideoPass:
    """Outcome of `video_pass`: per-chunk samples, the fixed video's decode error, and the pass's counters.

    Counters: source frames decoded (`n_src_frames`), SSIM pairs computed (`n_ssim`), lag candidates pruned by
    the exact bound (`n_pruned`), band frames left out by the dHash top-k (`n_hash_skipped`) and samples skipped
    because no source frame lies within the lag band (`n_empty_band`).
    """

    chunks: tuple[ChunkVideo, ...]
    fixed_error: str | None = None
    n_src_frames: int = 0
    n_ssim: int = 0
    n_pruned: int = 0
    n_hash_skipped: int = 0
    n_empty_band: int = 0

    @classmethod
    def skipped(cls, n_chunks: int) -> VideoPass:
        """The pass not run (nothing could be scored): `n_chunks` empty chunks, all counters 0."""
        return cls(chunks=tuple(ChunkVideo() for _ in range(n_chunks)))


@dataclass
class _ChunkSamples:
    """A chunk's samples while the pass runs (frozen into a `ChunkVideo` at the end)."""

    ts: list[float] = field(default_factory=list)
    values: list[float] = field(default_factory=list)
    lags: list[int] = field(default_factory=list)
    error: str | None = None
    fixed_ended: bool = False

    def freeze(self) -> ChunkVideo:
        return ChunkVideo(tuple(self.ts), tuple(self.values), tuple(self.lags), self.error, self.fixed_ended)


def _ranges_wanted(ranges: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Membership test for a sorted list of half-open [a, b) ranges, queried with increasing indices."""
    state = {"j": 0}

    def wanted(idx: int) -> bool:
        j = state["j"]
        while j < len(ranges) and ranges[j][1] <= idx:
            j += 1
        state["j"] = j
        return j < len(ranges) and ranges[j][0] <= idx

    return wanted


def video_pass(
    fixed: Path,
    source: Path,
    plans: Sequence[ChunkPlan],
    fps_fix: float,
    size: tuple[int, int],
    cache: SourceCache,
    pool: ThreadPoolExecutor | None,
    workers: int,
) -> VideoPass:
    """Stream both videos once and score every sample of `plans` (fixed frames resized to the source's `size`).

    Samples are scored in `pool` when given (at most `workers + 2` in flight), else inline. New source features
    are saved to `cache` (best-effort). Raises `MediaError` when the source yields no frame at all.
    """
    src_ranges = sorted(
        (p.src_first, p.src_first + min(p.src_count, p.samples[-1] + LAG_BAND_FRAMES + 1))
        for p in plans
        if p.samples
    )
    fix_idx = sorted({p.fix_first + i for p in plans for i in p.samples})
    fix_set = set(fix_idx)
    threaded = workers > 1
    # `VideoPass`'s counters; n_src_frames is counted in the source's decoding thread only
    tally: Counter[str] = Counter()

    def make_src(vf: VideoFrame) -> FrameFeatures:
        tally["n_src_frames"] += 1
        dh, lv = cache.lookup(vf.index)
        # usually compared once; the Laplacian variance only if it becomes a lag candidate
        f = FrameFeatures(vf.index, vf.image, dhash=dh, lapvar=lv, on_small=cache.recorder)
        if dh is None:
            f.prepare(gray=True)  # converted here, in the decoding thread; the dHash follows in `hash_batch`
        return f

    def hash_batch(feats: list[FrameFeatures]) -> None:
        """dHash of every source frame (all are ranked) and fixed sample, in the decoding thread, four per resize."""
        todo = [f for f in feats if not f.has_dhash]
        for f, h in zip(todo, dhash64_many([f.gray for f in todo]), strict=True):
            f.set_dhash(h)

    chunks = [_ChunkSamples() for _ in plans]
    if not fix_idx:
        return VideoPass(chunks=tuple(c.freeze() for c in chunks))
    src = FrameWindow(
        source,
        _ranges_wanted(src_ranges),
        src_ranges[-1][1] - 1,
        make_src,
        prefetch=4,
        threaded=threaded,
        batch=4,
        on_batch=hash_batch,
    )
    fix = FrameWindow(
        fixed,
        fix_set.__contains__,
        fix_idx[-1],
        lambda vf: fixed_frame(vf.index, vf.image, size, eager=True, hash_later=True),
        prefetch=3,
        threaded=threaded,
        batch=4,
        on_batch=hash_batch,
    )
    work = [(p, i) for p in plans for i in p.samples]
    pending: deque[tuple[int, Future[Match] | Match]] = deque()

    def collect(limit: int) -> None:
        while len(pending) > limit:
            w, fut = pending.popleft()
            plan, i = work[w]
            ch = chunks[plan.index]
            try:
                m = fut.result() if isinstance(fut, Future) else fut
            except Exception as exc:  # noqa: BLE001 - upstream drops a chunk whose worker raised
                ch.error = ch.error or f"chunk failed: {type(exc).__name__}: {exc}"
                continue
            ch.ts.append(plan.start + i / fps_fix)
            ch.values.append(m.value)
            ch.lags.append(m.lag)
            tally["n_ssim"] += m.n_ssim
            tally["n_pruned"] += m.n_pruned
            tally["n_hash_skipped"] += m.n_hash_skipped

    with src, fix:
        for w, (plan, i) in enumerate(work):
            ch = chunks[plan.index]
            if ch.fixed_ended or ch.error:
                continue
            fx = fix.get(plan.fix_first + i)
            if fx is None:  # cv2 read() failed: the official loop stops this chunk here
                ch.fixed_ended = True
                continue
            lo, hi = plan.band(i)
            band: list[FrameFeatures] = []
            for j in range(lo, hi + 1):
                f = src.get(plan.src_first + j)
                if f is None:  # the source ended: the buffer is shorter
                    break
                band.append(f)
            if not band:  # upstream: no source frame within the band, the sample is skipped
                tally["n_empty_band"] += 1
            elif pool is not None:
                pending.append((w, pool.submit(match_sample, fx, band, i, lo)))
            else:
                try:
                    pending.append((w, match_sample(fx, band, i, lo)))
                except Exception as exc:  # noqa: BLE001
                    ch.error = f"chunk failed: {type(exc).__name__}: {exc}"
            if w + 1 < len(work):
                nplan, ni = work[w + 1]
                src.release_below(nplan.src_first + nplan.band(ni)[0])
                fix.release_below(nplan.fix_first + ni)
            collect(workers + 2)  # bounded in-flight work: bounded memory
        collect(0)
        fixed_error = fix.error
        if src.error and not tally["n_src_frames"]:
            raise MediaError(f"{source}: {src.error}")
    cache.save()  # best-effort: a failed write lands in cache.write_errors
    return VideoPass(
        chunks=tuple(c.freeze() for c in chunks),
        fixed_error=fixed_error,
        **tally,
    )
