"""`SeekAudio` against what ffmpeg 5.1, the official scorer's ffmpeg, returns for `-ss S -t T` per chunk.

The reference spans in `tests/data/repair-edit-ends/spans.npz` were extracted with Debian 12's ffmpeg 5.1 from
the committed pairs (`make.py` there): AAC and Opus, keyframes exactly on the chunk starts (so the official
decode starts fresh at the chunk), a fix that ends on a chunk boundary (its next chunk is only end padding),
one that ends mid-chunk, and one whose audio starts 0.35 s after its video.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agenticvbench.errors import MediaError
from agenticvbench.media import run_ffmpeg
from agenticvbench.media.chunks import pcm_s16
from agenticvbench.media.seek_audio import SeekAudio, rescale

DATA = Path(__file__).resolve().parents[1] / "data" / "repair-edit-ends"
META = json.loads((DATA / "expected.json").read_text())
HEAD, STRIDE = META["spans"]["head"], META["spans"]["stride"]
SPANS = [tuple(s) for s in META["spans"]["list"]]
FILES = sorted(p.name for p in DATA.glob("*.mp4"))
LSB = 2  # the AAC and Opus decoders of ffmpeg 5.1 and of PyAV's libavcodec round a few samples differently


@pytest.fixture(scope="module")
def reference() -> dict[str, np.ndarray]:
    with np.load(DATA / "spans.npz") as data:
        return {k: data[k] for k in data.files}


@pytest.mark.slow
@pytest.mark.parametrize("name", FILES)
def test_spans_equal_ffmpeg_51(reference: dict[str, np.ndarray], name: str) -> None:
    """Every span has ffmpeg 5.1's length and its samples within 2 LSB: the first 16,000 (where a fresh decoder's
    transient lives) in full, the rest at every 127th sample."""
    audio = SeekAudio(DATA / name)
    assert audio.emulates
    for start, dur in SPANS:
        key = f"{Path(name).stem}@{start:.3f}+{dur:.3f}"
        ours = audio.span(start, dur).astype(np.int32)
        assert ours.size == int(reference[key + ":size"][0]), key
        head, strided = (
            reference[key + ":head"].astype(np.int32),
            reference[key + ":strided"].astype(np.int32),
        )
        assert np.abs(ours[:HEAD] - head).max(initial=0) <= LSB, key
        assert np.abs(ours[HEAD::STRIDE] - strided).max(initial=0) <= LSB, key


def test_a_fix_ending_on_a_chunk_boundary_keeps_its_end_padding() -> None:
    """ffmpeg 5.1 decodes the last packet in full: a 20.000-s fix still yields the encoder's padding in the chunk
    at 20 s (AAC: 20 s is 937.5 frames, so 512 samples; Opus: 20-ms frames after a 312-sample pre-skip, 648),
    and nothing past it."""
    aac, opus = SeekAudio(DATA / "fixed_aac_end20.mp4"), SeekAudio(DATA / "fixed_opus_end20.mp4")
    assert aac.span(20.0, 10.0).size == 512 and opus.span(20.0, 10.0).size == 648
    assert aac.span(20.02, 10.0).size == 0 and opus.span(30.0, 2.0).size == 0


def test_a_chunk_on_a_keyframe_is_not_a_slice_of_the_whole_decode() -> None:
    """Regression: one whole-file decode sliced per chunk was taken for the official extraction. On a keyframe
    the official decode restarts, so its first ~0.3 s differ (Opus converges; AAC restarts its noise generator),
    and the padding-only chunk after a fix's end is that transient alone."""
    path = DATA / "fixed_opus_end20.mp4"
    whole, emulated = pcm_s16(path).astype(np.int32), SeekAudio(path).span(10.0, 10.0).astype(np.int32)
    assert emulated.size == 480000
    assert np.abs(whole[480000 : 480000 + 16000] - emulated[:16000]).max() > 100
    assert np.abs(whole[480000 + 24000 : 960000] - emulated[24000:]).max() <= LSB


def test_other_containers_are_not_emulated(tmp_path: Path) -> None:
    """Matroska seeks land elsewhere in ffmpeg 5.1; `emulates` is False, so the edit extracts per chunk with the
    ffmpeg binary instead (the official command line)."""
    mkv = tmp_path / "a.mkv"
    run_ffmpeg(["-v", "error", "-i", str(DATA / "fixed_opus_end17.mp4"), "-c", "copy", str(mkv)], check=True)
    assert not SeekAudio(mkv).emulates


def test_no_audio_stream_and_unreadable_files_raise_media_error(tmp_path: Path) -> None:
    silent = tmp_path / "v.mp4"
    run_ffmpeg(
        ["-v", "error", "-i", str(DATA / "source_aac.mp4"), "-an", "-c", "copy", str(silent)], check=True
    )
    with pytest.raises(MediaError, match="no audio stream"):
        SeekAudio(silent)
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00" * 1000)
    with pytest.raises(MediaError):
        SeekAudio(junk)


