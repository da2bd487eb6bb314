"""Identity by content that knows the task's own input: a file is the verifier-only source when it holds the
source's packets that its input does not (whatever its other streams hold), and packet framing or padding that
decoders ignore changes nothing. Honest fixes made from the input alone, including ones that keep the input's
untouched packets, are never refused. Generated 160x90 clips, a few seconds each."""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import av
import pytest
from adversarial import ffmpeg

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.dataset.tasks import Task
from agenticvbench.fsutil import file_sha256
from agenticvbench.integrity.identity import NOVEL_SHARE, holds, novel_shares, read_content
from agenticvbench.integrity.screen import Screening, screen_inputs
from agenticvbench.runs.submission import InputRejected, Submission, open_run

WINDOW = (1.5, 1.75)  # seconds: the defect window of the generated inputs (short, as in real clips)
V = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]


def _rewrite(src: Path, out: Path, audio: Callable[[bytes], bytes]) -> Path:
    """`src`'s packets muxed into `out` as they are, each audio payload passed through `audio`."""
    with av.open(str(src)) as inp, av.open(str(out), "w") as o:
        streams = {s.index: o.add_stream_from_template(s) for s in inp.streams}
        for p in inp.demux():
            if not p.size:
                continue
            q = av.Packet(audio(bytes(p)) if p.stream.type == "audio" else bytes(p))
            q.pts, q.dts, q.time_base, q.duration = p.pts, p.dts, p.time_base, p.duration
            q.is_keyframe, q.stream = p.is_keyframe, streams[p.stream.index]
            o.mux(q)
    return out


def _splice(base: Path, window: Path, out: Path) -> Path:
    """`base` whose audio packets starting inside `WINDOW` are taken from `window` (same encoder settings)."""
    with av.open(str(base)) as a, av.open(str(window)) as b, av.open(str(out), "w", format="mp4") as o:
        streams = {s.index: o.add_stream_from_template(s) for s in a.streams}
        audio = next(s.index for s in a.streams if s.type == "audio")

        def inside(p: Any) -> bool:
            return WINDOW[0] <= float(p.pts * p.time_base) < WINDOW[1]

        packets = [
            (p, p.stream.index) for p in a.demux() if p.size and not (p.stream.type == "audio" and inside(p))
        ]
        packets += [(p, audio) for p in b.demux() if p.size and p.stream.type == "audio" and inside(p)]
        for p, index in sorted(packets, key=lambda x: (float(x[0].dts * x[0].time_base), x[1])):
            p.stream = streams[index]
            o.mux(p)
    return out


def _opus_padded(payload: bytes) -> bytes:
    """An Opus code-0 packet as a code-3 packet of one frame with 7 padding bytes (RFC 6716, 3.2.5)."""
    if payload[0] & 3:
        return payload
    return bytes([payload[0] | 3, 0x41, 7]) + payload[1:] + b"\0" * 7


@dataclass
class Clips:
    """The generated source, inputs, honest fixes and cheats (see `clips`)."""

    d: Path

    def __getattr__(self, name: str) -> Path:
        return self.d / f"{name}.mp4"


@pytest.fixture(scope="module")
def clips(tmp_path_factory: pytest.TempPathFactory) -> Clips:
    """A 4-s source (x264 + AAC pink noise), inputs broken both ways, honest fixes made from each input alone,
    and the cheats."""
    c = Clips(tmp_path_factory.mktemp("identity"))
    lavfi = [
        "-f",
        "lavfi",
        "-i",
        "testsrc2=s=160x90:r=25:d=4",
        "-f",
        "lavfi",
        "-i",
        "anoisesrc=c=pink:r=48000:d=4",
    ]
    ffmpeg(*lavfi, *V, "-c:a", "aac", "-shortest", str(c.source))
    s, w = str(c.source), f"between(t,{WINDOW[0]},{WINDOW[1]})"
    # a video defect re-encoded whole (its audio copied), and its honest fix: the picture re-encoded, sound copied
    ffmpeg("-i", s, "-vf", f"eq=brightness=0.3:enable='{w}'", *V, "-c:a", "copy", str(c.video_broken))
    ffmpeg(
        "-i",
        str(c.video_broken),
        "-vf",
        f"eq=brightness=-0.3:enable='{w}'",
        *V,
        "-c:a",
        "copy",
        str(c.video_fix),
    )
    # an audio defect: noise over the window, the sound re-encoded whole (video copied) ...
    noisy = ["-af", f"volume=8:enable='{w}'", "-c:v", "copy", "-c:a", "aac"]
    ffmpeg("-i", s, *noisy, str(c.audio_broken))
    # ... or spliced: the source's own packets outside the window, the noisy ones inside
    _splice(c.source, c.audio_broken, c.spliced_broken)
    for broken, fix in ((c.audio_broken, c.audio_fix), (c.spliced_broken, c.spliced_fix)):
        lowpass = ["-af", f"volume=0.125:enable='{w}'", "-c:v", "copy", "-c:a", "aac"]
        ffmpeg("-i", str(broken), *lowpass, str(c.d / "whole_fix.mp4"))
        _splice(broken, c.d / "whole_fix.mp4", fix)  # only the window's packets re-encoded
    ffmpeg(
        "-i", s, "-map", "0", "-c:v", "copy", "-c:a", "aac", "-b:a", "192k", str(c.one_stream)
    )  # video copied
    ffmpeg("-i", s, "-map", "0", "-c", "copy", "-f", "mpegts", "-mpegts_flags", "latm", str(c.latm))
    _rewrite(c.source, c.padded, lambda b: b + b"\0")  # a zero byte after every AAC raw data block
    ffmpeg("-i", s, "-map", "0", "-c:a", "copy", "-c:v", "libx264", "-qp", "0", str(c.lossless))
    return c


