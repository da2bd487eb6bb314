"""The published leaderboard: the package's own board (`report.leaderboard.build_leaderboard`) over run folders,
under settings a card records, and the digest of its numbers.

`BoardSettings` is everything the numbers depend on besides the results: the bootstrap (resamples, seed, level),
the task universe ({family: ids}) and the source clusters ("family/id" -> key, or none with the reason). Publish
resolves them once from the dataset (as `avb leaderboard --dataset` does); a pull rebuilds the same
`analysis.settings.Aggregation` from the card, so the board it computes is the one `avb leaderboard --dataset`
prints on the pulled runs.

The digest is the SHA-256 of a canonical JSON (keys sorted, no whitespace, ASCII) of the board's numbers:
`{"format": 1, "rows": [{"harness", "model", "runs", "families": {family: [mean, lo, hi]}, "macro": [mean, lo,
hi], "micro": [mean, lo, hi]}]}`, rows sorted by (harness, model), every number rounded to 9 decimals (None stays
null). `numbers_from_json` reads the same numbers from `avb leaderboard --format json`, so any tool can
recompute it: `avb leaderboard RUNS --format json --out board.json`, then
`python -m agenticvbench.hub.board board.json` (or the JSON on stdin).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenticvbench.analysis.aggregate import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED
from agenticvbench.analysis.clusters import Clustering
from agenticvbench.analysis.settings import Aggregation
from agenticvbench.analysis.task_universe import task_universe
from agenticvbench.errors import SubmissionError
from agenticvbench.report.leaderboard import Leaderboard, build_leaderboard
from agenticvbench.report.loading import load_available
from agenticvbench.results.model import Result
from agenticvbench.results.signing import ResultKey

DIGEST_FORMAT = 1
DECIMALS = 9


@dataclass(frozen=True, kw_only=True)
class BoardSettings:
    """What the published numbers depend on besides the results (module docstring)."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = DEFAULT_LEVEL
    universe: dict[str, list[int]]
    clusters: dict[str, str] | None = None  # "family/id" -> source cluster key
    unclustered_reason: str = ""

    def aggregation(self) -> Aggregation:
        """The `Aggregation` every number of the board is computed with."""
        clusters = None
        if self.clusters is not None:
            clusters = {(k.split("/")[0], int(k.split("/")[1])): v for k, v in self.clusters.items()}
        return Aggregation(
            resamples=self.resamples,
            seed=self.seed,
            level=self.level,
            clustering=Clustering(clusters, "" if clusters is not None else self.unclustered_reason),
        )

    def to_dict(self) -> dict[str, Any]:
        """The card's `aggregation` block."""
        return {
            "resamples": self.resamples,
            "seed": self.seed,
            "level": self.level,
            "universe": {f: list(ids) for f, ids in self.universe.items()},
            "clusters": dict(sorted(self.clusters.items())) if self.clusters is not None else None,
            "unclustered_reason": self.unclustered_reason,
        }

    @classmethod
    def from_dict(cls, data: Any) -> BoardSettings:
        """Read the card's `aggregation` block strictly (a card is hostile): ValueError naming the bad field."""
        if not isinstance(data, Mapping):
            raise ValueError("aggregation is not a mapping")
        resamples, seed, level = data.get("resamples"), data.get("seed"), data.get("level")
        if not isinstance(resamples, int) or isinstance(resamples, bool) or not 0 <= resamples <= 100_000:
            raise ValueError("aggregation.resamples is not an integer in [0, 100000]")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError("aggregation.seed is not an integer")
        if not isinstance(level, (int, float)) or isinstance(level, bool) or not 0 < level < 1:
            raise ValueError("aggregation.level is not a number in (0, 1)")
        universe = data.get("universe")
        if not isinstance(universe, Mapping) or not all(
            isinstance(f, str) and isinstance(ids, list) and all(_task_id(i) for i in ids)
            for f, ids in universe.items()
        ):
            raise ValueError("aggregation.universe is not {family: [task ids]}")
        clusters = data.get("clusters")
        if clusters is not None and not (
            isinstance(clusters, Mapping)
            and all(_cluster_key(k) and isinstance(v, str) for k, v in clusters.items())
        ):
            raise ValueError("aggregation.clusters is not {'family/id': key}")
        reason = data.get("unclustered_reason", "")
        return cls(
            resamples=resamples,
            seed=seed,
            level=float(level),
            universe={f: [int(i) for i in ids] for f, ids in universe.items()},
            clusters=dict(clusters) if clusters is not None else None,
            unclustered_reason=reason if isinstance(reason, str) else "",
        )


