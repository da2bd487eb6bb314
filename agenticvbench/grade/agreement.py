"""Agreement between graders and judges on recap llm items: raw agreement, Cohen's and Fleiss' kappa.

A *source* is a set of binary verdicts keyed by (task id, item id, SHA-256 of the video):

- `human:<grader>`: the grader's current verdicts from the verdict store (`skip` is no verdict);
- `model:<name>`: the decisive verdicts model `<name>` left in the judge cache (first sample only; entries
  written before the cache recorded task id and video hash cannot be placed and are ignored).

Two sources are compared on the keys both judged. Reported, overall, per pillar and per modality (the route the
model judge gave the item, `judge.routing`, as its cached verdicts record it; `unknown` when no cached verdict
names one): n, raw agreement, Cohen's
kappa with a 95% percentile bootstrap interval (2000 resamples of the compared items, numpy seed 0), the 2x2 confusion
matrix (rows: first source, columns: second; order pass, fail) and each source's pass prevalence; per item
(task, item id): n and raw agreement. Kappa is None when it is undefined (both sources gave one single label
throughout, so chance agreement is 1). Fleiss' kappa covers three or more sources on the keys all of them judged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agenticvbench.errors import ConfigError
from agenticvbench.grade.store import Key, VerdictStore
from agenticvbench.judge.routing import MODALITIES

LABELS = ("pass", "fail")
BOOTSTRAP = 2000
MAX_CACHE_ENTRY = 256 * 1024


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's kappa of two equally long label sequences; None when undefined (chance agreement 1) or empty."""
    n = len(a)
    if n == 0 or n != len(b):
        return None
    labels = sorted(set(a) | set(b))
    po = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pe = sum((a.count(k) / n) * (b.count(k) / n) for k in labels)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


