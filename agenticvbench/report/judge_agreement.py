"""The reports' "Agreement between judges" section: model judge vs human graders on the report's recap videos.

When recap results of the report were scored by a model judge (`judge_mode` cache or replay) and people graded the
same items of the same videos with `avb grade`, the report shows, per (grader, model) pair, how often they agree:
n, raw agreement and Cohen's kappa with its 95% bootstrap interval (plus, in the JSON, the confusion matrix and
each side's pass prevalence). The statistics are `agenticvbench.grade.agreement`'s (the ones `avb judge agree`
prints), restricted to the keys (task id, item id, video SHA-256) of the videos this report scored with that
model: a verdict on another video, or on this video judged by another model, does not count.

Sources are read from the cache folder the report is given (`avb report --cache-dir`, else the package cache):
human verdicts from `grades/<grader>.jsonl`, model verdicts from the judge cache `judge/`. Nothing is shown when
no recap result used a model judge or when no grader judged any of its items.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agenticvbench.analysis.calibration import MODEL_MODES
from agenticvbench.analysis.comparability import judge_identity
from agenticvbench.errors import ConfigError
from agenticvbench.grade.agreement import compare, load_source
from agenticvbench.grade.store import Key, VerdictStore
from agenticvbench.results.model import Result
from agenticvbench.runs.trial_outcomes import get_path
from agenticvbench.verifiers import judged_output


def judged_videos(results: Iterable[Result]) -> dict[str, set[tuple[int, str]]]:
    """Model name -> {(task id, video SHA-256)} of the scored recap results that model judged (the video is the
    family's judged output, `verifiers.judged_output`; its SHA-256 is the engine's `input_hashes` entry)."""
    out: dict[str, set[tuple[int, str]]] = {}
    for r in results:
        prov = r.provenance if isinstance(r.provenance, dict) else {}
        video = judged_output(r.family)
        if video is None or r.status != "scored":
            continue
        ident = judge_identity(prov) or {}
        sha = get_path(prov, "input_hashes", video)
        if ident.get("mode") not in MODEL_MODES or not isinstance(sha, str) or len(sha) != 64:
            continue
        members = get_path(prov, "judge_ensemble", "models")
        models = members if isinstance(members, list) else [ident.get("model")]
        for m in models:
            if isinstance(m, str) and m:
                out.setdefault(m, set()).add((int(r.task_id), sha))
    return out


def _on(source: dict[Key, str], videos: set[tuple[int, str]]) -> dict[Key, str]:
    return {k: v for k, v in source.items() if (k[0], k[2]) in videos}


def judge_agreement(results: Iterable[Result], cache_dir: str | Path) -> dict[str, Any] | None:
    """The section's data (JSON-ready), or None when there is nothing to compare."""
    videos = judged_videos(results)
    if not videos:
        return None
    cache = Path(cache_dir)
    store = VerdictStore(cache / "grades")
    graders = store.graders()
    if not graders:
        return None
    humans: dict[str, dict[Key, str]] = {}
    unreadable: list[str] = []
    for g in graders:
        try:
            humans[g] = load_source(f"human:{g}", cache)
        except ConfigError as exc:  # a grades file that is not a regular file or is over the size limit
            unreadable.append(str(exc))
        except OSError as exc:  # e.g. a directory or an unreadable file under that name
            unreadable.append(f"{store.root / (g + '.jsonl')}: {exc.strerror or exc}")
    pairs: list[dict[str, Any]] = []
    for model in sorted(videos):
        judged = _on(load_source(f"model:{model}", cache), videos[model])
        for g, verdicts in humans.items():
            overall = compare(_on(verdicts, videos[model]), judged, {})["overall"]
            if overall["n"]:
                pairs.append(
                    {"a": f"human:{g}", "b": f"model:{model}", "grader": g, "model": model, **overall}
                )
    if not pairs:
        return None
    return {
        "cache_dir": str(cache),
        "pairs": pairs,
        "unreadable": unreadable,
        "scope": "recap llm items of this report's videos judged by both (task id, item id, video SHA-256)",
    }


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _ci(ci: list[float] | None) -> str:
    return "" if not ci else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def rows(section: dict[str, Any]) -> list[list[Any]]:
    """Table rows: grader, model, n, raw agreement, kappa [95% CI]."""
    return [
        [p["grader"], p["model"], p["n"], _num(p["agreement"]), _num(p["kappa"]) + _ci(p["kappa_ci95"])]
        for p in section["pairs"]
    ]


HEADERS = ["grader", "model judge", "n", "raw agreement", "Cohen's kappa [95% CI]"]
NOTE = (
    "Recap llm items of this report's videos that both the grader (avb grade) and the model judge gave a pass or "
    "fail; kappa's interval is a percentile bootstrap over the items (2000 resamples, seed 0); n/a when one "
    "label was given throughout. Verdicts read from {cache}."
)


def notes(section: dict[str, Any]) -> list[str]:
    """The sentences under the table: how the numbers were made, and grader files that could not be read."""
    return [NOTE.format(cache=section["cache_dir"]), *[f"not read: {u}" for u in section["unreadable"]]]
