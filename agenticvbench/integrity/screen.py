"""Screening of a submission's media inputs before the verifier runs, and the result's integrity flags.

Rejections (the engine scores the task `malformed`, reason from `InputRejected`):

- a submitted media file byte-identical (same SHA-256) to one of the task's verifier-only references (the repair
  source video), or holding it packet for packet in another container (bytes appended or prepended, a remux,
  moved atoms, added streams or tags, reframed sound; `identity`, counting only the source's packets the task's
  own input lacks, `own`): an agent that found the reference would otherwise score 0.99999. Every other file of
  the task folder, whatever its name and family, is screened the same way (`folder.pinned_others`; a file that
  cannot be read is a warning), and a re-encode of another task's reference is flagged below;
- a media header declaring a duration absurd for the family, or a frame larger than 4096x4096 pixels (or 8192 on
  a side), checked on the probe (header) before any frame is decoded;
- headers that lie, checked against what the file holds before anything is decoded: an MP4/MOV sample table
  declaring more sample bytes than the file has (`media.sample_tables`: libavformat would index every declared
  sample), more packets than `MAX_PACKETS_PER_S` per second of the family limit, packets spanning longer than the
  limit, or a header duration off from the packets' span by more than `SPAN_TOLERANCE` (a film whose header
  durations were halved passed a recap length check; 5 h of frames behind a 10-s header was scored).

Flags (the official score is kept, the result's `integrity` list names the hole, a warning says it loudly):

- `audio_only`: a media output with audio but no video stream (repair: edit 0, as the official scorer, whose
  OpenCV cannot open it; format and localisation still score);
- `rotation`: a video carrying a display rotation matrix (players rotate it, frame comparisons do not);
- `identical_to_input`: a repair or recap output byte-identical to the agent's own input (the broken video, the
  film);
- `degenerate_video`: a repair `fixed.mp4` whose video shows too few frames for the seconds of its own audio or
  the source (under one frame per second on average, or a gap of more than 3 s without a new frame): the
  official edit rubric weights chunks by the frames it finds, so one frame plus the full audio keeps most of the
  edit points (`frames`, frames counted, not spans);
- `near_copy_of_input`: a recap that is nearly the input film: the same decoded pictures and audio, second by
  second after alignment, over most of the film (`recap_nearly_the_input_film`, in `copies`);
- `given_order`: a sequencing order equal to the order the clips were given in (numeric, or as listed), when the
  answer is another order (`sequencing_order_is_the_given_order`);
- `verifier_reference`: a submitted file byte-identical to a verifier-only reference of *another* task of the
  dataset (`leaks`), holding its packets in another container (`identity`), or a re-encode of it (the aligned
  per-second signature of `copies`): the agent saw verifier-only material.

What differs between families (the duration limit, which outputs are compared with the task's inputs, which are
checked for too few frames) is each family's `ScreenSpec` in the verifier registry (`verifiers.screen_spec`).

Each flag is documented with an id and the official scorer's number for the same input in
docs/upstream-defects.md ("Integrity flags").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from agenticvbench.dataset.tasks import SequencingTask, Task
from agenticvbench.errors import AVBError, MediaError
from agenticvbench.integrity.copies import MIN_COVERAGE
from agenticvbench.integrity.folder import OtherFiles, pinned_others
from agenticvbench.integrity.frames import sparse_frames
from agenticvbench.integrity.identity import MediaContent, could_hold, holds, read_content, reference_content
from agenticvbench.integrity.leaks import DatasetReference, leaked_references
from agenticvbench.integrity.own import (
    MEDIA_SUFFIXES,
    own_inputs,
    own_media_references,
    reference_sha256,
    reject_own_bytes,
    reject_own_content,
    same_bytes,
)
from agenticvbench.runs.submission import InputRejected, Submission
from agenticvbench.verifiers import screen_spec

MAX_FRAME_SIDE = 8192  # pixels; 8K UHD is 7680 wide
MAX_FRAME_PIXELS = 4096 * 4096  # covers 4K UHD and DCI 4K; 8192x8192 10-bit 4:4:4 peaks at 2.4 GB when scored
MAX_PACKETS_PER_S = 400  # 240 fps video plus several audio streams stay far below
SPAN_TOLERANCE = (2.0, 0.25)  # seconds, fraction: header duration vs packet span, whichever is larger
FLAGS: dict[str, str] = {
    "audio_only": "has audio but no video stream; only format and localisation can score",
    "rotation": "carries a display rotation matrix; players rotate it but frame comparisons do not",
    "identical_to_input": "is byte-identical to the task's own input given to the agent",
    "degenerate_video": "shows too few video frames for the seconds of its audio or the source (one frame, a "
    "few, long gaps); the official edit rubric scores the frames present and skips chunks without any",
    "near_copy_of_input": "is nearly the input film (the same pictures and audio over most of its length)",
    "given_order": "lists the clips in the order they were given, not a story order",
    "verifier_reference": "holds a verifier-only reference of another task, which agents never see",
    # raised by the trajectory audit (`trajectory.check`), from the agent's log rather than an output
    "answer_access": "the agent's log shows it reached the benchmark's answers (dataset table, verifier-only "
    "references, results, the scorer's cache)",
    "web_access": "the agent's log shows it used the web (a search or fetch tool, grounding, a download from "
    "outside the task's input hosts)",
    "foreign_task": "the agent's log shows it read another task's inputs, folder or outputs",
}
#: `given_order` needs at least this many clips (with 2 clips the given order is a coin flip).
GIVEN_ORDER_MIN_CLIPS = 3


@dataclass
class Screening:
    """What screening found: integrity flag codes and the warnings that announce them."""

    flags: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def flag(self, code: str, path: Path, detail: str = "") -> None:
        """Record flag `code` for `path` once, with a loud warning (the official score is kept); `detail` is
        appended to the flag's sentence."""
        if code not in self.flags:
            self.flags.append(code)
        self.warnings.append(
            f"INTEGRITY {code}: {path.name} {FLAGS[code]}{detail}; official score kept, review this output"
        )