def _task_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1_000_000


def _cluster_key(key: Any) -> bool:
    if not isinstance(key, str) or key.count("/") != 1:
        return False
    family, tid = key.split("/")
    return bool(family) and tid.isascii() and tid.isdigit() and len(tid) <= 6


def resolve_settings(
    results: Sequence[Result], *, tasks: Any = None, resamples: int, seed: int, cluster: bool = True
) -> BoardSettings:
    """The settings `avb leaderboard --dataset` would use for `results`: the universe and the clusters from
    `tasks` (Task objects; None: the tasks with a result, clusters from the local dataset the results name)."""
    agg = Aggregation.resolve(results, tasks=tasks, cluster=cluster, resamples=resamples, seed=seed)
    universe = task_universe(results, tasks=tasks)
    found = agg.clustering
    return BoardSettings(
        resamples=agg.resamples,
        seed=agg.seed,
        level=agg.level,
        universe={f: list(ids) for f, ids in universe.tasks.items()},
        clusters={f"{f}/{t}": k for (f, t), k in found.clusters.items()}
        if found.clusters is not None
        else None,
        unclustered_reason=found.reason,
    )


def compute_board(
    run_dirs: Sequence[str | Path], settings: BoardSettings, key: ResultKey | None = None
) -> Leaderboard:
    """The board of the run folders under `settings` (results read by `report.loading.load_available`, the
    reader of `avb leaderboard`); a folder without results raises `SubmissionError`."""
    results, skipped = load_available(list(run_dirs), key)
    if skipped:
        raise SubmissionError(skipped[0])
    return build_leaderboard(
        results,
        tasks=settings.universe,
        dataset_label="the card's universe",
        aggregation=settings.aggregation(),
        key=key,
    )


def _num(x: Any) -> float | None:
    if x is None:
        return None
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"a board number is not finite ({value})")
    return round(value, DECIMALS) + 0.0  # -0.0 -> 0.0


def board_numbers(board: Leaderboard) -> dict[str, Any]:
    """The numbers the digest covers, from a `Leaderboard` (module docstring)."""
    doc = json.loads(board.to_json())
    return numbers_from_json(doc)


def numbers_from_json(doc: Any) -> dict[str, Any]:
    """The numbers the digest covers, from the JSON of `avb leaderboard --format json` (or `Leaderboard.to_json`)."""
    rows = []
    for row in doc["rows"]:
        fams = {
            f: [_num(v["mean"]), _num(v["ci_low"]), _num(v["ci_high"])]
            for f, v in sorted(row["families"].items())
        }
        rows.append(
            {
                "harness": str(row["harness"]),
                "model": str(row["model"]),
                "runs": len(row["runs"]),
                "families": fams,
                "macro": [_num(row["macro"]), *(_num(x) for x in row["macro_ci"])],
                "micro": [_num(row["micro"]), *(_num(x) for x in row["micro_ci"])],
            }
        )
    rows.sort(key=lambda r: (r["harness"], r["model"]))
    return {"format": DIGEST_FORMAT, "rows": rows}


def digest(numbers: Mapping[str, Any]) -> str:
    """`sha256:<hex>` of the canonical JSON of `numbers`."""
    text = json.dumps(numbers, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def board_digest(board: Leaderboard) -> str:
    """The digest of a board's numbers."""
    return digest(board_numbers(board))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the digest of the `avb leaderboard --format json` in the file named (or read from stdin)."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args:
        doc = json.loads(Path(args[0]).read_text(encoding="utf-8"))
    else:
        doc = json.load(sys.stdin)
    print(digest(numbers_from_json(doc)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
