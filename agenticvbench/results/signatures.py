"""Which results in a report carry a signature the reader's result key can check (see `agenticvbench.results.signing`).

A result's `signature_status` is set when it is read (`scan_results(paths, key)`): `valid` (signed with this
key), `unsigned`, `other_key`, `bad` or `unchecked` (no key to check with). Reports count them per run and
leaderboards per row; nothing here changes a score: a result without a valid signature still counts as it is,
but `avb verify` will rescore it instead of reusing it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agenticvbench.results.model import INVALID_STATUS, SIGNATURE_STATUSES, Result
from agenticvbench.results.signing import ResultKey, load_key
from agenticvbench.sanitize import one_line


def signature_counts(results: Iterable[Result]) -> dict[str, int]:
    """{status: count} over results read from files (`SIGNATURE_STATUSES` order, zeros dropped), plus
    `results`: how many were counted. Stand-ins for invalid files are not results and are left out."""
    counts = Counter(dict.fromkeys(SIGNATURE_STATUSES, 0))
    counts.update(r.signature_status or "unsigned" for r in results if r.status != INVALID_STATUS)
    return {"results": sum(counts.values()), **{k: v for k, v in counts.items() if v}}


def signed_text(counts: dict[str, Any]) -> str:
    """'12/14': results whose signature verifies under the reader's key / results."""
    return f"{counts.get('valid', 0)}/{counts.get('results', 0)}"


def key_label(key: ResultKey | None) -> str:
    """Which key checked the signatures, for captions and report sections."""
    if key is None:
        return "no result key (none was found, so no signature could be checked)"
    return f"the result key {key.path} (id {key.key_id})"


def describe(counts: dict[str, Any]) -> str:
    """'12 of 14 signed with this key; 2 unsigned' (the statuses present, in `SIGNATURE_STATUSES` order)."""
    labels = {
        "valid": "signed with this key",
        "unsigned": "unsigned",
        "other_key": "signed with another key",
        "bad": "with a signature that does not match",
        "unchecked": "signed but not checked (no key)",
    }
    parts = [f"{counts[s]} {labels[s]}" for s in SIGNATURE_STATUSES if counts.get(s)]
    return f"{counts.get('results', 0)} result(s): " + ("; ".join(parts) if parts else "none")


def reader_key(key_file: str | Path | None = None) -> tuple[ResultKey | None, list[str]]:
    """The key every reader of results checks signatures with (`avb report`, `leaderboard`, `compare`, `power`,
    `view`, and the Python API's `leaderboard_from_runs` / `load_results`): as `avb verify` finds it (`key_file`,
    else `$AVB_RESULT_KEY_FILE`, else the package cache's `result-key`), never created."""
    return load_key(key_file, create=False)


def untrusted_runs(results: Iterable[Result]) -> dict[str, dict[str, int]]:
    """run path -> {signature status: count} of the results whose signature does not verify under the
    reader's key (unsigned, another key, a bad MAC, unchecked); runs whose every result is valid are absent."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        if r.status != INVALID_STATUS and r.signature_status != "valid":
            out[r.identity.path or "?"][r.signature_status or "unsigned"] += 1
    return {run: dict(counts) for run, counts in out.items()}


def trust_lines(results: Iterable[Result], key: ResultKey | None) -> list[str]:
    """One line per run whose results are not all signed with the reader's key, naming the run and the counts
    (the warning `avb compare` and `avb power` print, and what `--require-signed` refuses)."""
    lines = []
    for run, counts in sorted(untrusted_runs(results).items()):
        what = "; ".join(f"{n} {s}" for s, n in counts.items())
        lines.append(
            f"{one_line(run)}: {sum(counts.values())} result(s) not signed with {key_label(key)} ({what}): "
            "they may not come from `avb verify` with this key"
        )
    return lines
