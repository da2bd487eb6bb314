"""Tool failures are charged to the task that had them, even when tasks share a process's threads.

The engine makes a task an `error` when ffmpeg failed during it, even if the verifier turned the `ToolError`
into a failed check. It used to compare the length of one process-wide list before and after each task, so with
Dask running several tasks at once on one worker's threads, one task's failure made the other an `error` too.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agenticvbench.errors import ToolError
from agenticvbench.media import ffmpeg as ffmpeg_mod
from agenticvbench.media.ffmpeg import collect_tool_failures, run_ffmpeg


@pytest.fixture
def broken_ffmpeg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every `run_ffmpeg` fails as with a missing binary (a `ToolError`, recorded as a tool failure)."""
    monkeypatch.setattr(ffmpeg_mod, "ffmpeg_exe", lambda: str(tmp_path / "no-such-ffmpeg"))


def _swallowed_ffmpeg_failure() -> None:
    """What a verifier that turns exceptions into failed checks does."""
    try:
        run_ffmpeg(["-version"])
    except ToolError:
        pass


def test_concurrent_tasks_see_only_their_own_tool_failures(broken_ffmpeg: None) -> None:
    """Two tasks on two threads, open at the same time: only the one whose ffmpeg failed sees a failure.

    With the old process-wide list, the clean task's before/after window contained the other task's failure."""
    both_open = threading.Barrier(2, timeout=10)
    failed = threading.Barrier(2, timeout=10)
    seen: dict[str, list[str]] = {}

    def task(name: str, fails: bool) -> None:
        with collect_tool_failures() as failures:
            both_open.wait()
            if fails:
                _swallowed_ffmpeg_failure()
            failed.wait()  # the clean task is still open after the other one's failure
        seen[name] = list(failures)

    threads = [threading.Thread(target=task, args=a) for a in (("failing", True), ("clean", False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert len(seen["failing"]) == 1 and "ffmpeg could not be run" in seen["failing"][0]
    assert seen["clean"] == []


def test_a_verifiers_own_threads_report_to_its_task_when_run_in_its_context(broken_ffmpeg: None) -> None:
    """A verifier's pool thread does not inherit the task's collector: submitted through
    `contextvars.copy_context().run` (as repair's audio pass and recap's media facts do) its failure reaches the
    task; submitted plainly it would be lost, which is why those call sites copy the context."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        with collect_tool_failures() as carried:
            pool.submit(contextvars.copy_context().run, _swallowed_ffmpeg_failure).result()
        with collect_tool_failures() as plain:
            pool.submit(_swallowed_ffmpeg_failure).result()
    assert len(carried) == 1
    assert plain == []


def test_a_failure_outside_any_task_is_logged_and_kept_nowhere(
    broken_ffmpeg: None, caplog: pytest.LogCaptureFixture
) -> None:
    """Without a collector (no task scoring) a failure is only logged; a later task does not inherit it."""
    with caplog.at_level(logging.WARNING, logger=ffmpeg_mod.__name__):
        _swallowed_ffmpeg_failure()
    assert "tool failure outside any task" in caplog.text
    with collect_tool_failures() as failures:
        pass
    assert failures == []


def test_nested_collectors_both_see_a_failure(broken_ffmpeg: None) -> None:
    """A collector opened inside another (a helper scoped to one check) must not hide the failure from the task."""
    with collect_tool_failures() as task, collect_tool_failures() as check:
        _swallowed_ffmpeg_failure()
    assert len(task) == 1 and task == check
