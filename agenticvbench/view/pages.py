"""The pages of `avb view`, rendered with Jinja2 templates that escape every value (autoescape on).

The same pages serve a local server and a static bundle; a `Site` says which: in a bundle (`public`) no answer
and no verifier-only file is shown, and `media` decides whether output files and thumbnails are linked. Pages
use relative links only (`index.html`, `task-<run>-<task>.html`, `stack-<stack>-<task>.html`,
`compare-<task>.html`, `defects.html`, `files/<n>.mp4`, `thumbs/<name>.jpg`), so a bundle opens from any static
file server. Runs are in the order given everywhere; each page carries its previous/next links (`view.navigation`),
which the script (`static/view.js`) binds to keys and, after the overview was filtered, to the filtered order. Scripts and styles are separate files (`static/`) so the Content
Security Policy needs no `unsafe-inline`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from agenticvbench.view import evidence, timeline
from agenticvbench.view.defects import DEFECTS, DEFECTS_DOC, warning_row
from agenticvbench.view.disclosure import LOCAL, Disclosure, published
from agenticvbench.view.model import Cell, ViewModel
from agenticvbench.view.navigation import navigation
from agenticvbench.view.steps import short_why
from agenticvbench.view.thumbs import Thumbnailer

MEDIA_MODES = ("none", "thumbs", "full")
SHOWN_TEXT_CHARS = 20_000
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'"
)


@dataclass(kw_only=True)
class Site:
    """Where the pages go: a local server (everything) or a public bundle (`media`: none, thumbs or full), and
    what its pages may show (`policy`, `view.disclosure`: everything locally, `published()` in a bundle)."""

    public: bool = False
    media: str = "full"
    policy: Disclosure = LOCAL
    files: set[int] = field(default_factory=set)
    thumbs: set[str] = field(default_factory=set)
    #: the runs are compared (`avb view --compare`): the pages link each task's compare page
    compare: bool = False

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
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("agenticvbench.view", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["duration"] = duration_text
    return env


def duration_text(seconds: float) -> str:
    """`42s`, `12m05s`, `1h02m`: a wall time on a badge."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _base(site: Site, title: str) -> dict[str, Any]:
    return {"title": title, "csp": CSP, "public": site.public, "media": site.media}


def _render(template: str, site: Site, title: str, **values: Any) -> str:
    return environment().get_template(template).render(**_base(site, title), **values)


def _filter_values(model: ViewModel) -> dict[str, list[str]]:
    """The choices of the overview's filters: the families, the statuses and the outcomes that occur."""
    cells = [c for tid in model.task_order for r in model.runs if (c := model.cell(r.index, tid))]
    return {
        "statuses": sorted({c.status for c in cells}),
        "outcomes": sorted({c.outcome for c in cells if c.outcome}),
    }


def overview(model: ViewModel, site: Site, comparisons: Sequence[Any] = ()) -> str:
    """The leaderboard, the signature counts, the comparisons (if any: each run against the first given) and the
    task x run grid with its filter, sort and search controls (`static/view.js`). Runs in the order given."""
    rep = model.report
    stacks = model.stacks
    grid = [
        {
            "family": fam,
            "task_id": tid,
            "cells": [model.cell(r.index, tid) for r in model.runs],
            "stacks": [st for st in stacks if len(st.runs) > 1],
        }
        for fam in model.families
        for tid in model.task_ids(fam)
    ]
    tables = []
    for comparison in comparisons:
        headers, rows = comparison.table()
        tables.append({"html": html_table(headers, rows, "lrrrrrrrrrrl"), "caption": comparison.caption})
    per_run = rep.signatures.get("per_run", {})
    signatures = {r.label: per_run[r.label] for r in model.runs if r.label in per_run}
    signatures.update({k: v for k, v in per_run.items() if k not in signatures})
    return _render(
        "overview.html",
        site,
        "overview",
        leaderboard=rep.board.html_table(),
        caption=rep.board.caption,
        signatures=signatures,
        runs=model.runs,
        stacks=stacks,
        multi_rep=any(len(st.runs) > 1 for st in stacks),
        families=model.families,
        grid=grid,
        notes=model.notes + rep.notes,
        universe=rep.universe.label,
        comparisons=tables,
        audit=timeline.audit_summary(model),
        audit_rules=timeline.TRAJECTORY_FLAGS,
        compare_pages=bool(comparisons),
        **_filter_values(model),
    )


