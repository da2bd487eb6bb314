"""Helpers the cost tests share: the paper's Table 7 typed in by hand, and a usage `tokens` block."""

from __future__ import annotations

from typing import Any

#: The paper's Table 7, typed in again here (USD per 1M tokens: input, cache read, cache write, output), so the
#: tests price trials independently of the shipped table.
TABLE_7 = {
    "claude-opus-4-7": (5.0, 0.5, 6.25, 25.0),
    "claude-sonnet-4-6": (3.0, 0.3, 3.75, 15.0),
    "gpt-5.5": (5.0, 0.5, 5.0, 30.0),
    "gpt-5.4-mini": (0.75, 0.075, 0.75, 4.5),
    "gemini-3.1-pro": (2.0, 0.2, 0.0, 12.0),
    "gemini-3-flash": (0.5, 0.05, 0.0, 3.0),
    "qwen3-vl-235b-instruct": (0.2, 0.2, 0.2, 0.88),
}


def tokens(i: int = 0, cr: int = 0, cw: int = 0, o: int = 0) -> dict[str, Any]:
    """A usage entry's `tokens` block."""
    return {
        "input_tokens": i,
        "cache_read_tokens": cr,
        "cache_write_tokens": cw,
        "output_tokens": o,
        "cost_usd": None,
    }
