"""How tables show infrastructure failures: a count per row and the list to rerun (see `aggregate.infra_failures`).

A row's infrastructure failures are its cells whose Harbor trial failed in the sandbox, not the agent: excluded
from the means (`--infra-policy exclude`, status `excluded`) or counted 0 (the default `zero` policy).
"""

from __future__ import annotations

from collections.abc import Iterable

from agenticvbench.analysis.aggregate import GroupHeadline


def infra_text(g: GroupHeadline) -> str:
    """The infra column: infrastructure failures in the row, and how many of them are left out (excluded)."""
    n = len(g.infra)
    return f"{n} ({g.n_excluded} excl.)" if g.n_excluded else str(n)


def infra_lines(groups: Iterable[GroupHeadline]) -> list[str]:
    """Footer lines listing every row's infrastructure failures for rerun (excluded, or counted 0)."""
    out = []
    for g in groups:
        if g.infra:
            out.append(
                f"Infrastructure failures to rerun, {g.harness}/{g.model} ({len(g.infra)}, "
                f"{g.n_excluded} excluded from the means): " + "; ".join(g.infra)
            )
    return out
