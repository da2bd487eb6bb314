"""The test tree keeps unique file names.

pytest imports test files by their base name (the folders are not packages), so two `test_compare.py` in two
folders stop the whole suite at collection; this happened when two features landed at once.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_test_file_names_are_unique() -> None:
    """No two test modules share a base name anywhere under tests/."""
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert not [n for n, k in names.items() if k > 1]
