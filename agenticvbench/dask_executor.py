"""Score on a Dask cluster: `avb verify RUN... --executor dask --scheduler tcp://HOST:8786`.

Requirements on the cluster (the engine ships only small job descriptions, never media):

- **Shared filesystem.** Every worker must see the run directories at the same absolute paths the client
  sees, because workers read the submissions and write `RUN/avb-results/<task_id>.json` themselves (atomic
  writes, so a lost worker never leaves a torn file). The dataset must be reachable the same way: a local
  mirror on the shared filesystem, or the Hub with a shared `--cache-dir` (otherwise each worker downloads
  the media into its own cache).
- **Same result key.** Workers sign the results they write, and check the signature of a result before reusing
  it, with the key file the client resolved (`--key-file`, `$AVB_RESULT_KEY_FILE` or the client's package cache).
  Jobs carry only that file's path and the key's id, never the secret, so the file must be readable at the same
  path on every worker (shared filesystem). A worker that cannot read it, or reads another key, writes unsigned
  results with a warning; they are rescored by the next run (see `agenticvbench.signing`).
- **Same software.** Workers need the same `agenticvbench` version (and `verifiers` package) installed; jobs
  and results are pickled, and the result's provenance records the worker's library versions.
- **Memory allocator.** Dask's nanny starts workers with `MALLOC_TRIM_THRESHOLD_=65536`, which made glibc
  map and zero every decoded frame afresh (repair scoring 2.3x slower, mostly system time). Each job first
  restores glibc's reuse of frame-sized buffers (`agenticvbench.allocator`), so nothing needs configuring.
- **One thread per worker process** is recommended (`dask worker --nthreads 1 --nworkers N`): decoders and
  SSIM are CPU-bound and some release the GIL only partly. Verifiers that start their own processes (repair
  edit chunks) need non-daemonic workers: `dask worker --no-nanny` or the config
  `distributed.worker.daemon: false`.

Results stream back as each task finishes (`as_completed`). If a worker dies or a job cannot be run, that task
becomes an `error` result (not written to disk, so the next `avb verify` retries it) instead of aborting the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from agenticvbench.errors import ConfigError
from agenticvbench.results import Result, lost_result


class DaskExecutor:
    """Runs scoring jobs on a Dask cluster through `distributed.Client` (see the module docstring).

    `scheduler` is a scheduler address (`tcp://host:8786`), an existing `distributed.Client` (left open on
    `close()`), or None to start a private local cluster (closed on `close()`).
    """

    def __init__(self, scheduler: Any = None) -> None:
        from distributed import Client

        self._own = not isinstance(scheduler, Client)
        if isinstance(scheduler, Client):
            self.client = scheduler
        elif scheduler is None:
            self.client = Client(processes=True, threads_per_worker=1)
        else:
            try:
                self.client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None

    def map_unordered(self, fn: Callable[[Any], Result], jobs: list[Any]) -> Iterator[Result]:
        """Submit every job (`pure=False`: each is scored, never deduplicated) and yield results as they finish."""
        from distributed import as_completed

        if not jobs:
            return
        futures = self.client.map(_OnWorker(fn), jobs, pure=False)
        job_of = {fut.key: job for fut, job in zip(futures, jobs, strict=True)}
        done = 0
        try:
            for fut in as_completed(futures):
                try:
                    result = fut.result()
                except Exception as exc:  # a lost worker or a failed task must not abort the whole run
                    result = lost_result(job_of[fut.key], exc)
                finally:
                    fut.release()
                done += 1
                yield result
        finally:
            if done < len(futures):  # interrupted (Ctrl-C, consumer stopped): cancel what has not run yet
                self.client.cancel([f for f in futures if not f.done()])

    def close(self) -> None:
        """Close the client (and its local cluster) if this executor created it."""
        if self._own:
            cluster = getattr(self.client, "cluster", None)
            self.client.close()
            if cluster is not None:
                cluster.close()


class _OnWorker:
    """`fn` run on a Dask worker after restoring glibc's reuse of frame-sized buffers (see `allocator`: the
    nanny's `MALLOC_TRIM_THRESHOLD_` made repair scoring 2.3x slower). Picklable: workers import this module."""

    def __init__(self, fn: Callable[[Any], Result]) -> None:
        self.fn = fn

    def __call__(self, job: Any) -> Result:
        from agenticvbench.allocator import reuse_frame_buffers

        reuse_frame_buffers()
        return self.fn(job)