def bootstrap_ci(
    a: Sequence[str], b: Sequence[str], *, resamples: int = BOOTSTRAP, seed: int = 0
) -> tuple[float, float] | None:
    """95% percentile bootstrap interval of Cohen's kappa for binary labels (resampling compared items, numpy,
    in chunks so memory stays small); resamples where kappa is undefined are dropped; None when too few."""
    n = len(a)
    if n < 2:
        return None
    x = np.fromiter((v == LABELS[0] for v in a), dtype=np.float64, count=n)
    y = np.fromiter((v == LABELS[0] for v in b), dtype=np.float64, count=n)
    rng = np.random.default_rng(seed)
    chunk = max(1, min(resamples, 4_000_000 // n))
    values = []
    for start in range(0, resamples, chunk):
        idx = rng.integers(0, n, size=(min(chunk, resamples - start), n))
        xs, ys = x[idx], y[idx]
        po = (xs == ys).mean(axis=1)
        px, py = xs.mean(axis=1), ys.mean(axis=1)
        pe = px * py + (1 - px) * (1 - py)
        ok = pe < 1.0
        values.append((po[ok] - pe[ok]) / (1 - pe[ok]))
    kappas = np.concatenate(values)
    if kappas.size < resamples // 2:
        return None
    lo, hi = np.percentile(kappas, [2.5, 97.5])
    return (float(lo), float(hi))


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa from a subjects x categories matrix of rating counts (every subject rated by the same
    number of raters, at least 2); None when undefined."""
    if not counts:
        return None
    n = sum(counts[0])
    if n < 2 or any(sum(row) != n for row in counts):
        raise ValueError("every subject needs the same number (>= 2) of ratings")
    big_n = len(counts)
    k = len(counts[0])
    p_j = [sum(row[j] for row in counts) / (big_n * n) for j in range(k)]
    p_i = [(sum(c * c for c in row) - n) / (n * (n - 1)) for row in counts]
    p_bar = sum(p_i) / big_n
    pe = sum(p * p for p in p_j)
    if pe >= 1.0:
        return None
    return (p_bar - pe) / (1 - pe)


def _pair_stats(a: list[str], b: list[str]) -> dict[str, Any]:
    n = len(a)
    conf = [[sum(x == r and y == c for x, y in zip(a, b, strict=True)) for c in LABELS] for r in LABELS]
    kappa = cohen_kappa(a, b)
    ci = bootstrap_ci(a, b) if kappa is not None else None
    return {
        "n": n,
        "agreement": (sum(x == y for x, y in zip(a, b, strict=True)) / n) if n else None,
        "kappa": kappa,
        "kappa_ci95": list(ci) if ci else None,
        "confusion": conf,
        "labels": list(LABELS),
        "prevalence": {
            "a_pass": a.count("pass") / n if n else None,
            "b_pass": b.count("pass") / n if n else None,
        },
    }


def compare(
    a: dict[Key, str],
    b: dict[Key, str],
    pillars: dict[tuple[int, str], int],
    modalities: dict[tuple[int, str], str] | None = None,
) -> dict[str, Any]:
    """Agreement of two sources on their common keys: overall, per pillar, per modality (with `modalities`) and
    per item."""
    keys = sorted(set(a) & set(b))
    out: dict[str, Any] = {"overall": _pair_stats([a[k] for k in keys], [b[k] for k in keys])}
    by_pillar: dict[str, list[Key]] = {}
    by_modality: dict[str, list[Key]] = {}
    by_item: dict[str, list[Key]] = {}
    for k in keys:
        p = pillars.get((k[0], k[1]))
        by_pillar.setdefault("unknown" if p is None else str(p), []).append(k)
        by_modality.setdefault((modalities or {}).get((k[0], k[1]), "unknown"), []).append(k)
        by_item.setdefault(f"{k[0]}/{k[1]}", []).append(k)
    out["pillars"] = {
        p: _pair_stats([a[k] for k in ks], [b[k] for k in ks]) for p, ks in sorted(by_pillar.items())
    }
    if modalities is not None:
        out["modalities"] = {
            m: _pair_stats([a[k] for k in ks], [b[k] for k in ks]) for m, ks in sorted(by_modality.items())
        }
    out["items"] = {
        i: {"n": len(ks), "agreement": sum(a[k] == b[k] for k in ks) / len(ks)}
        for i, ks in sorted(by_item.items())
    }
    return out


def fleiss_for(sources: dict[str, dict[Key, str]]) -> dict[str, Any]:
    """Fleiss' kappa of three or more sources on the keys all of them judged."""
    common = sorted(set.intersection(*(set(s) for s in sources.values())))
    counts = [[sum(s[k] == lab for s in sources.values()) for lab in LABELS] for k in common]
    return {"sources": list(sources), "n": len(common), "kappa": fleiss_kappa(counts) if common else None}


def cached_verdicts(cache_root: Path, model: str | None = None) -> Iterator[tuple[Key, dict[str, Any]]]:
    """(key, record) of every decisive verdict in the judge cache that names its task id, item id and video
    hash (of `model` only, when given); oversized, torn and foreign files are skipped."""
    judge_dir = cache_root / "judge"
    if not judge_dir.is_dir():
        return
    for path in sorted(judge_dir.glob("??/*.json")):
        try:
            if not path.is_file() or os.path.getsize(path) > MAX_CACHE_ENTRY:
                continue
            rec = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue
        if not isinstance(rec, dict) or rec.get("outcome") not in LABELS:
            continue
        if model is not None and rec.get("model") != model:
            continue
        tid, item, sha = rec.get("task_id"), rec.get("item_id"), rec.get("video_sha256")
        if (
            isinstance(tid, int)
            and not isinstance(tid, bool)
            and isinstance(item, str)
            and isinstance(sha, str)
        ):
            yield (tid, item, sha), rec


def _model_source(cache_root: Path, model: str) -> dict[Key, str]:
    return {k: rec["outcome"] for k, rec in cached_verdicts(cache_root, model)}


def modality_map(cache_root: Path) -> dict[tuple[int, str], str]:
    """(task id, item id) -> the modality the model judge routed the item to, from every cached verdict that
    records one (routing depends on the item alone, so any model's record names it)."""
    out: dict[tuple[int, str], str] = {}
    for k, rec in cached_verdicts(cache_root):
        m = rec.get("modality")
        if isinstance(m, str) and m in MODALITIES:
            out[(k[0], k[1])] = m
    return out


def load_source(spec: str, cache_root: Path) -> dict[Key, str]:
    """The verdicts of `human:<grader>` or `model:<name>`; ConfigError for another spelling."""
    kind, _, name = spec.partition(":")
    if kind == "human" and name:
        return {
            k: v.verdict
            for k, v in VerdictStore(cache_root / "grades").latest(name).items()
            if v.verdict in LABELS
        }
    if kind == "model" and name:
        return _model_source(cache_root, name)
    raise ConfigError(f"source {spec!r}: expected human:<grader> or model:<name>")


def pillar_map(store: VerdictStore) -> dict[tuple[int, str], int]:
    """(task id, item id) -> pillar, from whatever the graders' records say."""
    out: dict[tuple[int, str], int] = {}
    for g in store.graders():
        for v in store.read(g):
            if v.pillar is not None:
                out[(v.task_id, v.item_id)] = v.pillar
    return out


def empty_source_warnings(sources: dict[str, dict[Key, str]], store: VerdictStore) -> list[str]:
    """One line per source with no verdicts at all (a mistyped grader or model name reports n=0 otherwise)."""
    known = ", ".join(sorted(store.graders())) or "none yet; see avb grade"
    out = []
    for spec in (s for s, verdicts in sources.items() if not verdicts):
        kind, _, name = spec.partition(":")
        out.append(
            f"no verdicts for grader {name!r} (known: {known})"
            if kind == "human"
            else f"no cached verdicts of model {name!r} (the judge cache holds a model's verdicts once avb "
            "verify has run with it)"
        )
    return out


def agreement_report(specs: Iterable[str], cache_root: Path) -> dict[str, Any]:
    """Pairwise agreement of every pair of sources (overall, per pillar, per modality, per item), plus Fleiss'
    kappa for three or more."""
    specs = list(specs)
    sources = {s: load_source(s, cache_root) for s in specs}
    pillars = pillar_map(VerdictStore(cache_root / "grades"))
    modalities = modality_map(cache_root)
    pairs = [
        {"a": x, "b": y, **compare(sources[x], sources[y], pillars, modalities)}
        for i, x in enumerate(specs)
        for y in specs[i + 1 :]
    ]
    report: dict[str, Any] = {
        "sources": {s: len(v) for s, v in sources.items()},
        "pairs": pairs,
        "warnings": empty_source_warnings(sources, VerdictStore(cache_root / "grades")),
    }
    if len(specs) >= 3:
        report["fleiss"] = fleiss_for(sources)
    return report