def _contents(*paths: Path) -> list[Any]:
    return [read_content(p, 10**6) for p in paths]


def test_decoder_ignored_framing_and_padding_change_no_digest(clips, tmp_path):
    """LATM framing (MPEG-TS `-mpegts_flags latm`: codec `aac_latm`, the AudioMuxElement hashed whole) matched 0 %
    of the source's sound, and a zero byte after every AAC raw data block (decoded output bit-identical) matched
    none either. Audio packets now also carry a digest of the samples they decode to, and both hold all of those; so
    does Opus with padding in every packet (code 3 frames)."""
    source, latm, padded = _contents(clips.source, clips.latm, clips.padded)
    assert latm.first("audio").codec == "aac_latm"
    for other in (latm, padded):
        assert not set(other.first("audio").digests) & set(
            source.first("audio").digests
        )  # every payload differs
        assert set(other.first("audio").decoded) >= set(source.first("audio").decoded[1:])
    opus = tmp_path / "opus.mkv"
    ffmpeg("-i", str(clips.source), "-c:v", "copy", "-c:a", "libopus", str(opus))
    padded = _rewrite(opus, tmp_path / "padded.mkv", _opus_padded)
    a, b = (c.first("audio") for c in _contents(opus, padded))
    assert b.payload_bytes > a.payload_bytes and list(a.decoded[:-1]) == list(
        b.decoded[:-1]
    )  # end trim aside


def test_input_aware_counting_catches_one_copied_stream(clips):
    """The source's video copied bit for bit, only the sound re-encoded, scored 1.0: the old rule wanted every
    stream. The video-defect input holds almost none of the source's video, so those packets could not come from
    it: held. The same clip without the input (another task's reference) keeps the old rule: not held."""
    source, one, given = _contents(clips.source, clips.one_stream, clips.video_broken)
    assert dict(novel_shares(one, source, [given]))["video"] == 1.0
    assert holds(one, source, [given]) and not holds(one, source)


@pytest.mark.parametrize("cheat", ["latm", "padded"])
def test_remuxes_with_other_audio_framing_hold_the_source(clips, cheat):
    """The LATM remux and the padded AAC (both scored unflagged before) against the audio-defect input, which
    holds the source's video, so only the sound is evidence: both hold every stream and all the sound it lacks."""
    source, file, given = _contents(clips.source, getattr(clips, cheat), clips.audio_broken)
    assert dict(novel_shares(file, source, [given])) == {"video": None, "audio": 1.0}
    assert holds(file, source, [given])


@pytest.mark.parametrize("broken", ["video_broken", "audio_broken", "spliced_broken"])
def test_honest_fixes_made_from_the_input_are_never_the_source(clips, broken):
    """A spliced input keeps the source's packets outside its window; it, and an honest fix that re-encodes
    only the window and copies the rest, held 90 % of the source and were refused. They hold none of the packets
    the input lacks, so neither is held now; likewise for inputs re-encoded whole and their fixes."""
    fix = {
        "video_broken": clips.video_fix,
        "audio_broken": clips.audio_fix,
        "spliced_broken": clips.spliced_fix,
    }
    source, given, fixed = _contents(clips.source, getattr(clips, broken), fix[broken])
    for file in (given, fixed):
        shares = [s for _, s in novel_shares(file, source, [given]) if s is not None]
        assert shares and max(shares) < 0.05 and not holds(file, source, [given]), shares
    if broken == "spliced_broken":
        assert holds(given, source)  # what the old rule refused


