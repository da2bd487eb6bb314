"""Per-frame edit features and the media parity they rely on (decode, seek, PCM)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from agenticvbench.errors import MediaError
from agenticvbench.media import iter_frames, run_ffmpeg
from agenticvbench.media.chunks import FrameWindow, opencv_seek_frame, pcm_s16
from agenticvbench.verifiers.repair.features import (
    FrameFeatures,
    chroma,
    dhash64,
    dhash64_many,
    fixed_frame,
    hamming,
    laplacian_variance,
    sharpness,
)

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "repair-edit"


def _bgr(seed: int, h: int = 36, w: int = 64) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (h, w, 3), dtype=np.uint8)


@pytest.fixture(scope="module")
def ntsc60(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny 11-s clip at 60000/1001 fps, where OpenCV's 10-s seek lands *before* 10 s."""
    out = tmp_path_factory.mktemp("ntsc") / "ntsc60.mp4"
    run_ffmpeg(
        [
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "nullsrc=s=32x16:r=60000/1001:d=11",
            "-vf",
            "geq=lum='16+mod(N,200)':cb='64+16*floor(N/200)':cr=128",
            "-c:v",
            "libx264",
            "-qp",
            "0",
            "-g",
            "30",
            str(out),
        ],
        check=True,
    )  # every frame a distinct flat grey: the frame index is recoverable
    return out


# ------------------------------------------------------------------------------------------ features ----


def test_dhash_matches_reference_bit_order_free() -> None:
    for seed in range(5):
        gray = cv2.cvtColor(_bgr(seed, 90, 160), cv2.COLOR_BGR2GRAY)
        small = cv2.resize(gray, (9, 8), interpolation=cv2.INTER_AREA)
        ref = [int(small[r, c + 1] > small[r, c]) for r in range(8) for c in range(8)]
        h = dhash64(gray)
        assert [(h >> (63 - k)) & 1 for k in range(64)] == ref
        assert hamming(h, h) == 0 and hamming(h, h ^ 0b1011) == 3


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(1080, 1920), (360, 640), (64, 72), (97, 131), (8, 9)])
def test_dhash_many_matches_one(shape: tuple[int, int]) -> None:
    """The batched dHash (four frames as the channels of one resize) must give the official single-frame bits
    for every frame, at non-integer (1920 -> 9), integer (72 -> 9) and odd scales; a group of mixed sizes or a
    remainder falls back to one frame at a time."""
    rng = np.random.default_rng(shape[0])
    base = rng.integers(0, 256, shape, dtype=np.uint8)
    grays = [cv2.GaussianBlur(np.roll(base, 3 * k, axis=1), (0, 0), 1 + k % 3) for k in range(9)]
    grays += [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(4)]
    assert dhash64_many(grays) == [dhash64(g) for g in grays]
    mixed = [grays[0], grays[1], cv2.cvtColor(_bgr(1, 90, 160), cv2.COLOR_BGR2GRAY), grays[2]]
    assert dhash64_many(mixed) == [dhash64(g) for g in mixed]


def test_laplacian_variance_equals_opencv_float64() -> None:
    for seed in range(4):
        gray = cv2.cvtColor(_bgr(seed, 90, 160), cv2.COLOR_BGR2GRAY)
        ref = cv2.Laplacian(gray, cv2.CV_64F).var()
        assert laplacian_variance(gray) == pytest.approx(ref, rel=1e-13)
    assert laplacian_variance(np.full((20, 20), 9, np.uint8)) == 0.0


def test_laplacian_variance_is_correctly_rounded_on_smooth_frames() -> None:
    """Smooth frames have a small variance, so an error of one unit in the sum of squares shows: OpenCV's
    `norm(NORM_L2SQR)` returned 364103350.99999994 for 364103351, and truncating it was off by 4e-7. The
    variance must equal the exact rational (n*Q - S^2) / n^2, rounded once."""
    from fractions import Fraction

    for seed in range(8):
        gray = cv2.cvtColor(_bgr(seed, 360, 640), cv2.COLOR_BGR2GRAY)
        gray = cv2.GaussianBlur(gray, (0, 0), 2.11) if seed % 2 else gray
        lap = cv2.Laplacian(gray, cv2.CV_64F).astype(np.int64)
        n, total, squares = lap.size, int(lap.sum()), int((lap * lap).sum())
        assert laplacian_variance(gray) == float(Fraction(n * squares - total * total, n * n)), seed


