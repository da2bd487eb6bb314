"""How numbers are aggregated, resolved once per command and carried with the numbers it made.

`Aggregation` holds every setting a headline, an interval or a comparison depends on: the bootstrap's resamples,
seed and level, the clustering (the source clusters, or why there are none) and the rule for excluded cells, with
the integrity flags whose cells are left out (`--exclude-flagged`, `leave_out_flagged`). A
command builds it once (`Aggregation.resolve`, from the CLI's one argument helper
`agenticvbench.cli.report.aggregation_from_args`), passes it to every computation, and renders every caption, note and JSON
block from it, so a caption cannot contradict its JSON and two surfaces showing the same runs cannot have been
computed with different settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agenticvbench.analysis.aggregate import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FLAGGED_OUT,
    integrity_of,
)
from agenticvbench.analysis.calibration import CalibrationGate
from agenticvbench.analysis.clusters import Clustering, family_clusters, resolve_clustering
from agenticvbench.dataset.loader import default_cache_dir
from agenticvbench.results.model import Result

#: The one rule for cells that are not a score, as every caption states it.
EXCLUSION_RULE = (
    "a task with no result, an invalid result file, or status missing/malformed/error counts 0; an excluded "
    "cell (an infrastructure failure imported with --infra-policy exclude) is left out of the means, and a "
    "family with no cell left shows 0"
)

#: The integrity flags `--exclude-flagged` leaves out unless told others (`--exclude-flags`): the trajectory
#: audit's, which say how the agent worked. The screening's flags (`rotation`, `identical_to_input`, ...) say
#: something about an output file, which its score already answers for; name them to leave them out too.
FLAGGED_DEFAULT: tuple[str, ...] = ("answer_access", "web_access", "foreign_task")


def flagged(result: Result, flags: Iterable[str]) -> list[str]:
    """The result's integrity flags among `flags`."""
    chosen = set(flags)
    return [f for f in integrity_of(result) if f in chosen]


def leave_out_flagged(results: Iterable[Result], flags: Sequence[str]) -> tuple[list[Result], int]:
    """(`results` with every result carrying one of `flags` turned into an excluded cell, how many): left out of
    the means as an excluded cell is, its reason naming the flags (`aggregate.FLAGGED_OUT`, so it is not listed as
    an infrastructure failure), and those flags dropped from it (the numbers no longer depend on it)."""
    out: list[Result] = []
    n = 0
    for r in results:
        hit = flagged(r, flags)
        if hit and not (r.status == "excluded" and r.reason.startswith(FLAGGED_OUT)):
            n += 1
            rest = [f for f in integrity_of(r) if f not in hit]
            r = replace(r, status="excluded", reason=FLAGGED_OUT + ", ".join(hit), integrity=rest)
        out.append(r)
    return out, n


def flagged_rule(flags: Sequence[str], n: int) -> str:
    """The sentence every surface prints about `--exclude-flagged` ('' when it is off)."""
    if not flags:
        return ""
    return (
        f"--exclude-flagged: {n} cell(s) flagged {'/'.join(flags)} are left out of the means as excluded cells "
        "are (their scores are kept in the results)"
    )


