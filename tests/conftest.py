"""Session-wide fixtures: a hermetic environment, an isolated package cache, the demo benchmark (built once), a
loopback Hub serving it."""

from __future__ import annotations

import atexit
import io
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: Variables of the caller's environment that change what the package or its libraries do (offline mode, Hub
#: endpoint and cache, judge endpoint and key, this package's own settings). They are removed before anything is
#: imported, because huggingface_hub reads its settings at import time; the suite must give the same answers on an
#: offline cluster with HF_HUB_OFFLINE=1 as on a laptop.
_SCRUBBED_PREFIXES = ("HF_", "HUGGINGFACE_", "OPENAI_", "AVB_")
#: The suite's own opt-in switches, which the package never reads: they are kept (scrubbing them would make the
#: documented opt-in runs, such as the full-size repair test, skip silently).
TEST_SWITCHES = frozenset(
    {"AVB_REPAIR_HD_MEDIA", "AVB_HARBOR_VENV", "AVB_PYTHON312", "AVB_UPDATE_DOC_IMAGES"}
)


def _hermetic_environment() -> None:
    for name in [n for n in os.environ if n.startswith(_SCRUBBED_PREFIXES) and n not in TEST_SWITCHES]:
        del os.environ[name]
    hf_home = tempfile.mkdtemp(prefix="avb-tests-hf-home-")
    atexit.register(shutil.rmtree, hf_home, True)
    os.environ["HF_HOME"] = hf_home  # never the user's Hub cache
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"


_hermetic_environment()

import huggingface_hub  # noqa: E402,F401  (read its env-derived constants now, before any test patches HF_* vars)
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
import pytest  # noqa: E402
from adversarial import AdversarialRun  # noqa: E402
from hub_server import MAIN_SHA, OLD_SHA, OLD_TASK_IDS, HubServer, commit_from_dir  # noqa: E402

from agenticvbench.analysis.run_summary import RunSummary  # noqa: E402
from agenticvbench.dataset.loader import DEFAULT_DATASET, PARQUET_PATH  # noqa: E402
from agenticvbench.demo import DemoBenchmark, build_demo  # noqa: E402
from agenticvbench.scoring.engine import verify_run  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def _isolated_package_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point `AVB_CACHE` at a session temp dir so no test writes into the user's ~/.cache/agenticvbench."""
    mp = pytest.MonkeyPatch()
    cache = tmp_path_factory.mktemp("avb-cache")
    mp.setenv("AVB_CACHE", str(cache))
    yield cache
    mp.undo()


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoBenchmark:
    """The demo benchmark, built once per session (mirror + perfect/partial/broken runs). Treat as read-only."""
    return build_demo(tmp_path_factory.mktemp("demo") / "build")


def old_parquet_bytes(mirror: Path) -> bytes:
    """The parquet of the older Hub commit: fewer rows and different prompts than `main`."""
    table = pq.read_table(mirror / PARQUET_PATH)
    table = table.filter(pc.is_in(table["task_id"], value_set=pa.array(OLD_TASK_IDS, pa.int64())))
    prompts = pa.array(["[old] " + p for p in table["prompt"].to_pylist()], pa.string())
    table = table.set_column(table.schema.get_field_index("prompt"), table.schema.field("prompt"), prompts)
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


@pytest.fixture(scope="session")
def scored_demo_runs(demo: DemoBenchmark, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The demo's partial and perfect runs, copied and scored once per session (every family)."""
    import shutil

    from agenticvbench.runs.submission import RESULTS_DIRNAME

    root = tmp_path_factory.mktemp("scored-demo")
    out = {}
    for name in ("partial", "perfect"):
        out[name] = root / name
        shutil.copytree(demo.runs[name], out[name], ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    verify_run(list(out.values()), dataset=demo.mirror, jobs=1, cache_dir=root / "cache")
    return out


@pytest.fixture(scope="session")
def hub_server(demo: DemoBenchmark) -> Iterator[HubServer]:
    """A loopback Hub serving the demo mirror as `DEFAULT_DATASET`: `main` (= MAIN_SHA) and OLD_SHA."""
    server = HubServer()
    main = commit_from_dir(MAIN_SHA, demo.mirror)
    old = commit_from_dir(OLD_SHA, demo.mirror, {PARQUET_PATH: old_parquet_bytes(demo.mirror)})
    server.add_repo(DEFAULT_DATASET, [main, old], {"main": MAIN_SHA})
    server.start()
    yield server
    server.stop()


@pytest.fixture
def hostile_run(demo: DemoBenchmark, tmp_path: Path) -> Callable[..., AdversarialRun]:
    """A fresh copy of a demo run (`perfect` by default) to tamper with (tests/adversarial.py)."""

    def make(name: str = "perfect") -> AdversarialRun:
        return AdversarialRun.from_run(demo.runs[name], tmp_path / f"run-{name}")

    return make


@pytest.fixture
def score_run(demo: DemoBenchmark) -> Callable[..., RunSummary]:
    """Score selected tasks of a run against the demo mirror, serially."""

    def run(path: Path, ids: list[int], **kw: Any) -> RunSummary:
        return verify_run(path, dataset=demo.mirror, task_ids=ids, jobs=1, **kw)

    return run


from result_fixtures import make_run, mk, scored_demo  # noqa: E402,F401 - fixtures for the analysis, cost and report tests

#: Folders whose every test runs again as a user without root in CI (`-m privileges`): the hostile-input suite,
#: because root reads mode-000 files, owns every folder and may mount, so its containment checks must also hold
#: for the users who actually run the scorer.
PRIVILEGES_FOLDERS = ("security",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests of `PRIVILEGES_FOLDERS` with `privileges` (other such tests carry the mark themselves)."""
    tests = Path(__file__).resolve().parent
    for item in items:
        rel = Path(str(item.fspath)).resolve().relative_to(tests)
        if rel.parts and rel.parts[0] in PRIVILEGES_FOLDERS:
            item.add_marker(pytest.mark.privileges)
