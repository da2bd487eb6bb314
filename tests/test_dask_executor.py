"""Scoring on a real Dask cluster (LocalCluster, worker processes) gives exactly the local engine's results."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

distributed = pytest.importorskip("distributed")  # a declared dependency: this never skips in a correct install

from agenticvbench.dask_executor import DaskExecutor  # noqa: E402
from agenticvbench.demo import build_demo  # noqa: E402
from agenticvbench.engine import verify_run  # noqa: E402
from agenticvbench.loader import load_tasks  # noqa: E402
from agenticvbench.results import iter_results  # noqa: E402

FAMILIES = ("sequencing", "assembly")  # the fast families; the executor path is the same for all four


@pytest.fixture(scope="module")
def local(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """The demo (the shared `demo` fixture when there is one, else a private build) scored by the local engine."""
    try:
        demo = request.getfixturevalue("demo")
    except pytest.FixtureLookupError:
        demo = build_demo(tmp_path_factory.mktemp("dask-demo") / "demo")
    tasks = [t for t in load_tasks(dataset=demo.mirror) if t.family in FAMILIES]
    runs = list(demo.runs.values())
    out = tmp_path_factory.mktemp("dask-local")
    summary = verify_run(runs, dataset=demo.mirror, tasks=tasks, jobs=1, out=out, force=True)
    return SimpleNamespace(mirror=Path(demo.mirror), runs=runs, tasks=tasks, results=summary.results)


@pytest.fixture(scope="module")
def cluster():
    """One worker process, one thread: a real scheduler/worker split (pickling, separate interpreter)."""
    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=40) as c:
        yield c


def _key(r):
    return (r.run["path"], r.task_id)


def test_dask_scores_equal_local_scores(cluster, local, tmp_path) -> None:
    """`verify_run(executor="dask", scheduler=ADDRESS)` writes, on the worker, the same per-task results as local."""
    out = tmp_path / "dask-results"
    summary = verify_run(local.runs, dataset=local.mirror, tasks=local.tasks, executor="dask",
                         scheduler=cluster.scheduler_address, out=out, force=True)
    remote = {_key(r): r for r in summary.results}
    baseline = {_key(r): r for r in local.results}
    assert remote.keys() == baseline.keys() and len(remote) == len(local.runs) * len(local.tasks) == 3 * 4
    for k, r in remote.items():
        loc = baseline[k]
        assert (r.status, r.final_score, r.adjusted_final_score, r.headline_score, r.reason) == \
               (loc.status, loc.final_score, loc.adjusted_final_score, loc.headline_score, loc.reason), k
        assert r.components == loc.components and r.fingerprint == loc.fingerprint
    assert not any(r.resumed for r in summary.results), "force=True must rescore on the workers"
    written = iter_results(sorted(out.iterdir()))
    assert {_key(r) for r in written} == set(baseline)
    assert {r.status for r in summary.results} >= {"scored", "malformed"}


def test_worker_results_are_signed_with_the_clients_key_and_reused(cluster, local, tmp_path) -> None:
    """Workers sign with the key file the client resolved (the job carries its path and id, never the secret):
    the client can check every signature, and a second run reuses every result on the workers."""
    from agenticvbench.results import scan_results
    from agenticvbench.signing import load_key

    out = tmp_path / "signed"
    runs = local.runs[:1]
    first = verify_run(runs, dataset=local.mirror, tasks=local.tasks, executor="dask",
                       scheduler=cluster.scheduler_address, out=out)
    key, _ = load_key(create=False)
    scan = scan_results(out, key)
    assert len(scan.results) == len(local.tasks) and {r.signature_status for r in scan.results} == {"valid"}
    again = verify_run(runs, dataset=local.mirror, tasks=local.tasks, executor="dask",
                       scheduler=cluster.scheduler_address, out=out)
    assert again.n_resumed == len(first.results) == len(local.tasks)


def test_failed_task_becomes_error_result_and_external_client_stays_open(cluster) -> None:
    """A Dask task that fails outside score_job yields an `error` result for that job; the run goes on."""
    client = distributed.Client(cluster)
    try:
        ex = DaskExecutor(client)
        job = SimpleNamespace(task=SimpleNamespace(task_id=37, family="sequencing"), run_info={"path": "/r"})
        # `int(job)` raises TypeError on the worker: a stand-in for any failure outside score_job
        (res,) = list(ex.map_unordered(int, [job]))
        assert (res.task_id, res.family, res.status, res.run) == (37, "sequencing", "error", {"path": "/r"})
        assert res.reason.startswith("worker failed: TypeError")
        assert list(ex.map_unordered(int, [])) == []
        ex.close()
        assert client.status == "running", "an executor must not close a client it did not create"
    finally:
        client.close()


def test_jobs_run_with_frame_buffers_reused() -> None:
    """Why: the nanny's MALLOC_TRIM_THRESHOLD_ made each decoded frame a fresh mmap on Dask workers (a repair
    task took 2.3x as long, mostly system time). Jobs submitted through the executor run after the fix. (A fresh
    worker: the fix lasts for the worker process, so one that already ran a job is tuned.)"""
    from agenticvbench.dask_executor import _OnWorker
    from tests.test_allocator import FRAME, mmapped_while_holding_a_frame

    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=40) as fresh, distributed.Client(fresh) as client:
        raw = client.submit(mmapped_while_holding_a_frame, pure=False).result()
        tuned = client.submit(_OnWorker(lambda _job: mmapped_while_holding_a_frame()), None, pure=False).result()
    assert all(b >= FRAME for b in raw) and tuned[-1] < FRAME