def test_chroma_and_sharpness_follow_the_spec() -> None:
    a, b = FrameFeatures(0, _bgr(1)), FrameFeatures(1, _bgr(2))
    lab_a = cv2.cvtColor(_bgr(1), cv2.COLOR_BGR2LAB)[..., 1:].astype(np.float64)
    lab_b = cv2.cvtColor(_bgr(2), cv2.COLOR_BGR2LAB)[..., 1:].astype(np.float64)
    ref = max(0.0, 1.0 - np.abs(lab_a - lab_b).mean() / 25.0)
    assert chroma(a, b) == pytest.approx(ref, abs=1e-12)
    assert chroma(a, FrameFeatures(2, _bgr(1))) == 1.0
    flat = FrameFeatures(3, np.full((36, 64, 3), 80, np.uint8))
    assert sharpness(a, flat) == 1.0  # a source with lapvar <= 1 never penalises
    assert sharpness(flat, a) == 0.0  # a flat fix against a textured source
    assert sharpness(a, b) == pytest.approx(min(1.0, a.lapvar / b.lapvar))


def test_frame_features_are_lazy_and_drop_the_bgr_image() -> None:
    img = _bgr(5)
    f = FrameFeatures(7, img, dhash=123, lapvar=4.5)
    assert f.dhash == 123 and f.lapvar == 4.5 and f.has_dhash and f.has_lapvar
    assert np.array_equal(f.gray, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert f._bgr is not None  # Lab not computed yet: the image is still needed
    assert np.array_equal(f.lab, cv2.cvtColor(img, cv2.COLOR_BGR2LAB))
    assert f._bgr is None and f.shape == (36, 64)


def test_fixed_frame_is_resized_to_the_source_size_with_inter_area() -> None:
    big = _bgr(6, 72, 128)
    f = fixed_frame(0, big, (64, 36))
    assert np.array_equal(
        f.gray, cv2.cvtColor(cv2.resize(big, (64, 36), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    )
    assert fixed_frame(0, big, (128, 72)).shape == (72, 128)


# ------------------------------------------------------------------------------ media parity ----


def test_pyav_bgr24_equals_opencv_frames_including_after_seek() -> None:
    """The official scorer reads frames with cv2.VideoCapture; PyAV's bgr24 must give the same pixels."""
    ours = {
        f.index: f.image
        for f in iter_frames(GOLDEN / "source.mp4", wanted=lambda i: i < 6 or 238 <= i < 244, last=243)
    }
    cap = cv2.VideoCapture(str(GOLDEN / "source.mp4"))
    try:
        for i in range(6):
            ok, img = cap.read()
            assert ok and np.array_equal(img, ours[i])
        cap.set(cv2.CAP_PROP_POS_MSEC, 10.0 * 1000)
        ok, img = cap.read()
        assert (
            ok
            and np.array_equal(img, ours[opencv_seek_frame(10.0, 24.0)])
            and opencv_seek_frame(10.0, 24.0) == 240
        )
    finally:
        cap.release()


def test_opencv_seek_lands_on_the_rounded_frame_even_before_start(ntsc60: Path) -> None:
    """At 59.94 fps a 10-s seek returns frame 599 (t = 9.993 s): "first frame with t >= start" would be 600."""
    fps = 60000 / 1001
    frames = [f.image for f in iter_frames(ntsc60)]
    cap = cv2.VideoCapture(str(ntsc60))
    try:
        for start in (0.0, 3.3, 9.99, 10.0):
            cap.set(cv2.CAP_PROP_POS_MSEC, start * 1000)
            ok, img = cap.read()
            got = [i for i, f in enumerate(frames) if np.array_equal(f, img)]
            assert ok and got == [opencv_seek_frame(start, fps)], start
    finally:
        cap.release()
    assert opencv_seek_frame(10.0, fps) == 599 and 599 / fps < 10.0


def test_pcm_chunks_equal_slices_of_one_decode() -> None:
    """Official per-chunk `-ss/-t` extraction is bit-identical to slicing a single whole-file decode."""
    whole = pcm_s16(GOLDEN / "f_reencode.mp4")
    for start in (0.0, 10.0):
        chunk = pcm_s16(GOLDEN / "f_reencode.mp4", start_s=start, duration_s=10.0)
        a0 = round(start * 48000)
        assert chunk.size == 480000 and np.array_equal(chunk, whole[a0 : a0 + chunk.size])


def test_pcm_without_audio_raises_with_ffmpegs_reason() -> None:
    with pytest.raises(MediaError, match="does not contain any stream"):
        pcm_s16(GOLDEN / "f_noaudio.mp4")


@pytest.mark.parametrize("threaded", [True, False])
def test_frame_window_serves_wanted_frames_forward_only(threaded: bool) -> None:
    wanted = {3, 4, 10, 11, 40}
    with FrameWindow(
        GOLDEN / "source.mp4", wanted.__contains__, 40, lambda vf: vf.index * 2, prefetch=2, threaded=threaded
    ) as win:
        assert win.get(3) == 6 and win.get(5) is None and win.get(4) == 8
        win.release_below(10)
        assert win.get(4) is None and win.get(11) == 22 and win.get(10) == 20
        assert win.get(40) == 80 and win.get(41) is None and win.ended and win.error is None


@pytest.mark.parametrize("threaded", [True, False])
def test_frame_window_batches_pass_through_on_batch_in_order(threaded: bool) -> None:
    """With `batch`, every wanted frame still comes out once, in order, and each went through `on_batch` in a
    group of consecutive wanted frames (the last group shorter), before the consumer could see it."""
    wanted = {1, 2, 3, 5, 8, 9, 13}
    groups: list[list[int]] = []
    with FrameWindow(
        GOLDEN / "source.mp4",
        wanted.__contains__,
        13,
        lambda vf: [vf.index],
        prefetch=2,
        threaded=threaded,
        batch=3,
        on_batch=lambda items: groups.append([it[0] for it in items]),
    ) as win:
        got = [win.get(i) for i in range(14)]
    assert [g[0] for g in got if g is not None] == sorted(wanted)
    assert groups == [[1, 2, 3], [5, 8, 9], [13]]


def test_frame_window_on_a_file_without_video_is_empty(tmp_path: Path) -> None:
    wav = tmp_path / "a.wav"
    run_ffmpeg(["-v", "error", "-f", "lavfi", "-i", "sine=d=0.2", str(wav)], check=True)
    with FrameWindow(wav, lambda i: True, 10, lambda vf: vf) as win:
        assert win.get(0) is None and win.ended and "no video stream" in (win.error or "")


def test_prepare_computes_named_features_only() -> None:
    """`prepare` is the explicit command that replaced reading properties for their side effect: it computes
    exactly the features it names (so the decoding thread can do the work) and gives the lazy values."""
    import numpy as np

    from agenticvbench.verifiers.repair.features import FrameFeatures, dhash64, laplacian_variance

    rng = np.random.default_rng(0)
    bgr = rng.integers(0, 256, (36, 64, 3), dtype=np.uint8)
    f = FrameFeatures(0, bgr)
    f.prepare(gray=True)
    assert f._gray is not None and f._lab is None and not f.has_dhash
    f.prepare(lab=True, lapvar=True)
    assert f._lab is not None and f._lapvar == laplacian_variance(f.gray) and not f.has_dhash
    f.prepare(dhash=True)
    assert f.has_dhash and f.dhash == dhash64(f.gray)
