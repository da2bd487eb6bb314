"""The one atomic writer: whole files only, no temp files left, readable permissions."""

from __future__ import annotations

import os
import stat

import pytest

from agenticvbench.fsutil import (
    TooLargeError,
    atomic_write_json,
    atomic_write_text,
    file_kind,
    file_sha256,
    open_regular,
    parse_json_bounded,
    read_capped,
)


def test_atomic_write_replaces_whole_file_and_leaves_no_temp(tmp_path):
    p = tmp_path / "a" / "r.json"
    atomic_write_json(p, {"x": 1})
    atomic_write_json(p, {"x": 2})
    assert p.read_text().strip().endswith("}") and '"x": 2' in p.read_text()
    assert [q.name for q in p.parent.iterdir()] == ["r.json"]


def test_written_files_are_not_private(tmp_path):
    """Regression: mkstemp's 0600 leaked into results, so other users/cluster workers could not read them."""
    p = tmp_path / "r.txt"
    old = os.umask(0o022)
    try:
        atomic_write_text(p, "hi")
    finally:
        os.umask(old)
    mode = stat.S_IMODE(p.stat().st_mode)
    assert mode & stat.S_IRGRP and mode & stat.S_IROTH


def test_nan_is_refused_and_nothing_is_written(tmp_path):
    """Results must be valid JSON: NaN raises before the target is touched."""
    p = tmp_path / "r.json"
    with pytest.raises(ValueError):
        atomic_write_json(p, {"x": float("nan")})
    assert not p.exists() and list(tmp_path.iterdir()) == []


def test_file_sha256(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"abc")
    assert file_sha256(p) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_open_regular_refuses_a_fifo_without_blocking(tmp_path):
    """A plain open() of a FIFO blocks until a writer appears; submissions may plant one anywhere."""
    p = tmp_path / "fifo"
    os.mkfifo(p)
    with pytest.raises(OSError, match="FIFO"), open_regular(p):
        pass


def test_file_kind_names_what_a_path_is(tmp_path):
    """Rejections name what a path is instead of calling it 'not found'."""
    assert file_kind(os.stat(tmp_path).st_mode) == "directory"
    assert file_kind(os.stat("/dev/null").st_mode) == "character device"


def test_read_capped_and_hash_stop_at_the_cap(tmp_path):
    """Bounded reads: a file one byte over the cap is refused before it is read or hashed."""
    p = tmp_path / "f"
    p.write_bytes(b"x" * 11)
    assert read_capped(p, 11) == b"x" * 11
    with pytest.raises(TooLargeError):
        read_capped(p, 10)
    with pytest.raises(TooLargeError):
        file_sha256(p, max_bytes=10)


def test_parse_json_bounded_turns_parser_crashes_into_reasons():
    """Deep nesting (RecursionError) and 5000-digit integers (ValueError) become one-line reasons naming the file."""
    with pytest.raises(ValueError, match="x.json: nested too deeply"):
        parse_json_bounded(b"[" * 100_000 + b"]" * 100_000, "x.json")
    with pytest.raises(ValueError, match="x.json: nested deeper than 64"):
        parse_json_bounded(b"[" * 100 + b"]" * 100, "x.json")
    with pytest.raises(ValueError, match="x.json: invalid JSON"):
        parse_json_bounded(b"9" * 5000, "x.json")
    with pytest.raises(ValueError, match="x.json: not UTF-8"):
        parse_json_bounded(b"\xff", "x.json")
