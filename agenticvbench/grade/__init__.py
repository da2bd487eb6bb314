"""Grading recap with people: a local web page, a verdict store, and agreement statistics.

- `store`: append-only JSONL verdicts per grader, keyed by (task, item, SHA-256 of the video); majority vote;
- `session`: which submissions and items a session shows (hostile-input checks on `final.mp4`);
- `server`: the token-protected standard-library HTTP server and the static page (`page.html`);
- `agreement`: raw agreement, Cohen's kappa with a bootstrap interval, Fleiss' kappa, confusion matrices.
"""

from __future__ import annotations

from agenticvbench.grade.server import GradingApp, make_server, url_of
from agenticvbench.grade.session import build_submissions
from agenticvbench.grade.store import VerdictStore, check_grader

__all__ = ["GradingApp", "VerdictStore", "build_submissions", "check_grader", "make_server", "url_of"]
