"""`trajectory.model.parse_time`: the logs' times (ISO 8601 or epoch numbers as text) as seconds, for the
viewer's elapsed time and deltas; anything else is None, never an error."""

from __future__ import annotations

import pytest

from agenticvbench.trajectory.model import MAX_ARG_CHARS, MAX_SCAN_CHARS, as_text, make_step, parse_time


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


def test_a_long_call_is_kept_whole_for_the_rules_and_cut_for_display() -> None:
    """Arguments past `MAX_ARG_CHARS` are shown cut but read whole by the rules (up to `MAX_SCAN_CHARS`), the
    paths named at the end are found, and the JSON form has the shown text only."""
    script = "x = 1\n" * 1500 + "open('/m/data/t.parquet')"
    step = make_step(0, role="agent", tool="Write", arguments={"file_path": "/w/a.py", "content": script})
    assert len(step.arguments) == MAX_ARG_CHARS and step.text.endswith("/m/data/t.parquet')")
    assert "/m/data/t.parquet" in step.paths and "text" not in step.to_dict()
    huge = make_step(0, role="agent", tool="Bash", arguments="y" * (MAX_SCAN_CHARS + 10))
    assert len(huge.text) == MAX_SCAN_CHARS


def test_a_list_key_is_not_repeated_per_item() -> None:
    """`{"k": [a, b]}` is `k=a b`: a long key over many items cannot make the text longer than the log."""
    assert as_text({"command": ["bash", "-lc", "ls"]}) == "command=bash -lc ls"
    assert len(as_text({"k" * 500: [1] * 100}, MAX_SCAN_CHARS)) < 800
