"""`avb score sequencing`: placeholder until the sequencing verifier lands."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add `score sequencing` (not yet implemented)."""