def _check_header(path: Path, family: str) -> tuple[bool, bool, MediaContent]:
    """Probe the header; raise `InputRejected` for absurd duration/size or a header its packets contradict.
    Returns (has_video, has_audio, the packets' content); (True, True, unreadable) when the file cannot be
    probed (the verifier reports that in its own words)."""
    from agenticvbench.media import probe
    from agenticvbench.media.sample_tables import lying_table
    from agenticvbench.runs.pinned import pinned

    pin = pinned(path)
    size = pin.size if pin is not None else path.stat().st_size
    if why := lying_table(path, size):
        raise InputRejected(f"{path}: {why}; not decoded")
    try:
        info = probe(path)
    except MediaError:
        return True, True, MediaContent()
    limit = screen_spec(family).max_output_s
    durations = [d for d in [info.duration, *(s.duration for s in info.streams)] if d is not None]
    longest = max(durations, default=0.0)
    if longest > limit:
        raise InputRejected(
            f"{path}: the header declares {longest:.0f} s, absurd for a {family} output "
            f"(limit {limit:.0f} s); not decoded"
        )
    for s in info.streams:
        w, h = s.width or 0, s.height or 0
        if s.codec_type == "video" and (max(w, h) > MAX_FRAME_SIDE or w * h > MAX_FRAME_PIXELS):
            raise InputRejected(
                f"{path}: the header declares a {w}x{h} frame, over the limit of {MAX_FRAME_SIDE} "
                f"px on a side and {MAX_FRAME_PIXELS} pixels; not decoded"
            )
    content = _check_span(path, family, info.duration)
    return info.video is not None, info.audio is not None, content


def _check_span(path: Path, family: str, declared: float | None) -> MediaContent:
    """Demux `path` once (`identity.read_content`) and raise `InputRejected` when its packets contradict its
    header (see the module docstring); returns what the demux saw."""
    limit = screen_spec(family).max_output_s
    cap = int(limit * MAX_PACKETS_PER_S)
    content = read_content(path, cap)
    if content.over_cap:
        raise InputRejected(
            f"{path}: holds more than {cap} packets ({MAX_PACKETS_PER_S} per second of the "
            f"{limit:.0f} s limit for a {family} output); not decoded"
        )
    span = content.span
    if span is None:
        return content
    if span > limit:
        raise InputRejected(
            f"{path}: its packets span {span:.0f} s, over the {limit:.0f} s limit for a {family} "
            "output; not decoded"
        )
    if declared is not None and declared > 0:
        allowed = max(SPAN_TOLERANCE[0], SPAN_TOLERANCE[1] * max(span, declared))
        if abs(span - declared) > allowed:
            raise InputRejected(
                f"{path}: the header declares {declared:.2f} s but its packets span {span:.2f} s; "
                "a header that lies about the duration is not scored"
            )
    return content


def _rotation(path: Path) -> float:
    """The display rotation of the first video frame (0 when none or unreadable)."""
    import av

    from agenticvbench.media.container import open_input

    try:
        with open_input(path, need="video") as container:
            for frame in container.decode(video=0):
                return float(getattr(frame, "rotation", 0) or 0)
    except (MediaError, av.FFmpegError, OSError, ValueError):
        return 0.0
    return 0.0