def defects_page(site: Site) -> str:
    """The upstream defect ids a warning can start with, each with its one-line meaning."""
    return _render("defects.html", site, "upstream defect ids", defects=DEFECTS, doc=DEFECTS_DOC)


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


def task_context(
    model: ViewModel, site: Site, thumbs: Thumbnailer, run: int, task_id: int, side: bool = False
) -> dict[str, Any]:
    """Everything one (run, task) page shows (`side`: beside other runs' pages, which link it)."""
    cell = model.cell(run, task_id)
    if cell is None:
        raise KeyError((run, task_id))
    task = model.tasks.get(task_id)
    outputs, out_notes = model.outputs(run, task_id, cell.family)
    players: list[dict[str, Any]] = []
    texts: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    for name, i in outputs:
        ref = model.files[i]
        if ref.size == 0:  # nothing to play or read: a player would only ask for a range that cannot exist
            out_notes.append(f"{name} is empty (0 bytes)")
            continue
        if why := evidence.output_withheld(site.policy, cell.family, cell.result, ref.is_video):
            out_notes.append(f"{name} is withheld from this bundle: {why}")
        url = None if why else site.file_url(model, i)
        if ref.is_video:
            players.append({"name": name, "url": url, "id": f"out-{len(players)}", "index": i})
        elif why:  # an exact solution is the task's answer: neither shown nor copied into a bundle
            continue
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
            if video is not None and (why := thumbs.problem(video)):
                out_notes.append(f"{players[0]['name']}: no frames shown, {why}")
    try:
        exp = explain_result(r) if r is not None else None
    except Exception as exc:  # a result file of an unexpected shape: the page shows everything else
        exp = None
        out_notes.append(f"avb explain cannot read this result ({type(exc).__name__})")
    explanation = None
    if exp is not None:
        explanation = _public_explanation(exp, cell.family, site.policy) if site.public else exp.to_dict()
    prov = r.provenance if r is not None and isinstance(r.provenance, dict) else {}
    sections = [
        {"template": sec.template, **found}
        for sec in TASK_SECTIONS
        if (found := sec.build(model, site, cell, side)) is not None
    ]
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
        "warnings": [warning_row(w) for w in (explanation or {}).get("warnings", [])],
        "provenance": _provenance_rows(
            prov, site.policy, set(OUTPUT_FILES.get(cell.family, ())), r is not None and evidence.solved(r)
        ),
        "signature": r.signature_status if r is not None else "",
        "site": site,
        "sections": sections,
        # a flag a section can point at (the trajectory's first flagged step per rule): the summary links it
        "flag_links": {k: v for sec in sections for k, v in sec.get("flag_links", {}).items()},
    }


@dataclass(frozen=True)
class TaskSection:
    """An extra section of every task page, after the evidence: `build(model, site, cell, side)` returns the
    values its template (`templates/<template>`, given them as `s`) draws, or None to leave the section out
    (`side`: the page sits beside other runs' on a stack or compare page, a summary is enough). This is where a
    new kind of material joins the pages without touching the others; the builder must ask `site.policy` what a
    bundle may show."""

    name: str
    template: str
    build: Callable[[ViewModel, Site, Cell, bool], dict[str, Any] | None]
    #: what says whether material the section reads beside the results changed (cheap: `stat` calls), or None
    stamp: Callable[[ViewModel, Cell], tuple[Any, ...]] | None = None


#: The extra sections of the task pages, in page order: the agent's trajectory (`view.timeline`).
TASK_SECTIONS: list[TaskSection] = [
    TaskSection("trajectory", "trajectory.html", timeline.task_section, timeline.task_stamp)
]


def task_stamp(model: ViewModel, run: int, task_id: int) -> tuple[Any, ...]:
    """What says whether a kept (run, task) page is stale although the results are not: each section's `stamp`
    (the agent's logs, for the trajectory). The server takes it before answering a kept task page."""
    cell = model.cell(run, task_id)
    if cell is None:
        return ()
    return tuple(sec.stamp(model, cell) for sec in TASK_SECTIONS if sec.stamp is not None)


