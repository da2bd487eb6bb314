"""Fixtures for the grading tests: a copy of the demo's recap submissions and a running grading server."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from loopback import serving

from agenticvbench.dataset.loader import load_tasks
from agenticvbench.grade import GradingApp, VerdictStore, build_submissions, make_server, url_of


@dataclass
class Setup:
    """A private run (demo recap tasks 1 and 2), the demo mirror and a cache folder for verdicts."""

    run: Path
    mirror: Path
    cache: Path


@pytest.fixture
def setup(demo, tmp_path: Path) -> Setup:
    """The demo's perfect recap outputs in a fresh run folder (no results), and an empty cache."""
    run = tmp_path / "run"
    run.mkdir()
    for name in ("1", "2", "run.json"):
        src = demo.runs["perfect"] / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, run / name)
    return Setup(run, demo.mirror, tmp_path / "cache")


@dataclass
class Served:
    """A running grading server."""

    app: GradingApp
    url: str
    base: str


def serve(setup: Setup, grader: str = "alice", blind: bool = False) -> Iterator[Served]:
    """Start a grading server on the setup's run (stopped when the generator is closed)."""
    tasks = load_tasks("recap", dataset=setup.mirror)
    subs, _, seed = build_submissions(
        [setup.run], tasks, blind=blind, seed=7 if blind else None, materials=True
    )
    app = GradingApp(
        submissions=subs, store=VerdictStore(setup.cache / "grades"), grader=grader, blind=blind, seed=seed
    )
    httpd = make_server(app)
    url = url_of(httpd, app)
    with serving(httpd):
        yield Served(app, url, url.split("/?")[0])


@pytest.fixture
def served(setup: Setup) -> Iterator[Served]:
    """A grading server for grader 'alice' on the setup's run."""
    yield from serve(setup)


@pytest.fixture
def blind_served(setup: Setup) -> Iterator[Served]:
    """A blind grading server (shuffle seed 7) for grader 'alice' on the setup's run."""
    yield from serve(setup, blind=True)
