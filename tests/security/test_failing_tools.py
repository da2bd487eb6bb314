"""Tools that fail open: an ffmpeg that is killed or missing gives an `error`, never a score, and a result is
never reused across a change of the decoding toolchain."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from adversarial import by_id

from agenticvbench.media import ffmpeg as ffmpeg_mod
from agenticvbench.media import toolchain


def _use_ffmpeg(monkeypatch, exe: str) -> None:
    monkeypatch.setenv("IMAGEIO_FFMPEG_EXE", exe)
    ffmpeg_mod.ffmpeg_exe.cache_clear()
    toolchain._binary.cache_clear()


@pytest.fixture(autouse=True)
def _restore_ffmpeg():
    yield
    ffmpeg_mod.ffmpeg_exe.cache_clear()
    toolchain._binary.cache_clear()


def _script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.slow
def test_killed_ffmpeg_is_an_error_not_a_clean_recap(hostile_run, score_run, tmp_path, monkeypatch):
    """Regression: an ffmpeg that exits 137 (killed) printed no black run, so a recap with a black gap went from
    0.857 to 1.0 with rc 0; now the task is an `error` naming the tool and nothing is reused."""
    run = hostile_run("partial")
    real = ffmpeg_mod.ffmpeg_exe()
    _use_ffmpeg(
        monkeypatch,
        _script(tmp_path / "ffmpeg", f'case "$*" in *-version*) exec "{real}" "$@";; esac\nexit 137'),
    )
    r = by_id(score_run(run.root, [1]))[1]
    assert r.status == "error" and r.headline_score == 0.0
    assert "ffmpeg failed (exit 137, killed by signal 9)" in r.reason
    _use_ffmpeg(monkeypatch, real)
    again = by_id(score_run(run.root, [1]))[1]
    assert not again.resumed and again.status == "scored" and again.headline_score < 1.0


def test_missing_ffmpeg_binary_is_an_error(hostile_run, score_run, tmp_path, monkeypatch):
    """Regression: a missing ffmpeg binary gave `scored` (every filter check simply failed) instead of `error`."""
    run = hostile_run()
    _use_ffmpeg(monkeypatch, str(tmp_path / "no-such-ffmpeg"))
    r = by_id(score_run(run.root, [1]))[1]
    assert r.status == "error" and "ffmpeg" in r.reason


def test_fingerprint_changes_with_the_ffmpeg_binary(hostile_run, score_run, tmp_path, monkeypatch):
    """Regression: results were reused after ffmpeg was changed because the fingerprint left the toolchain out.
    The same sequencing result is reused with the same ffmpeg and rescored with another build."""
    run = hostile_run()
    first = by_id(score_run(run.root, [38]))[38]
    assert by_id(score_run(run.root, [38]))[38].resumed
    other = tmp_path / "ffmpeg-copy"
    other.write_bytes(Path(ffmpeg_mod.ffmpeg_exe()).read_bytes()[: 1 << 20] + b"another build")
    other.chmod(0o755)
    _use_ffmpeg(monkeypatch, str(other))
    again = by_id(score_run(run.root, [38]))[38]
    assert not again.resumed and again.fingerprint != first.fingerprint
    assert again.headline_score == first.headline_score


def test_cached_recap_measurements_do_not_outlive_their_ffmpeg(hostile_run, score_run, tmp_path, monkeypatch):
    """Regression: the recap measurement cache keyed its files with a toolchain hash computed once per process, so
    after a first scoring with a working ffmpeg, a missing ffmpeg still got `scored` from the stored facts."""
    run = hostile_run()
    assert by_id(score_run(run.root, [1]))[1].status == "scored"  # fills the measurement cache
    _use_ffmpeg(monkeypatch, str(tmp_path / "no-such-ffmpeg"))
    r = by_id(score_run(run.root, [1], force=True))[1]
    assert r.status == "error" and "ffmpeg" in r.reason
