"""`avb publish-bundle DIR --space ORG/NAME`: push a static bundle (`avb view --bundle DIR`) to a static Hub Space.

The folder must be what `avb view --bundle` writes (`index.html` and `static/`): what its pages and files
disclose was decided when it was written (`view.disclosure.published`); this module only sends it. It refuses
a folder holding a symlink or anything but regular files and folders, more than `layout.MAX_FILES` files or
`layout.MAX_TOTAL_BYTES` bytes, and a page that names this machine's home folder (a bundle is written with its
paths scrubbed; a page that still names it was not). The Space gets a `README.md` declaring `sdk: static` and
`app_file: index.html` (unless the bundle has its own). One commit adds every file and deletes every older one
(but `.gitattributes`), so the Space shows exactly this bundle.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from agenticvbench.errors import AVBError, SubmissionError
from agenticvbench.hub.layout import MAX_FILES, MAX_TOTAL_BYTES
from agenticvbench.version import __version__

SPACE_README = """---
title: {title}
emoji: 🎬
colorFrom: gray
colorTo: blue
sdk: static
app_file: index.html
pinned: false
tags: [agenticvbench]
---

AgenticVBench results, written by `avb view --bundle` (agenticvbench {version}) and pushed with
`avb publish-bundle`. Open the Space's app: the pages are static HTML.
"""


def bundle_files(folder: Path) -> list[str]:
    """The repo paths of every file of the bundle at `folder`, checked (module docstring); raises
    `SubmissionError` when the folder is not one to publish."""
    if not (folder / "index.html").is_file() or not (folder / "static").is_dir():
        raise SubmissionError(
            f"{folder}: not a bundle (no index.html and static/; write one with `avb view --bundle`)"
        )
    home = os.path.expanduser("~")
    out: list[str] = []
    total = 0
    for root, dirs, names in os.walk(folder, followlinks=False):
        for name in sorted(dirs + names):
            p = Path(root) / name
            st = os.lstat(p)
            rel = p.relative_to(folder).as_posix()
            if stat.S_ISLNK(st.st_mode) or not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
                raise SubmissionError(f"{p}: not a regular file or folder; a bundle holds only those")
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
                out.append(rel)
                if p.suffix == ".html" and home not in ("", "/") and (home + "/").encode() in p.read_bytes():
                    raise SubmissionError(f"{rel} names this machine's home folder: write the bundle again")
    if len(out) > MAX_FILES or total > MAX_TOTAL_BYTES:
        raise SubmissionError(
            f"{folder}: {len(out)} files, {total} bytes: over {MAX_FILES} files or {MAX_TOTAL_BYTES}"
        )
    return sorted(out)


def upload_bundle(folder: str | Path, space: str, *, private: bool = False) -> dict[str, Any]:
    """Send the bundle at `folder` to the static Space `space` (created if absent) as one commit: {commit, url,
    files}. The endpoint is `$HF_ENDPOINT` (else the Hub), the token the client's usual one."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi
    from huggingface_hub.errors import HfHubHTTPError

    folder = Path(folder)
    files = bundle_files(folder)
    ops: list[Any] = [CommitOperationAdd(p, str(folder / p)) for p in files]
    if "README.md" not in files:
        readme = SPACE_README.format(title=space.split("/")[-1][:30], version=__version__)
        ops.append(CommitOperationAdd("README.md", readme.encode("utf-8")))
    keep = {op.path_in_repo for op in ops} | {".gitattributes"}
    api = HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None)
    try:
        api.create_repo(space, repo_type="space", space_sdk="static", private=private, exist_ok=True)
        existing = api.list_repo_files(space, repo_type="space")
        ops += [CommitOperationDelete(p) for p in existing if p not in keep]
        info = api.create_commit(
            space,
            ops,
            commit_message=f"AgenticVBench bundle ({len(files)} files)",
            commit_description=f"Written by `avb view --bundle`, pushed by agenticvbench {__version__}.",
            repo_type="space",
        )
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise AVBError(
            f"publishing to the Space {space}: {str(exc).splitlines()[0] if str(exc) else exc!r}"
        ) from None
    return {"commit": info.oid, "url": info.commit_url, "files": len(ops)}
