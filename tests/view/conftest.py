"""Fixtures for the `avb view` tests: the demo's three runs, a view model over them and a running server."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from view_fixtures import Served, serve

from agenticvbench.view import Thumbnailer, ViewApp, build_model


@pytest.fixture(scope="session")
def view_demo(scored_demo_runs) -> dict[str, Path]:
    """The demo's partial and perfect runs, scored once per session (`scored_demo_runs`)."""
    return scored_demo_runs


@pytest.fixture
def runs(view_demo, tmp_path: Path) -> list[Path]:
    """Copies of the scored partial and perfect runs; the partial run's repair report is rewritten with markup,
    as a hostile agent would (the view shows the file as it is now, the result stays as scored)."""
    out = []
    for name in ("partial", "perfect"):
        dst = tmp_path / name
        shutil.copytree(view_demo[name], dst)
        out.append(dst)
    (out[0] / "65" / "output" / "report.md").write_text(
        "# report\n- start: 4.5\n- end: 6\n<script>alert('x')</script><img src=x onerror=alert(1)>\n"
    )
    return out


@pytest.fixture
def served(demo, runs, tmp_path: Path) -> Iterator[Served]:
    """A view server on the two runs (local: the repair source is offered)."""
    model = build_model(runs, dataset=demo.mirror, resamples=200)
    yield from serve(ViewApp(model=model, thumbs=Thumbnailer(tmp_path / "cache", progress=False)))