def _provenance_rows(
    prov: dict[str, Any], policy: Disclosure, outputs: set[str], solved: bool
) -> list[tuple[str, str]]:
    """The result's provenance as rows; without `verifier_derived`, the hashes of the dataset files scoring read
    (the verifier-only source among them) are dropped and only the outputs' hashes stay; for a task the run
    `solved` exactly, without `solved_outputs`, the trajectory's flagged steps keep their why without its
    parenthesised detail (`steps.short_why`), as the timeline shows them."""
    if not policy.verifier_derived and isinstance(prov.get("input_hashes"), dict):
        prov = {**prov, "input_hashes": {k: v for k, v in prov["input_hashes"].items() if k in outputs}}
    block = prov.get("trajectory")
    if solved and not policy.solved_outputs and isinstance(block, dict):
        listed = block.get("flagged_steps")
        short = [
            {**f, "why": short_why(str(f["why"]))} if isinstance(f, dict) and "why" in f else f
            for f in (listed if isinstance(listed, list) else [])
        ]
        prov = {
            **prov,
            "trajectory": {**block, "flagged_steps": short} if isinstance(listed, list) else block,
        }
    return [
        (k, ", ".join(f"{a}={b}" for a, b in sorted(v.items(), key=lambda kv: str(kv[0]))))
        if isinstance(v, dict)
        else (k, str(v))
        for k, v in sorted(prov.items())
    ]


def task_page(model: ViewModel, site: Site, thumbs: Thumbnailer, run: int, task_id: int) -> str:
    """One (run, task) page (with a link to the task's compare page when the site compares runs)."""
    ctx = task_context(model, site, thumbs, run, task_id)
    nav = navigation(model, "task", task_id, run=run)
    nav["compare"] = f"compare-{task_id}.html" if site.compare else None
    return _render("task.html", site, ctx["title"], c=ctx, nav=nav, thumb_url=site.thumb_url)


def _sides(model: ViewModel, site: Site, thumbs: Thumbnailer, runs: Sequence[int], task_id: int) -> list[Any]:
    return [
        task_context(model, site, thumbs, r, task_id, True)
        for r in runs
        if model.cell(r, task_id) is not None
    ]


def stack_page(model: ViewModel, site: Site, thumbs: Thumbnailer, stack: int, task_id: int) -> str:
    """Every rep of one stack for one task, side by side, with a table of their scores, times and costs."""
    st = model.stacks[stack]
    sides = _sides(model, site, thumbs, st.runs, task_id)
    if not sides:
        raise KeyError((stack, task_id))
    nav = navigation(model, "stack", task_id, stack=stack)
    return _render(
        "stack.html",
        site,
        f"task {task_id} · {st.label} · {len(sides)} rep(s)",
        task_id=task_id,
        stack=st,
        sides=sides,
        nav=nav,
        thumb_url=site.thumb_url,
    )


def compare_page(model: ViewModel, site: Site, thumbs: Thumbnailer, task_id: int) -> str:
    """The compared runs' pages for one task side by side, each with its difference to the first run (A): the
    values `avb compare` pairs (`Cell.value`: a failed cell counts 0, an excluded one has no difference)."""
    sides = _sides(model, site, thumbs, [r.index for r in model.runs], task_id)
    if not sides:
        raise KeyError(task_id)
    first = sides[0]["cell"].value
    diffs = [None if first is None or c["cell"].value is None else first - c["cell"].value for c in sides[1:]]
    names = [side_name(k) for k in range(len(sides))]
    title = f"task {task_id}: " + " vs ".join(names)
    return _render(
        "compare.html",
        site,
        title,
        task_id=task_id,
        sides=sides,
        names=names,
        keys=[chr(ord("a") + k) if k < 26 else f"r{k}" for k in range(len(sides))],
        diffs=diffs,
        nav=navigation(model, "compare", task_id),
        thumb_url=site.thumb_url,
    )


def side_name(k: int) -> str:
    """A, B, C, ... then run 27, run 28, ..."""
    return chr(ord("A") + k) if k < 26 else f"run {k + 1}"
