"""A `.eval` in a run folder is a zip archive from the agent's side: it is checked before inspect_ai reads it,
and every way of making it hostile (a bomb by declared size, a bomb by a lying header, too many entries, a
truncated archive, not a zip, a symlink, a corrupt member) is a one-line note, never a traceback or an
unbounded inflate."""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from pathlib import Path

import pytest

from agenticvbench.runs.jobdir import JobDir
from agenticvbench.trajectory.audit import UNREADABLE, audit_run
from agenticvbench.trajectory.context import AuditContext
from agenticvbench.trajectory.formats import inspect_zip
from agenticvbench.trajectory.formats.inspect_zip import UnsafeArchive, entries, read_member
from agenticvbench.trajectory.locate import read_log

MEMBER = "samples/agenticvbench/recap-001_epoch_1.json"


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _lying(data: bytes, declared: int) -> bytes:
    """An archive whose one member declares `declared` bytes (and the CRC-32 of that prefix) but inflates to
    all of `data`: Python's zipfile would stop at the declared size; inspect_ai's reader would not."""
    raw = bytearray(_zip({MEMBER: data}))
    crc = zlib.crc32(data[:declared])
    struct.pack_into("<L", raw, 14, crc)  # the local header
    struct.pack_into("<L", raw, 22, declared)
    cd = raw.find(b"PK\x01\x02")
    struct.pack_into("<L", raw, cd + 16, crc)  # the central directory
    struct.pack_into("<L", raw, cd + 24, declared)
    return bytes(raw)


def _note(tmp_path: Path, data: bytes, name: str = "run.eval") -> str:
    """The one note of reading `data` as task 1's `agent/<name>` (it must not be read)."""
    log = tmp_path / "1" / "agent" / name
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(data)
    with JobDir(tmp_path) as job:
        traj = read_log(job, ("1", "agent", name), 1)
    assert traj.format == "unknown" and traj.steps == [] and len(traj.notes) == 1, traj.notes
    assert "\n" not in traj.notes[0] and traj.notes[0].startswith(f"1/agent/{name}: ")
    return traj.notes[0]


def test_declared_sizes_over_the_caps_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A member declaring more than the member cap, or members adding up past the total cap (a classic bomb of
    zeros), are refused from the directory alone."""
    monkeypatch.setattr(inspect_zip, "MAX_MEMBER_BYTES", 1 << 20)
    assert "over the cap of 1048576" in _note(tmp_path / "a", _zip({MEMBER: bytes(2 << 20)}))
    monkeypatch.setattr(inspect_zip, "MAX_UNPACKED_BYTES", 1 << 20)
    bomb = _zip({f"samples/{i}_epoch_1.json": bytes(600 << 10) for i in range(2)})
    assert "a zip bomb" in _note(tmp_path / "b", bomb)


def test_a_member_inflating_past_its_declared_size_is_refused(tmp_path: Path) -> None:
    """A header that declares 1 KB (with a matching CRC-32 of that prefix) over 8 MB of deflated zeros is
    stopped at the declared size, not inflated whole, and the log is a note."""
    (tmp_path / "bomb.eval").write_bytes(_lying(bytes(8 << 20), 1000))
    with open(tmp_path / "bomb.eval", "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        [info] = entries(fh, size)
        with pytest.raises(UnsafeArchive, match="inflates past its declared 1000 bytes: a zip bomb"):
            read_member(fh, size, info)
    pytest.importorskip("inspect_ai", reason="read as a log once inspect_ai is there to read it")
    assert "a zip bomb" in _note(tmp_path, (tmp_path / "bomb.eval").read_bytes())


def test_too_many_entries_are_refused_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry count and directory size come from the end record, checked before zipfile parses the
    directory (a directory of millions of entries would cost gigabytes of memory)."""
    monkeypatch.setattr(inspect_zip, "MAX_ENTRIES", 5)
    many = _zip({f"_journal/{i}.json": b"{}" for i in range(10)})
    assert "10 entries" in _note(tmp_path / "a", many)
    monkeypatch.setattr(inspect_zip, "MAX_DIRECTORY_BYTES", 100)
    monkeypatch.setattr(inspect_zip, "MAX_ENTRIES", 50)
    assert "byte directory, over the cap" in _note(tmp_path / "b", many)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"not a zip at all", "not a zip archive"),
        (b"PK\x03\x04" + bytes(100), "not a zip archive"),
        (b'{"version": 2}', "not a zip archive"),
    ],
)
def test_what_is_not_a_zip_is_a_note(tmp_path: Path, data: bytes, why: str) -> None:
    """A file named .eval that is not an archive (text, a local header alone, JSON) is one note."""
    assert why in _note(tmp_path, data)


def test_a_truncated_archive_is_a_note(tmp_path: Path) -> None:
    """An archive cut in half (a copy interrupted) has no end record: one note; with the members' data cut out
    and the directory kept, the members lie outside the archive: one note."""
    whole = _zip({MEMBER: os.urandom(4000), "header.json": b"{}"})
    assert "not a zip archive" in _note(tmp_path / "a", whole[: len(whole) // 2])
    cd = whole.find(b"PK\x01\x02")
    cut = whole[:100] + whole[cd:]  # the directory kept, the members' data gone
    assert "lies outside the archive" in _note(tmp_path / "b", cut)


def test_a_corrupt_member_is_a_note(tmp_path: Path) -> None:
    """A member whose bytes do not match its CRC-32 is refused before inspect_ai sees it."""
    raw = bytearray(_zip({MEMBER: b'{"id": 1}' * 50}))
    cd = raw.find(b"PK\x01\x02")
    struct.pack_into("<L", raw, cd + 16, 12345)
    fh = io.BytesIO(raw)
    with pytest.raises(UnsafeArchive, match="is corrupt"):
        read_member(fh, len(raw), entries(fh, len(raw))[0])
    pytest.importorskip("inspect_ai", reason="read as a log once inspect_ai is there to read it")
    assert "is corrupt" in _note(tmp_path, bytes(raw))


def test_a_symlinked_eval_is_not_followed(tmp_path: Path) -> None:
    """A .eval that is a symlink (to another run's log) is refused as every log is: the task is unreadable."""
    target = tmp_path / "elsewhere.eval"
    target.write_bytes(_zip({MEMBER: b"{}"}))
    run = tmp_path / "run"
    (run / "1").mkdir(parents=True)
    os.symlink(target, run / "1" / "run.eval")
    ctx = AuditContext(repos=frozenset(), inputs={1: ()}, hosts={}, references=frozenset())
    [task] = audit_run(run, ctx).tasks
    assert task.status == UNREADABLE and task.logs == [] and "symlink" in task.notes[0]


def test_a_member_is_read_as_it_was(tmp_path: Path) -> None:
    """What passes the checks is the member's bytes, deflated or stored alike."""
    data = b'{"id": "x", "epoch": 1}' * 100
    for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", method) as zf:
            zf.writestr(MEMBER, data)
            zf.writestr("header.json", b"{}")
        infos = entries(buf, len(buf.getvalue()))
        assert [read_member(buf, len(buf.getvalue()), i) for i in infos] == [data, b"{}"]
