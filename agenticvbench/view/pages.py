"""The pages of `avb view`, rendered with Jinja2 templates that escape every value (autoescape on).

The same pages serve a local server and a static bundle; a `Site` says which: in a bundle (`public`) no answer
and no verifier-only file is shown, and `media` decides whether output files and thumbnails are linked. Pages
use relative links only (`index.html`, `task-<run>-<task>.html`, `files/<n>.mp4`, `thumbs/<name>.jpg`), so a
bundle opens from any static file server. Scripts and styles are separate files (`static/`) so the Content
Security Policy needs no `unsafe-inline`.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from agenticvbench.analysis.explain import explain_result
from agenticvbench.dataset.tasks import OUTPUT_FILES
from agenticvbench.fsutil import read_capped
from agenticvbench.runs.pinned import PinError
from agenticvbench.runs.submission import TEXT_MAX_BYTES
from agenticvbench.tables import html_table
from agenticvbench.view import evidence
from agenticvbench.view.disclosure import LOCAL, Disclosure, published
from agenticvbench.view.model import ViewModel
from agenticvbench.view.thumbs import Thumbnailer

MEDIA_MODES = ("none", "thumbs", "full")
SHOWN_TEXT_CHARS = 20_000
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'"
)


@dataclass
class Site:
    """Where the pages go: a local server (everything) or a public bundle (`media`: none, thumbs or full), and
    what its pages may show (`policy`, `view.disclosure`: everything locally, `published()` in a bundle)."""

    public: bool = False
    media: str = "full"
    policy: Disclosure = LOCAL
    files: set[int] = field(default_factory=set)
    thumbs: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.public and self.policy == LOCAL:
            self.policy = published()

    def file_url(self, model: ViewModel, index: int) -> str | None:
        """The URL of file `index`, or None when this site does not offer it."""
        ref = model.files[index]
        if self.public and (ref.verifier_only or self.media != "full"):
            return None
        self.files.add(index)
        return f"files/{index}{ref.ext}"

    def thumb_url(self, name: str | None) -> str | None:
        """The URL of a thumbnail, or None (not made, or a bundle without media)."""
        if name is None or (self.public and self.media == "none"):
            return None
        self.thumbs.add(name)
        return f"thumbs/{name}"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The template environment (package templates, autoescape on for every template)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("agenticvbench.view", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _base(site: Site, title: str) -> dict[str, Any]:
    return {"title": title, "csp": CSP, "public": site.public, "media": site.media}


def _render(template: str, site: Site, title: str, **values: Any) -> str:
    return environment().get_template(template).render(**_base(site, title), **values)


def overview(model: ViewModel, site: Site, comparison: Any = None) -> str:
    """The leaderboard, the signature counts and the task x run grid (and the paired comparison, if any)."""
    rep = model.report
    grid = [
        {"family": fam, "task_id": tid, "cells": [model.cell(r.index, tid) for r in model.runs]}
        for fam in model.families
        for tid in model.task_ids(fam)
    ]
    compare_html = None
    if comparison is not None:
        headers, rows = comparison.table()
        compare_html = html_table(headers, rows, "lrrrrrrrrrrl")
    return _render(
        "overview.html",
        site,
        "runs",
        leaderboard=rep.board.html_table(),
        caption=rep.board.caption,
        signatures=rep.signatures.get("per_run", {}),
        runs=model.runs,
        grid=grid,
        notes=model.notes + rep.notes,
        universe=rep.universe.label,
        compare_html=compare_html,
        compare_caption=comparison.caption if comparison is not None else "",
        compare_pages=comparison is not None and len(model.runs) == 2,
    )


def _text_of(model: ViewModel, index: int) -> str:
    try:
        with model.opened(index) as source:
            raw = read_capped(source, TEXT_MAX_BYTES)
    except (OSError, ValueError) as exc:  # PinError is an OSError: the file changed since it was checked
        return f"(not shown: {exc})"
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= SHOWN_TEXT_CHARS else text[:SHOWN_TEXT_CHARS] + "\n… (cut)"


def _public_explanation(exp: Any, family: str, policy: Disclosure) -> dict[str, Any]:
    """What a bundle keeps of `avb explain`: how the headline was computed; the lost points when the policy shows
    what they quote (recap's lines are the rubric items' reasons, `evidence.FamilyView.public_lost`; the other
    families' name the answers); warnings by their code only (their text can name a gold window)."""
    view = evidence.FAMILY_VIEWS.get(family)
    rubric_lines = view is not None and view.public_lost
    return {
        "computation": exp.computation,
        "reason": exp.reason,
        "lost": exp.lost if (policy.rubric if rubric_lines else policy.answers) else [],
        "sections": {},
        "warnings": sorted({w.split(":", 1)[0] for w in exp.warnings}),
        "integrity": exp.integrity,
    }


def task_context(model: ViewModel, site: Site, thumbs: Thumbnailer, run: int, task_id: int) -> dict[str, Any]:
    """Everything one (run, task) page shows."""
    cell = model.cell(run, task_id)
    if cell is None:
        raise KeyError((run, task_id))
    task = model.tasks.get(task_id)
    outputs, out_notes = model.outputs(run, task_id, cell.family)
    players: list[dict[str, Any]] = []
    texts: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    view = evidence.FAMILY_VIEWS.get(cell.family)
    why_withheld = view.withheld if view is not None else ""
    withheld = not site.policy.repair_outputs and bool(why_withheld)
    hide_answer = not site.policy.solved_outputs and cell.result is not None and evidence.solved(cell.result)
    for name, i in outputs:
        ref = model.files[i]
        if withheld and ref.is_video:
            out_notes.append(f"{name} is withheld from this bundle: {why_withheld}")
        url = None if withheld and ref.is_video else site.file_url(model, i)
        if ref.is_video:
            players.append({"name": name, "url": url, "id": f"out-{len(players)}", "index": i})
        elif hide_answer:  # an exact solution is the task's answer
            out_notes.append(f"{name} is withheld from this bundle: the run solved this task exactly")
        elif ref.ctype.startswith("text/") or ref.ext in (".md", ".json", ".txt"):
            texts.append({"name": name, "text": _text_of(model, i), "url": url})
        else:
            links.append({"name": name, "url": url})
    # A bundle lists the inputs by name only: they are the dataset's files (whole films), not the run's results.
    inputs = [
        {"name": n, "url": None if site.public else site.file_url(model, i)} for n, i in model.inputs(task_id)
    ]
    shown = [] if site.public else model.references(task_id)
    refs = [{"name": n, "url": site.file_url(model, i)} for n, i in shown]
    r = cell.result
    ev = None
    if r is not None:
        with ExitStack() as stack:
            video = None
            if players:  # decoded through the checked descriptor: the bytes scoring hashed, or none at all
                try:
                    video = Path(stack.enter_context(model.opened(players[0]["index"])))
                except PinError as exc:
                    out_notes.append(str(exc))
            given = evidence.EvidenceInput(r, model, thumbs, site.policy, video)
            ev = evidence.task_page_evidence(cell.family, given)
    try:
        exp = explain_result(r) if r is not None else None
    except Exception as exc:  # a result file of an unexpected shape: the page shows everything else
        exp = None
        out_notes.append(f"avb explain cannot read this result ({type(exc).__name__})")
    explanation = None
    if exp is not None:
        explanation = _public_explanation(exp, cell.family, site.policy) if site.public else exp.to_dict()
    prov = r.provenance if r is not None and isinstance(r.provenance, dict) else {}
    return {
        **_base(site, f"task {task_id} · {model.runs[run].label}"),
        "cell": cell,
        "run": model.runs[run],
        "prompt": getattr(task, "prompt", None),
        "players": players,
        "texts": texts,
        "links": links,
        "inputs": inputs,
        "references": [x for x in refs if x["url"]],
        "output_notes": out_notes,
        "evidence": ev,
        "explanation": explanation,
        "warnings": (explanation or {}).get("warnings", []),
        "provenance": _provenance_rows(prov, site.policy, set(OUTPUT_FILES.get(cell.family, ()))),
        "signature": r.signature_status if r is not None else "",
        "site": site,
    }


def _provenance_rows(prov: dict[str, Any], policy: Disclosure, outputs: set[str]) -> list[tuple[str, str]]:
    """The result's provenance as rows; without `verifier_derived`, the hashes of the dataset files scoring read
    (the verifier-only source among them) are dropped and only the outputs' hashes stay."""
    if not policy.verifier_derived and isinstance(prov.get("input_hashes"), dict):
        prov = {**prov, "input_hashes": {k: v for k, v in prov["input_hashes"].items() if k in outputs}}
    return [
        (k, ", ".join(f"{a}={b}" for a, b in sorted(v.items(), key=lambda kv: str(kv[0]))))
        if isinstance(v, dict)
        else (k, str(v))
        for k, v in sorted(prov.items())
    ]


def task_page(model: ViewModel, site: Site, thumbs: Thumbnailer, run: int, task_id: int) -> str:
    """One (run, task) page."""
    ctx = task_context(model, site, thumbs, run, task_id)
    return _render("task.html", site, ctx["title"], c=ctx, thumb_url=site.thumb_url)


def compare_page(model: ViewModel, site: Site, thumbs: Thumbnailer, task_id: int) -> str:
    """Two runs' pages for one task side by side, with the paired difference A - B."""
    sides = [task_context(model, site, thumbs, r.index, task_id) for r in model.runs[:2]]
    scores = [c["cell"].score for c in sides]
    diff = None if len(sides) < 2 or None in scores else (scores[0] - scores[1])  # type: ignore[operator]
    title = f"task {task_id}: A vs B"
    return _render(
        "compare.html", site, title, task_id=task_id, sides=sides, diff=diff, thumb_url=site.thumb_url
    )
