"""`avb verify` on a full disk: the task whose result cannot be written is an `error` naming the file, no
temporary file is left, the run goes on, and a rerun after space is freed completes and reuses what was
written."""

from __future__ import annotations

import errno
import os

from test_engine import _run, _task, fake  # noqa: F401  (the fixture)

from agenticvbench import fsutil
from agenticvbench.results.model import read_result
from agenticvbench.scoring.engine import verify_run


def test_a_result_that_cannot_be_written_is_an_error_and_the_rerun_completes(tmp_path, fake, monkeypatch):  # noqa: F811
    """Task 38's result hits ENOSPC at `fsync`: its result is an `error` whose one-line reason names the file
    and says it was not saved (it named only the folder), tasks 37 and 39 are scored and written, and no
    temporary file is left. Once space is freed the rerun scores 38 alone and reuses 37 and 39."""
    run = _run(tmp_path, {37: "good", 38: "meh", 39: "good"})
    tasks = [_task(37), _task(38), _task(39)]
    real_fsync = os.fsync

    def fsync(fd):
        if "/.38.json." in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_fsync(fd)

    monkeypatch.setattr(fsutil.os, "fsync", fsync)
    s = verify_run(run, tasks=tasks, jobs=1)
    monkeypatch.setattr(fsutil.os, "fsync", real_fsync)
    by = {r.task_id: r for r in s.results}
    results = run / "avb-results"
    assert by[38].status == "error" and s.n_errors == 1
    assert str(results / "38.json") in by[38].reason and "No space left on device" in by[38].reason
    assert "next run scores the task again" in by[38].reason and "\n" not in by[38].reason
    assert by[37].status == by[39].status == "scored"
    names = sorted(f.name for f in results.iterdir())
    assert "38.json" not in names and not [n for n in names if n.endswith(".tmp")]
    assert {"37.json", "39.json"} <= set(names)

    fake.calls.clear()
    s2 = verify_run(run, tasks=tasks, jobs=1)
    assert fake.calls == [38] and s2.n_resumed == 2 and s2.n_errors == 0
    assert read_result(results / "38.json").status == "scored"
    assert not [f for f in results.iterdir() if f.name.endswith(".tmp")]