def test_a_truncated_file_gives_shorter_spans_not_an_exception(tmp_path: Path) -> None:
    """A fix cut off mid-write (as an agent killed by its timeout leaves it) still yields what is there."""
    src = DATA / "fixed_aac_end17.mp4"
    moov_first = tmp_path / "faststart.mp4"
    run_ffmpeg(
        ["-v", "error", "-i", str(src), "-c", "copy", "-movflags", "+faststart", str(moov_first)], check=True
    )
    cut = tmp_path / "cut.mp4"
    data = moov_first.read_bytes()
    cut.write_bytes(data[: len(data) * 6 // 10])
    audio = SeekAudio(cut)
    first, last = audio.span(0.0, 10.0), audio.span(10.0, 10.0)
    assert first.size > 5 * 48000 and first.size + last.size < 0.8 * 17.3 * 48000


def test_rescale_rounds_like_av_rescale_q() -> None:
    """Nearest, halves away from zero (AV_ROUND_NEAR_INF), in both directions."""
    from fractions import Fraction

    assert (
        rescale(1, Fraction(1, 2), Fraction(1, 1)) == 1 and rescale(-1, Fraction(1, 2), Fraction(1, 1)) == -1
    )
    assert rescale(10_000_000, Fraction(1, 1_000_000), Fraction(1, 12800)) == 128000


# ------------------------------------------------------------------- what the emulation was not checked on ----


def _tone(tmp: Path, name: str, *extra: str, inputs: int = 1) -> Path:
    out = tmp / name
    args = ["-v", "error", "-y"]
    for i in range(inputs):
        args += ["-f", "lavfi", "-i", f"sine=frequency={300 + 100 * i}:sample_rate=48000:duration=3"]
    run_ffmpeg([*args, *extra, str(out)], check=True)
    return out


@pytest.mark.slow
def test_seven_one_audio_falls_back_to_the_command_line(tmp_path: Path) -> None:
    """Regression: 7.1 audio crashed the process (PyAV's `to_ndarray` on a 9-plane frame read past its data).
    Only mono and stereo are emulated; the rest takes the official command line, run by the bundled ffmpeg."""
    from agenticvbench.verifiers.repair.edit import plan_chunks
    from agenticvbench.verifiers.repair.edit_audio import file_spans

    clip = _tone(
        tmp_path,
        "71.mp4",
        "-filter_complex",
        "amerge=inputs=8,aformat=channel_layouts=7.1",
        "-c:a",
        "aac",
        inputs=8,
    )
    assert not SeekAudio(clip).emulates
    spans, mode = file_spans(clip, plan_chunks(3.0, 25.0, 25.0))
    assert mode == "per-chunk"
    sizes = [v.size for v in spans.values() if not isinstance(v, str)]
    assert (
        len(sizes) == 1 and 144000 - 1024 <= sizes[0] <= 144000
    )  # the bundled ffmpeg may drop one AAC frame


def test_two_audio_streams_fall_back_to_the_command_line(tmp_path: Path) -> None:
    """Regression: the first audio stream was read where ffmpeg picks its own (the default-marked one, else the
    one with the most channels); with more than one audio stream the official command line decides."""
    clip = _tone(tmp_path, "two.mp4", "-map", "0:a", "-map", "1:a", "-c:a", "aac", inputs=2)
    assert not SeekAudio(clip).emulates


def test_mostly_undecodable_audio_fails_the_chunk(tmp_path: Path) -> None:
    """Regression: an AAC header patched to claim 3 channels makes every packet fail to decode. ffmpeg 5.1 then
    exits 69 (more than 2/3 of its decodes failed) and the official chunk fails; the emulation returned an empty
    span instead, so the audio silently left the mean (edit 60/60 for a fix whose audio cannot be heard)."""
    from agenticvbench.verifiers.repair.edit import plan_chunks
    from agenticvbench.verifiers.repair.edit_audio import file_spans

    clip = _tone(tmp_path, "aac.mp4", "-ac", "2", "-c:a", "aac")
    import av

    with av.open(str(clip)) as container:
        asc = bytes(container.streams.audio[0].codec_context.extradata)
    data = clip.read_bytes()
    at = data.find(asc, data.find(b"esds"))
    assert at > 0 and asc[1] & 0x78 == 0x10  # channel configuration 2
    patched = tmp_path / "three.mp4"
    patched.write_bytes(data[: at + 1] + bytes([(asc[1] & 0x87) | 0x18]) + data[at + 2 :])  # channel config 3
    spans, _ = file_spans(patched, plan_chunks(3.0, 25.0, 25.0))
    assert spans and all(isinstance(v, str) and v.startswith("chunk failed") for v in spans.values())
