"""`avb view --bundle DIR`: the same pages as a static site for publishing results.

A bundle is rendered with `Site(public=True)`: no verifier-only file (the repair source) is ever registered for
it, and its pages show what `view.disclosure` allows (by default: no answer, no solved task's submission, no rubric,
nothing derived from verifier-only files, no repair output, no path of this machine). `media` says
how much of the outputs goes in: `none` (pages only), `thumbs` (frame thumbnails of the outputs and inputs) or
`full` (also the output files themselves, playable). Files are copied under `files/<n>.<ext>` and `thumbs/`; the
pages link them relatively, so the folder opens from any static file server. Besides the overview and the task
pages it holds the stack pages (stacks with several reps), the compare pages (with `comparisons`) and the page of
defect ids; the grid's filters and the pages' keys are the same static script as on the server.
"""

from __future__ import annotations

import functools
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agenticvbench.fsutil import atomic_write_text
from agenticvbench.runs.pinned import PinError
from agenticvbench.view.disclosure import Disclosure, published, scrub
from agenticvbench.view.model import ViewModel
from agenticvbench.view.pages import (
    MEDIA_MODES,
    Site,
    compare_page,
    defects_page,
    overview,
    stack_page,
    task_page,
)
from agenticvbench.view.server import STATIC, static_bytes
from agenticvbench.view.thumbs import Thumbnailer


def write_bundle(
    model: ViewModel,
    out: Path,
    thumbs: Thumbnailer,
    *,
    media: str = "thumbs",
    comparisons: Sequence[Any] = (),
    policy: Disclosure | None = None,
) -> dict[str, int]:
    """Write the static site into `out` (created; existing pages overwritten) and return what it holds. `policy`
    (default `disclosure.published()`) decides what its pages show; every page goes through one pass that
    removes this machine's paths (`disclosure.scrub`)."""
    if media not in MEDIA_MODES:
        raise ValueError(f"media: one of {', '.join(MEDIA_MODES)}")
    if model.local:
        raise ValueError("a bundle is built from a model made with local=False (no verifier-only files)")
    site = Site(public=True, media=media, policy=policy or published(), compare=bool(comparisons))
    roots = model.path_roots()

    def write_page(name: str, page: str) -> None:
        atomic_write_text(out / name, page if site.policy.local_paths else scrub(page, roots))

    out.mkdir(parents=True, exist_ok=True)
    (out / "static").mkdir(exist_ok=True)
    for name in STATIC:
        (out / "static" / name).write_bytes(static_bytes(name))
    write_page("index.html", overview(model, site, comparisons))
    write_page("defects.html", defects_page(site))
    cells = [c for tid in model.task_order for r in model.runs if (c := model.cell(r.index, tid)) is not None]
    pages: list[tuple[str, Callable[[], str]]] = [
        (c.page, functools.partial(task_page, model, site, thumbs, c.run, c.task_id)) for c in cells
    ]
    for st in model.stacks:
        if len(st.runs) > 1:
            pages += [
                (st.page(tid), functools.partial(stack_page, model, site, thumbs, st.index, tid))
                for tid in model.task_order
                if model.cell(st.runs[0], tid) is not None
            ]
    if comparisons:
        pages += [
            (f"compare-{tid}.html", functools.partial(compare_page, model, site, thumbs, tid))
            for tid in model.task_order
            if model.cell(0, tid) is not None
        ]
    for k, (name, render) in enumerate(pages, 1):
        write_page(name, render())
        if k % 25 == 0 or k == len(pages):
            print(f"avb view: {k}/{len(pages)} page(s) written", file=sys.stderr, flush=True)
    if site.files:
        (out / "files").mkdir(exist_ok=True)
    skipped = 0
    for i in sorted(site.files):
        ref = model.files[i]
        if ref.verifier_only:  # never: Site.file_url refuses them; kept as a second lock
            continue
        try:  # the bytes scoring checked, through a descriptor reopened by its rules, never the name's target now
            with model.opened(i) as source:
                shutil.copyfile(source, out / "files" / f"{i}{ref.ext}")
        except PinError as exc:
            skipped += 1
            print(f"avb view: not in the bundle: {exc}", file=sys.stderr)
    if site.thumbs:
        (out / "thumbs").mkdir(exist_ok=True)
    for name in sorted(site.thumbs):
        p = thumbs.path_of(name)
        if p is not None:
            shutil.copyfile(p, out / "thumbs" / name)
    return {"pages": 2 + len(pages), "files": len(site.files) - skipped, "thumbs": len(site.thumbs)}
