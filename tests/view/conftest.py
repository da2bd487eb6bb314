"""Fixtures for the `avb view` tests: the demo's three runs, a view model over them and a running server."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from view_fixtures import Served, serve, write_traj_runs

from agenticvbench.view import Thumbnailer, ViewApp, build_model


@pytest.fixture(scope="session")
def view_demo(scored_demo_runs) -> dict[str, Path]:
    """The demo's partial and perfect runs, scored once per session (`scored_demo_runs`)."""
    return scored_demo_runs


@pytest.fixture(scope="session")
def marked_up_demo(demo, view_demo, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The scored runs, the partial run's repair report rewritten with markup as a hostile agent would, and that
    task scored again (the viewer shows only the bytes scoring checked, so the markup must be scored)."""
    from agenticvbench.scoring.engine import verify_run

    root = tmp_path_factory.mktemp("marked-up")
    out = {}
    for name in ("partial", "perfect"):
        out[name] = root / name
        shutil.copytree(view_demo[name], out[name])
    (out["partial"] / "65" / "output" / "report.md").write_text(
        "# report\n- start: 4.5\n- end: 6\n<script>alert('x')</script><img src=x onerror=alert(1)>\n"
    )
    verify_run(out["partial"], dataset=demo.mirror, task_ids=[65], jobs=1, cache_dir=root / "cache")
    return out


@pytest.fixture
def runs(marked_up_demo, tmp_path: Path) -> list[Path]:
    """Fresh copies of the marked-up partial run and the perfect run, for tests that change them."""
    out = []
    for name in ("partial", "perfect"):
        dst = tmp_path / name
        shutil.copytree(marked_up_demo[name], dst)
        out.append(dst)
    return out


@pytest.fixture
def served(demo, runs, tmp_path: Path) -> Iterator[Served]:
    """A view server on the two runs (local: the repair source is offered)."""
    # the default 2000 resamples, as the guide's screenshots show
    model = build_model(runs, dataset=demo.mirror)
    yield from serve(ViewApp(model=model, thumbs=Thumbnailer(tmp_path / "cache", progress=False)))


@pytest.fixture(scope="session")
def traj_runs(demo, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Copies of the partial and perfect runs with agent logs, scored (`view_fixtures.write_traj_runs`)."""
    return write_traj_runs(demo, tmp_path_factory.mktemp("traj-view"))
