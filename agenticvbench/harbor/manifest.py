"""The exported dataset's Harbor manifest, `DIR/dataset.toml`, and the content digests in it.

Harbor identifies a task by a content digest (its `Packager`: SHA-256 over `<relative path>\\0<file sha256>\\n`
for `task.toml`, `instruction.md`, `README.md` and every file under `environment/`, `tests/`, `solution/` and
`steps/`, sorted by path, minus its default ignores) and a dataset by the SHA-256 of its sorted task digests
joined by commas (`DatasetManifest.compute_content_hash`). The manifest lists every exported task by name and
digest, so `harbor publish`/`harbor dataset` accept it as is, and the dataset digest is what `avb harbor
check-job` compares to tell whether two jobs ran the same export. Both digests are checked against Harbor's own
code in the end-to-end test.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from pathlib import Path

from agenticvbench.fsutil import atomic_write_text, file_sha256

MANIFEST_NAME = "dataset.toml"
DATASET_NAME = "agenticvbench/agenticvbench"
_SINGLE = ("task.toml", "instruction.md", "README.md", "trajectory.json")
_TREES = ("environment", "tests", "solution", "steps")
_IGNORED_DIRS = ("__pycache__",)
_IGNORED_NAMES = ("*.pyc", ".DS_Store", "*.swp", "*.swo", "*~")


def _files(task_dir: Path) -> list[Path]:
    out = [task_dir / n for n in _SINGLE if (task_dir / n).is_file()]
    for tree in _TREES:
        root = task_dir / tree
        if root.is_dir() and not root.is_symlink():
            out += [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
    rel = [(p.relative_to(task_dir).as_posix(), p) for p in out]
    kept = [
        (r, p)
        for r, p in rel
        if not any(d in r.split("/")[:-1] for d in _IGNORED_DIRS)
        and not any(fnmatch.fnmatch(p.name, pat) for pat in _IGNORED_NAMES)
    ]
    return [p for _, p in sorted(kept)]


def task_digest(task_dir: str | Path) -> str:
    """Harbor's content digest of one task folder, `sha256:<hex>`."""
    task_dir = Path(task_dir).resolve()
    outer = hashlib.sha256()
    for p in _files(task_dir):
        outer.update(f"{p.relative_to(task_dir).as_posix()}\0{file_sha256(p)}\n".encode())
    return f"sha256:{outer.hexdigest()}"


def dataset_digest(task_digests: list[str]) -> str:
    """Harbor's dataset content hash over the task digests, `sha256:<hex>`."""
    joined = ",".join(sorted(d.removeprefix("sha256:") for d in task_digests))
    return f"sha256:{hashlib.sha256(joined.encode()).hexdigest()}"


def _q(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def write_manifest(
    root: Path, tasks: dict[str, Path], *, version: str, metadata: dict[str, str]
) -> tuple[str, dict[str, str]]:
    """Write `root/dataset.toml` for `tasks` (Harbor task name -> folder); returns the dataset digest and the
    task digests by name."""
    digests = {name: task_digest(folder) for name, folder in sorted(tasks.items())}
    digest = dataset_digest(list(digests.values()))
    lines = [
        "# Written by `avb export harbor`: Harbor's dataset manifest for this export.",
        "",
        "[dataset]",
        f"name = {_q(DATASET_NAME)}",
        f"version = {_q(version)}",
        f"description = {_q('AgenticVBench: video-production tasks scored by the agenticvbench verifiers')}",
        'keywords = ["agenticvbench", "video"]',
        "",
    ]
    for name, d in digests.items():
        lines += ["[[tasks]]", f"name = {_q(name)}", f"digest = {_q(d)}", ""]
    lines += [
        "[metadata]",
        *(f"{k} = {_q(v)}" for k, v in sorted({**metadata, "content_hash": digest}.items())),
    ]
    atomic_write_text(root / MANIFEST_NAME, "\n".join(lines) + "\n")
    return digest, digests
