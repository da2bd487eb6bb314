"""The atomic writer on a full disk: the temporary file is removed and the error names the file."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from agenticvbench import fsutil
from agenticvbench.fsutil import atomic_write_json, atomic_write_text


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _failing_write(monkeypatch: pytest.MonkeyPatch, err: int) -> None:
    """Every file object the writer opens refuses `write` with `err` (what a full disk or quota does)."""
    real = os.fdopen

    def fdopen(fd, *args, **kwargs):
        fh = real(fd, *args, **kwargs)

        def write(s):
            raise OSError(err, os.strerror(err))

        fh.write = write
        return fh

    monkeypatch.setattr(fsutil.os, "fdopen", fdopen)


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EDQUOT, errno.EIO])
@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch, err, where):
    """A full disk (ENOSPC), a quota (EDQUOT) or an I/O error while the result is written, flushed or moved in
    place: the temporary file is removed, the old file is untouched, and the error keeps its errno but now names
    the file, on one line (it said only "No space left on device", not which file was lost)."""
    p = tmp_path / "37.json"
    atomic_write_json(p, {"old": True})
    if where == "write":
        _failing_write(monkeypatch, err)
    else:

        def refuse(*args, **kwargs):
            raise OSError(err, os.strerror(err))

        monkeypatch.setattr(fsutil.os, where, refuse)
    with pytest.raises(OSError) as info:
        atomic_write_json(p, {"new": "x" * 100_000})
    monkeypatch.undo()
    assert info.value.errno == err
    message = str(info.value)
    assert str(p) in message and os.strerror(err) in message and "\n" not in message
    assert sorted(f.name for f in tmp_path.iterdir()) == ["37.json"]  # no .tmp, no partial file
    assert p.read_text() == '{\n  "old": true\n}\n'
    atomic_write_json(p, {"new": 1})  # space freed: the same write completes
    assert sorted(f.name for f in tmp_path.iterdir()) == ["37.json"] and '"new": 1' in p.read_text()


def test_a_failure_before_the_file_object_exists_closes_the_descriptor(tmp_path, monkeypatch):
    """`fchmod` ran on the bare descriptor before the file object owned it: a failure there removed the temporary
    file but leaked the descriptor (one per failed result on a long run)."""

    def refuse(*args, **kwargs):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(fsutil.os, "fchmod", refuse)
    before = _open_fds()
    for _ in range(5):
        with pytest.raises(OSError, match="37.txt"):
            atomic_write_text(tmp_path / "37.txt", "hi")
    monkeypatch.undo()
    assert _open_fds() == before
    assert list(Path(tmp_path).iterdir()) == []