def test_sound_alone_is_the_lossless_re_encode_by_design(clips):
    """The demo's perfect run and Harbor's gold output re-encode the source's video losslessly and copy its sound
    (no lossy codec re-encodes sound losslessly): indistinguishable from a perfect fix, so never held, though its
    sound is all of what the audio-defect input lacks."""
    source, file, given = _contents(clips.source, clips.lossless, clips.audio_broken)
    assert dict(novel_shares(file, source, [given]))["audio"] >= NOVEL_SHARE
    assert not holds(file, source, [given])


@dataclass
class _Source:
    """A task source handing out the generated input and source."""

    inputs: list[Path]
    refs: list[Path]
    resolved_revision: str = "local"

    def fetch_materials(self, task: Task, *, progress: bool = False) -> list[Path]:
        return self.inputs

    def fetch_verifier_references(self, task: Task, *, progress: bool = False) -> list[Path]:
        return self.refs

    def provenance(self) -> dict[str, Any]:
        return {}


def _screen(demo: Any, clips: Clips, broken: Path, files: dict[str, Path], tmp_path: Path) -> Screening:
    """Screen a task folder holding `files` (name -> file) for demo task 65 pointed at the generated clips."""
    task = next(t for t in load_tasks(dataset=demo.mirror) if t.task_id == 65)
    task = dataclasses.replace(task, source=_Source([broken], [clips.source]))
    folder = tmp_path / "65"
    folder.mkdir(parents=True, exist_ok=True)
    for name, f in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, folder / name)
    hashes = {folder / "fixed.mp4": file_sha256(folder / "fixed.mp4")} if "fixed.mp4" in files else {}
    return screen_inputs(task, Submission(65, folder), hashes)


@pytest.mark.parametrize("cheat", ["one_stream", "latm", "padded"])
def test_screening_refuses_the_cheats(demo, clips, tmp_path, cheat):
    """The cheats as a repair task's fixed.mp4, against the input they attack: malformed, naming the source."""
    broken = clips.video_broken if cheat == "one_stream" else clips.audio_broken
    with pytest.raises(InputRejected, match="holds the verifier-only reference source.mp4 of task 65"):
        _screen(demo, clips, broken, {"fixed.mp4": getattr(clips, cheat)}, tmp_path)


def test_screening_keeps_the_spliced_input_and_its_fix(demo, clips, tmp_path):
    """The spliced input through screening: the honest spliced fix is scored unflagged; the spliced input submitted unchanged
    is flagged `identical_to_input` (the official score kept), not refused as "holds the reference"."""
    assert _screen(demo, clips, clips.spliced_broken, {"fixed.mp4": clips.spliced_fix}, tmp_path).flags == []
    as_is = _screen(demo, clips, clips.spliced_broken, {"fixed.mp4": clips.spliced_broken}, tmp_path / "b")
    assert as_is.flags == ["identical_to_input"]


@pytest.mark.parametrize("name", ["source.mov", "notes.txt", "scratch/copy.mkv"])
def test_every_file_of_the_folder_is_screened(demo, clips, tmp_path, name):
    """Only fixed.mp4 was screened: the source saved beside an honest fix under any name went unseen. Every file
    of the task folder is read through the submission's file reader and screened by bytes and packets."""
    for i, cheat in enumerate((clips.source, clips.one_stream)):
        files = {"fixed.mp4": clips.video_fix, name: cheat}
        with pytest.raises(InputRejected, match="verifier-only reference source.mp4"):
            _screen(demo, clips, clips.video_broken, files, tmp_path / str(i))


def test_a_file_that_cannot_be_read_is_a_note(demo, clips, tmp_path):
    """A link out of the task folder beside the fix is refused by the file reader: a note, not a crash, and the
    fix is screened as usual."""
    (tmp_path / "65").mkdir()
    (tmp_path / "65" / "away.mp4").symlink_to(clips.source)
    s = _screen(demo, clips, clips.video_broken, {"fixed.mp4": clips.video_fix}, tmp_path)
    assert s.flags == [] and any("away.mp4 was not screened" in w and "outside" in w for w in s.warnings)


def test_the_demo_perfect_and_partial_fixes_are_not_the_source(demo):
    """The demo's perfect run (video re-encoded losslessly, sound copied) and partial run (the input as is) are
    screened against the demo's real inputs: none refused, the partial ones only `identical_to_input`."""
    tasks = {t.task_id: t for t in load_tasks(dataset=demo.mirror) if t.family == "repair"}
    for run, want in (("perfect", []), ("partial", ["identical_to_input"])):
        for tid, task in tasks.items():
            sub = open_run(demo.runs[run]).submission(tid)
            fixed = sub.file("fixed.mp4")
            assert fixed is not None
            assert screen_inputs(task, sub, {fixed: file_sha256(fixed)}).flags == want, (run, tid)
