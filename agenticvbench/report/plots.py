"""Report plots as PNG bytes (matplotlib Agg via `Figure`, no pyplot state, so it is safe anywhere).

Each function returns the PNG bytes of one figure, or None when the result lacks the data to plot.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from agenticvbench.analysis.aggregate import NO_RESULT, GroupHeadline, RunRef, run_ref
from agenticvbench.analysis.comparability import legend, symbols
from agenticvbench.baselines.table import Floor
from agenticvbench.results.model import Result
from agenticvbench.verifiers.base import number
from agenticvbench.verifiers.repair.constants import EDIT_MAX
from agenticvbench.verifiers.repair.detail import CHUNK_SIGNALS, EditDetail, as_repair_detail
from agenticvbench.verifiers.sequencing import orders

_STATUS_MARK = {
    "missing": ("o", "#777777"),
    "malformed": ("x", "#d62728"),
    "error": ("X", "#000000"),
    "invalid": ("X", "#d62728"),
    NO_RESULT: (".", "#777777"),
}


def to_png(fig: Figure, dpi: int = 100) -> bytes:
    """Render a figure to PNG bytes."""
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def family_bars(
    groups: Sequence[GroupHeadline],
    families: Sequence[str],
    human_reference: dict[str, float] | None = None,
    floor: Floor | None = None,
) -> bytes:
    """Per-family headline bars, one bar per (harness, model), 95 % CI whiskers, published human lines, and
    the floor (best trivial strategy, dotted, named) when given."""
    fig = Figure(figsize=(max(6.0, 1.6 * (len(families) + 2)), 3.8))
    ax = fig.add_subplot()
    cols = [*families, "macro", "micro"]
    x = np.arange(len(cols))
    width = 0.8 / max(1, len(groups))
    handles: list[Patch] = []  # plain swatches: a hatched first bar must not make the whole group look marked
    for k, g in enumerate(groups):
        vals, lo, hi = [], [], []
        for c in cols:
            if c in ("macro", "micro"):
                m, (a, b) = (g.macro, g.macro_ci) if c == "macro" else (g.micro, g.micro_ci)
            else:
                fh = g.families.get(c)
                m, a, b = (fh.mean, fh.ci_low, fh.ci_high) if fh else (np.nan, None, None)
            vals.append(m)
            lo.append(0.0 if a is None else max(0.0, m - a))
            hi.append(0.0 if b is None else max(0.0, b - m))
        pos = x - 0.4 + width * (k + 0.5)
        marks = [symbols((g.marks or {}).get(c, [])) for c in cols]
        bars = ax.bar(pos, vals, width, yerr=[lo, hi], capsize=3)
        handles.append(Patch(facecolor=bars.patches[0].get_facecolor(), label=f"{g.harness}/{g.model}"))
        for bar, mark, v in zip(bars, marks, vals, strict=True):
            if mark:  # not comparable: hatched and labelled, never a plain bar beside the human reference
                bar.set_hatch("//")
                bar.set_alpha(0.6)
                ax.text(
                    bar.get_x() + bar.get_width() / 2,
                    min(1.0, (0 if np.isnan(v) else v)) + 0.03,
                    mark,
                    ha="center",
                    fontsize=9,
                    color="#b00000",
                )
    for i, c in enumerate(cols):
        ref = (human_reference or {}).get(c)
        if ref is not None:
            ax.hlines(ref, i - 0.45, i + 0.45, colors="#d62728", linestyles="--", linewidth=2)
            ax.text(
                i,
                ref + 0.02,
                f"human {ref:.2f}",
                ha="center",
                fontsize=8,
                color="#d62728",
                bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none", "pad": 1},
            )
    ax.set_xticks(x, _draw_floor(ax, cols, floor), fontsize=8)
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("headline (mean over runs x tasks)")
    used = legend(groups)
    ax.set_title(
        "Headline per family (whiskers: 95% bootstrap CI; dashed: published human reference"
        + ("; dotted: floor, the best trivial strategy)" if floor is not None else ")")
        + ("\nhatched = not comparable: " + "; ".join(u.split(":")[0] for u in used) if used else ""),
        fontsize=9,
    )
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_png(fig)


def _draw_floor(ax: Any, cols: Sequence[str], floor: Floor | None) -> list[str]:
    """The floor of each family (and macro/micro) as a dotted line; its value and strategy go into the column's
    tick label (returned), below the axis, so that no label ever covers a bar or its whisker."""
    ticks = list(cols)
    if floor is None:
        return ticks
    for i, c in enumerate(cols):
        entry = floor.families.get(c)
        value = (
            entry.mean if entry else floor.macro if c == "macro" else floor.micro if c == "micro" else None
        )
        if value is None:
            continue
        ax.hlines(value, i - 0.45, i + 0.45, colors="#444444", linestyles=":", linewidth=2)
        ticks[i] = f"{c}\nfloor {value:.2f}" + (f"\n{entry.strategy}" if entry else "")
    return ticks


def task_grid(results: Sequence[Result], runs: Sequence[RunRef], tasks: Mapping[str, Sequence[int]]) -> bytes:
    """Runs x tasks heat map of headline scores; non-scored cells carry a status marker instead of a colour."""
    ids = [(f, t) for f, ts in tasks.items() for t in ts]
    index = {(run_ref(r).path, int(r.task_id)): r for r in results}
    grid = np.full((len(runs), len(ids)), np.nan)
    fig = Figure(figsize=(min(24.0, max(6.0, 0.14 * len(ids) + 2.5)), 0.45 * len(runs) + 1.8))
    ax = fig.add_subplot()
    marks: dict[str, list[tuple[int, int]]] = {}
    for i, run in enumerate(runs):
        for j, (_, tid) in enumerate(ids):
            r = index.get((run.path, tid))
            status = r.status if r else NO_RESULT
            if status == "scored":
                grid[i, j] = r.headline_score  # type: ignore[union-attr]
            else:
                marks.setdefault(status, []).append((j, i))
    im = ax.imshow(grid, aspect="auto", cmap="viridis", vmin=0, vmax=1, interpolation="nearest")
    for status, pts in marks.items():
        m, colour = _STATUS_MARK[status]
        ax.scatter(
            [p[0] for p in pts], [p[1] for p in pts], marker=m, c=colour, s=28, label=status.replace("_", " ")
        )
    start = 0
    for fam, ts in tasks.items():
        if start:
            ax.axvline(start - 0.5, color="white", linewidth=2)
        ax.text(start + (len(ts) - 1) / 2, -0.7, fam, ha="center", va="bottom", fontsize=8)
        start += len(ts)
    step = max(1, len(ids) // 40)
    ax.set_xticks(range(0, len(ids), step), [str(ids[j][1]) for j in range(0, len(ids), step)], fontsize=7)
    ax.set_yticks(range(len(runs)), [r.short for r in runs], fontsize=8)
    ax.set_xlabel("task id")
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.01, label="headline score")
    if marks:
        ax.legend(
            fontsize=7,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.22),
            ncol=len(marks),
            title="no colour = counts 0 because",
            title_fontsize=7,
        )
    return to_png(fig)


def _window(edit: EditDetail) -> tuple[float, float] | None:
    w = edit.get("window_s")
    if isinstance(w, (list, tuple)) and len(w) == 2 and all(isinstance(v, (int, float)) for v in w):
        return float(w[0]), float(w[1])
    return None


def repair_chunks(result: Result) -> bytes | None:
    """Repair edit signals per 10-s chunk over time (video SSIM and audio xcorr, in- and out-of-window)."""
    edit = as_repair_detail(result.detail)["edit"]
    chunks = edit.get("chunks") or []
    if not chunks:
        return None
    fig = Figure(figsize=(7.0, 2.8))
    ax = fig.add_subplot()
    styles = dict(
        zip(
            CHUNK_SIGNALS,
            [("#1f77b4", "-"), ("#1f77b4", ":"), ("#ff7f0e", "-"), ("#ff7f0e", ":")],
            strict=True,
        )
    )
    for key, (colour, ls) in styles.items():
        xs: list[float] = []
        ys: list[float] = []
        for c in chunks:
            v = c.get(key)
            if isinstance(v, (int, float)):
                xs += [number(c.get("start_s")), number(c.get("end_s")), np.nan]
                ys += [float(v), float(v), np.nan]
        if xs:
            ax.plot(xs, ys, color=colour, linestyle=ls, linewidth=2, label=key)
    win = _window(edit)
    if win:
        ax.axvspan(win[0], win[1], color="#d62728", alpha=0.12, label="defect window")
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("similarity to source")
    ax.set_title(
        f"repair task {result.task_id}, {run_ref(result).short}\nfinal {result.final_score:.3f}, "
        f"edit {float(edit.get('score', 0)):.1f}/{edit.get('max', EDIT_MAX)}",
        fontsize=8,
    )
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return to_png(fig)


def sequencing_order(result: Result) -> bytes | None:
    """Predicted vs true order: each placed clip at (true position, predicted position); the diagonal is perfect."""
    found = orders(result)
    if found is None or not found[1]:
        return None
    pred, true = found
    rank = {str(c): i for i, c in enumerate(true)}
    fig = Figure(figsize=(3.6, 3.4))
    ax = fig.add_subplot()
    n = max(len(true), len(pred))
    ax.plot([0, n - 1], [0, n - 1], color="#999999", linestyle="--", linewidth=1)
    ok = [(rank[str(c)], k) for k, c in enumerate(pred) if str(c) in rank]
    bad = [k for k, c in enumerate(pred) if str(c) not in rank]
    ax.plot([p[0] for p in ok], [p[1] for p in ok], marker="o", color="#1f77b4", linewidth=1)
    if bad:
        ax.scatter([-1] * len(bad), bad, marker="x", color="#d62728", label="id not in the true order")
        ax.legend(fontsize=7)
    for (x, y), c in zip(ok, [c for c in pred if str(c) in rank], strict=True):
        ax.annotate(str(c), (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("true position")
    ax.set_ylabel("predicted position")
    ax.invert_yaxis()
    score = result.headline_score  # sequencing's headline is adjusted_final_score
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(
        f"sequencing task {result.task_id}, {run_ref(result).short}\nadjusted {score:.3f}", fontsize=8
    )
    return to_png(fig)
