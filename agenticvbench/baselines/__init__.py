"""Trivial-strategy baselines: what the official rules pay for outputs that do no work, per family.

`baselines()` writes each strategy's outputs into run folders and scores them with the normal engine;
`BaselineTable.floor()` is the best trivial strategy per family, shown on every leaderboard and report.
"""

from agenticvbench.baselines.run import baselines, default_root
from agenticvbench.baselines.strategies import STRATEGIES, Strategy, get_strategy
from agenticvbench.baselines.table import BaselineTable, Floor, FloorEntry

__all__ = [
    "STRATEGIES",
    "BaselineTable",
    "Floor",
    "FloorEntry",
    "Strategy",
    "baselines",
    "default_root",
    "get_strategy",
]
