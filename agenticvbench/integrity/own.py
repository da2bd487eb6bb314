"""The task's own verifier-only references (the repair source) and inputs, and the rules that reject a
submitted file for holding such a reference: the same bytes (SHA-256), or its packets in any container
(`identity.holds`: with the task's own inputs known, the source packets those inputs lack; without, every stream).
Dataset files are trusted and described once per process (hashes and contents cached by real path, size, mtime
and inode)."""

from __future__ import annotations

from pathlib import Path

from agenticvbench.dataset.tasks import Task
from agenticvbench.errors import AVBError
from agenticvbench.fsutil import file_sha256, per_file
from agenticvbench.integrity.identity import MediaContent, could_hold, holds, novel_shares, reference_content
from agenticvbench.runs.submission import InputRejected

MEDIA_SUFFIXES: frozenset[str] = frozenset({".mp4", ".mov", ".m4v", ".mkv", ".webm", ".avi", ".wav", ".m4a"})


@per_file(maxsize=256)
def reference_sha256(path: Path) -> str:
    """SHA-256 of a dataset file (trusted), hashed once per process per (file, size, mtime, inode)."""
    return file_sha256(path)


def same_bytes(path: Path, sha: str, candidates: list[Path]) -> Path | None:
    """The first of `candidates` (dataset files) with the size and SHA-256 `sha` of `path`, or None."""
    size = path.stat().st_size
    for c in candidates:
        try:
            if c.is_file() and c.stat().st_size == size and reference_sha256(c) == sha:
                return c
        except OSError:
            continue
    return None


def own_media_references(task: Task) -> list[Path]:
    """The task's own verifier-only media references (empty without any)."""
    if not task.verifier_reference_urls:
        return []
    return [r for r in task.verifier_references() if r.suffix.lower() in MEDIA_SUFFIXES]


def own_inputs(task: Task, warnings: list[str]) -> list[MediaContent] | None:
    """The content of the task's own media inputs (trusted dataset files, described once per process like the
    references); None without a readable one (then the rule without inputs applies, `identity.holds`)."""
    try:
        contents = [reference_content(p) for p in task.materials() if p.suffix.lower() in MEDIA_SUFFIXES]
    except (AVBError, OSError) as exc:
        warnings.append(f"integrity: could not read the task's inputs ({exc})")
        return None
    return [c for c in contents if c.readable] or None


def reject_own_bytes(path: Path, sha: str, task: Task, own: list[Path]) -> None:
    """Raise `InputRejected` when `path` (SHA-256 `sha`) is byte-identical to one of the task's own references."""
    if (ref := same_bytes(path, sha, own)) is not None:
        raise InputRejected(
            f"{path}: identical to the verifier-only reference {ref.name} of task "
            f"{task.task_id} (same SHA-256); a submission may not contain it"
        )


def reject_own_content(
    path: Path, content: MediaContent, task: Task, own: list[Path], given: list[MediaContent] | None
) -> None:
    """Raise `InputRejected` when `path` holds one of the task's own references (`identity.holds`): with the
    task's inputs `given`, most of the source's video packets that the inputs lack (or every stream and most of
    what the inputs lack); without, every stream."""
    for ref in own:
        if given is not None:
            ref_content = reference_content(ref)
            if holds(content, ref_content, given):
                shares = novel_shares(content, ref_content, given)
                found = ", ".join(f"{kind} {share:.0%}" for kind, share in shares if share is not None)
                raise InputRejected(
                    f"{path}: holds the verifier-only reference {ref.name} of task {task.task_id} (of the "
                    f"source's packets that the task's input does not hold, it has {found}, in any container); "
                    "a submission may not contain it"
                )
        elif could_hold(content, ref.stat().st_size) and holds(content, reference_content(ref)):
            raise InputRejected(
                f"{path}: holds the verifier-only reference {ref.name} of task {task.task_id} (the same "
                "packets in each of its audio and video streams, in another container); a submission may "
                "not contain it"
            )