@dataclass(frozen=True, kw_only=True)
class Aggregation:
    """The settings behind every headline and interval of one command (module docstring)."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = DEFAULT_LEVEL
    clustering: Clustering = field(default_factory=lambda: Clustering(None, ""))
    exclusion: str = EXCLUSION_RULE
    #: the integrity flags whose cells are left out (`--exclude-flagged`; () = none) and how many cells that is
    exclude_flags: tuple[str, ...] = ()
    n_flagged: int = 0
    #: the judge calibration records read once for the command (`calibration.CalibrationGate`)
    calibration: CalibrationGate = field(default_factory=CalibrationGate)

    @classmethod
    def resolve(
        cls,
        results: Sequence[Result],
        *,
        tasks: Any = None,
        dataset: str | None = None,
        revision: str | None = None,
        cluster: bool = True,
        resamples: int = DEFAULT_RESAMPLES,
        seed: int = DEFAULT_SEED,
        level: float = DEFAULT_LEVEL,
        exclude_flags: Sequence[str] = (),
        cache_dir: str | Path | None = None,
    ) -> Aggregation:
        """The settings for `results`, with the clusters from `tasks`, else `dataset`, else the local dataset the
        results name (`clusters.resolve_clustering`); none with `cluster=False`. `exclude_flags`: the integrity
        flags whose cells are left out (`leave_out_flagged`; the exclusion rule then says how many). The judge
        calibration records are read from `cache_dir` (default: the package cache, `default_cache_dir`)."""
        if resamples < 0:
            raise ValueError(f"resamples must be >= 0, got {resamples}")
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level}")
        clustering = (
            resolve_clustering(results, tasks=tasks, dataset=dataset, revision=revision, enabled=cluster)
            if results or not cluster
            else Clustering(None, "no results")
        )
        flags = tuple(dict.fromkeys(exclude_flags))
        n = leave_out_flagged(results, flags)[1]
        rule = flagged_rule(flags, n)
        return cls(
            resamples=resamples,
            seed=seed,
            level=level,
            clustering=clustering,
            exclusion=f"{EXCLUSION_RULE}; {rule}" if rule else EXCLUSION_RULE,
            exclude_flags=flags,
            n_flagged=n,
            calibration=CalibrationGate.read(
                Path(cache_dir) if cache_dir is not None else default_cache_dir()
            ),
        )

    def cells(self, results: Iterable[Result]) -> list[Result]:
        """`results` as the means count them: flagged ones left out (`leave_out_flagged`) when asked."""
        return leave_out_flagged(results, self.exclude_flags)[0]

    @property
    def clusters(self) -> dict[tuple[str, int], str] | None:
        """(family, task id) -> source cluster key, or None when every task is its own cluster."""
        return self.clustering.clusters

    def clustered_families(self, universe_tasks: dict[str, Sequence[int]]) -> bool:
        """True when some family of the universe has a cluster of 2+ tasks (the bootstrap draws clusters)."""
        return family_clusters(self.clusters, universe_tasks) is not None

    def units(self, universe_tasks: dict[str, Sequence[int]]) -> str:
        """What the bootstrap draws besides runs, as captions say it."""
        if self.clusters is None:
            return f"tasks (stratified by family; not clustered: {self.clustering.reason or 'no clusters'})"
        if not self.clustered_families(universe_tasks):
            return (
                "tasks (stratified by family; clustered by source material, but clustering changed nothing: "
                "within each family every task has a source of its own)"
            )
        keys = [(f, t) for f, ids in universe_tasks.items() for t in ids]
        return (
            f"{self.clustering.label(keys)}, resampled within families; each clustered family's replicates "
            "stretched so the interval's half width is the CR2 / Bell-McCaffrey t interval's"
        )

    def interval_text(self, universe_tasks: dict[str, Sequence[int]]) -> str:
        """The sentence every surface prints about the intervals."""
        if self.resamples == 0:
            return "no intervals (0 resamples)"
        return (
            f"[lo, hi] = {self.level:.0%} percentile bootstrap over runs and {self.units(universe_tasks)}, "
            f"{self.resamples} resamples, seed {self.seed}"
        )

    def to_dict(self, universe_tasks: dict[str, Sequence[int]]) -> dict[str, Any]:
        """The JSON block (`bootstrap`) of the leaderboard and the report: the published field names
        (`resamples`, `seed`, `level`, `clustering`) plus what they mean."""
        keys: Iterable[tuple[str, int]] = [(f, t) for f, ids in universe_tasks.items() for t in ids]
        return {
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
            "clustering": self.units(universe_tasks),
            "clustered": self.clustered_families(universe_tasks),
            "clusters": self.clustering.label(keys),
            "unclustered_reason": self.clustering.reason,
            "scheme": self.interval_text(universe_tasks),
            "exclusion": self.exclusion,
            "flagged_left_out": {"flags": list(self.exclude_flags), "cells": self.n_flagged},
        }
