"""`trajectory.model.parse_time`: the logs' times (ISO 8601 or epoch numbers as text) as seconds, for the
viewer's elapsed time and deltas; anything else is None, never an error."""

from __future__ import annotations

import pytest

from agenticvbench.trajectory.model import parse_time


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2026-01-01T00:00:01Z", 1767225601.0),
        ("2026-01-01T00:00:01.500+00:00", 1767225601.5),
        ("1767225600000", 1767225600.0),  # epoch milliseconds (OpenCode)
        ("1767225600", 1767225600.0),
        ("2026-01-01T00:00:60Z", None),
        ("yesterday", None),
        ("9" * 40, None),
        (None, None),
        (17, None),
    ],
)
def test_parse_time(text, want) -> None:
    """Each spelling a reader keeps, and the hostile ones."""
    assert parse_time(text) == want