def _flag_leaks(
    screening: Screening, task: Task, submitted: dict[Path, str], refs: Iterable[DatasetReference]
) -> set[Path]:
    """Flag `verifier_reference` for each submitted file identical to another task's verifier-only reference;
    returns the files flagged."""
    found: set[Path] = set()
    for p, ref in leaked_references(task.task_id, submitted, refs, reference_sha256):
        ids = ", ".join(str(i) for i in ref.task_ids)
        screening.flag("verifier_reference", p, f" ({ref.name} of task {ids})")
        found.add(p)
    return found


def _screen_other_files(
    screening: Screening,
    task: Task,
    others: OtherFiles,
    given: list[MediaContent] | None,
    refs: tuple[DatasetReference, ...],
) -> dict[Path, MediaContent]:
    """Screen the task folder's files the verifier does not read (`folder.pinned_others`, any name) by bytes and
    packets like the outputs: the task's own reference is rejected, another task's byte copy flagged; a file
    whose header fails the checks is a note. Returns the readable contents left for `_flag_content_leaks`."""
    own = own_media_references(task)
    screening.warnings.extend(others.notes)
    hashes = others.hashes
    contents: dict[Path, MediaContent] = {}
    for p, sha in hashes.items():
        reject_own_bytes(p, sha, task, own)
        try:
            _, _, content = _check_header(p, task.family)
        except (InputRejected, OSError) as exc:
            screening.warnings.append(f"integrity: {p.name} was not screened for packets ({exc})")
            continue
        reject_own_content(p, content, task, own, given)
        if content.readable:
            contents[p] = content
    copied = _flag_leaks(screening, task, hashes, refs)
    return {p: c for p, c in contents.items() if p not in copied}


def _flag_content_leaks(
    screening: Screening,
    task: Task,
    contents: dict[Path, MediaContent],
    refs: Iterable[DatasetReference],
    skip: set[Path],
) -> None:
    """Flag `verifier_reference` for submitted media holding another task's reference (its packets, in any
    container) or nearly it (a re-encode: the aligned per-second signature of `copies`). Files already flagged
    for a byte copy are not looked at again."""
    from agenticvbench.integrity.copies import nearly_same_media

    others = [
        r for r in refs if task.task_id not in r.task_ids and Path(r.name).suffix.lower() in MEDIA_SUFFIXES
    ]
    for p, content in contents.items():
        if not others or p in skip or not content.readable:
            continue
        for ref in others:
            ids = ", ".join(str(i) for i in ref.task_ids)
            try:
                if could_hold(content, ref.size) and holds(content, reference_content(Path(ref.path))):
                    screening.flag("verifier_reference", p, f" ({ref.name} of task {ids}, remuxed)")
                    break
                if nearly_same_media(p, Path(ref.path), max_coverage=1 / MIN_COVERAGE):
                    screening.flag("verifier_reference", p, f" ({ref.name} of task {ids}, re-encoded)")
                    break
            except (AVBError, OSError, ValueError, RuntimeError) as exc:
                screening.warnings.append(f"integrity: could not compare {p.name} with {ref.name} ({exc})")


def screen_inputs(
    task: Task,
    submission: Submission,
    hashes: dict[Path, str],
    dataset_refs: Iterable[DatasetReference] = (),
    others: OtherFiles | None = None,
) -> Screening:
    """Screen the submitted media among `hashes` (input path -> SHA-256), and every other file of the task folder
    (`others`, pinned by the caller; found and pinned here when None); raises `InputRejected` (malformed).
    `dataset_refs` lists the dataset's verifier-only references (`leaks.dataset_references`)."""
    if others is None:
        with pinned_others(submission, [p for p in hashes if submission.owns(p)]) as pinned:
            return screen_inputs(task, submission, hashes, dataset_refs, pinned)
    screening = Screening()
    refs = tuple(dataset_refs)
    copied = _flag_leaks(screening, task, {p: h for p, h in hashes.items() if submission.owns(p)}, refs)
    if isinstance(task, SequencingTask) and (found := _sequencing_prediction(submission)) is not None:
        manifest, pred = found
        _check(screening, "given_order", manifest, lambda: sequencing_order_is_the_given_order(task, pred))
    media = [p for p in hashes if submission.owns(p) and p.suffix.lower() in MEDIA_SUFFIXES]
    own = own_media_references(task)
    given = own_inputs(task, screening.warnings) if own else None
    for p in media:  # a byte copy first: nothing of it is read as media
        reject_own_bytes(p, hashes[p], task, own)
    contents: dict[Path, MediaContent] = {}
    for p in media:
        has_video, has_audio, contents[p] = _check_header(p, task.family)
        reject_own_content(p, contents[p], task, own, given)
        if has_audio and not has_video:
            screening.flag("audio_only", p)
        elif has_video and _rotation(p):
            screening.flag("rotation", p)
    contents.update(_screen_other_files(screening, task, others, given, refs))  # whatever their names
    if not contents and not media:
        return screening
    _flag_content_leaks(screening, task, contents, refs, copied)
    spec = screen_spec(task.family)
    if spec.identical_to_input and task.reference_file_urls:
        _flag_input_copies(screening, task, media, hashes, spec.near_copy_of_input)
    for p in media:
        if p.name in spec.sparse_video:  # too few frames for its audio or the source (`frames`)
            too_sparse = partial(lambda c: sparse_frames(c, _source_duration(task)), contents[p])
            _check(screening, "degenerate_video", p, too_sparse)
    return screening


