"""A task that fails in any way while over its memory cap is reported as over the cap."""

from __future__ import annotations

from test_engine import FakeVerifier, _run, _task, fake  # noqa: F401  (the fixture)

from agenticvbench.scoring import memory_cap
from agenticvbench.scoring.engine import verify_run


def test_a_system_error_under_the_cap_is_the_caps_error(tmp_path, fake, monkeypatch):  # noqa: F811
    """A C extension whose allocation failed under the cap may raise `SystemError: error return without
    exception set` rather than `MemoryError`; the engine checked the cap only when the verifier returned, so the
    task read "verifier crashed: SystemError". With the cap's watchdog reporting the cap hit, any exception is
    the cap's error; a SystemError with the cap not hit is still a crash."""

    real_verify = FakeVerifier.verify

    def verify(self, task, submission, ctx):
        if task.task_id in (38, 39):
            if task.task_id == 38:
                memory_cap._ACTIVE["hit"] = True  # what the watchdog sets near the limit
            raise SystemError("error return without exception set")
        return real_verify(self, task, submission, ctx)

    monkeypatch.setattr(FakeVerifier, "verify", verify)
    monkeypatch.setenv("AVB_TASK_MEMORY_MB", "512")
    run = _run(tmp_path, {37: "good", 38: "good", 39: "good"})
    s = verify_run(run, tasks=[_task(37), _task(38), _task(39)], jobs=1)
    by = {r.task_id: r for r in s.results}
    assert by[38].status == "error" and "memory cap of 512 MiB" in by[38].reason, by[38].reason
    assert "SystemError" not in by[38].reason
    assert by[39].status == "error" and by[39].reason.startswith("verifier crashed: SystemError")
    assert by[37].status == "scored"