def _flag_input_copies(
    screening: Screening, task: Task, media: list[Path], hashes: dict[Path, str], near: bool
) -> None:
    """Flag `identical_to_input` for each output byte-identical to one of the task's inputs and, when `near`,
    `near_copy_of_input` for a video output that is nearly an input film (a `.wav` has no pictures to compare)."""
    try:
        inputs = task.materials()
    except (AVBError, OSError) as exc:
        screening.warnings.append(f"integrity: could not compare with the task's inputs ({exc})")
        inputs = []
    for p in media:
        if same_bytes(p, hashes[p], inputs) is not None:
            screening.flag("identical_to_input", p)
        elif near and p.suffix.lower() != ".wav":
            _check(screening, "near_copy_of_input", p, partial(recap_nearly_the_input_film, p, inputs))


def _check(screening: Screening, code: str, path: Path, test: Callable[[], bool | str]) -> None:
    """Run one flag's test (a string it returns is the flag's detail); a test that cannot decide (unreadable
    media) leaves a warning, never a crash."""
    try:
        hit = test()
    except (AVBError, OSError, ValueError, RuntimeError) as exc:  # av.FFmpegError is an OSError/ValueError
        screening.warnings.append(f"integrity: could not check {code} on {path.name} ({exc})")
        return
    if hit:
        screening.flag(code, path, hit if isinstance(hit, str) else "")


def _source_duration(task: Task) -> float | None:
    """The probed duration of the repair task's verifier-only source (trusted), or None without one."""
    from agenticvbench.media import probe

    refs = own_media_references(task)
    return probe(refs[0]).duration if refs else None


def recap_nearly_the_input_film(path: Path, inputs: list[Path]) -> bool:
    """True when the recap `path` is nearly one of the task's input films (see `integrity.copies`)."""
    from agenticvbench.integrity.copies import nearly_same_media

    films = [p for p in inputs if p.suffix.lower() in MEDIA_SUFFIXES]
    return any(nearly_same_media(path, film) for film in films)


def given_orders(task: SequencingTask) -> list[list[str]]:
    """The orders a sequencing agent is given without doing any work: the clip ids sorted as numbers, and as
    the task's materials list them (file-name order). Ids are the file stems, as the manifest names them."""
    stems = [p.stem for p in task.materials() if p.suffix.lower() in MEDIA_SUFFIXES]
    orders = [stems]
    if all(s.isascii() and s.isdigit() for s in stems):
        orders.insert(0, sorted(stems, key=int))
    return orders


def sequencing_order_is_the_given_order(task: SequencingTask, predicted: list[str]) -> bool:
    """True when `predicted` equals a given order (`given_orders`) of at least `GIVEN_ORDER_MIN_CLIPS` clips,
    and that order is not the answer (a film shot in the given order is not flagged)."""
    if len(predicted) < GIVEN_ORDER_MIN_CLIPS or predicted == list(task.correct_order):
        return False
    return any(predicted == order for order in given_orders(task))


def _sequencing_prediction(submission: Submission) -> tuple[Path, list[str]] | None:
    """The manifest path and the official prediction of a sequencing submission; None when it does not parse
    (the verifier reports that in its own words)."""
    from agenticvbench.verifiers.manifest import MANIFEST_NAME, read_manifest
    from agenticvbench.verifiers.sequencing import predicted_ids

    try:
        path = submission.file(MANIFEST_NAME)
    except InputRejected:
        return None
    read = read_manifest(path) if path is not None else None
    if read is None or not read.ok or path is None:
        return None
    return path, predicted_ids(read.segments)
