"""The one atomic writer: whole files only, no temp files left, readable permissions."""

from __future__ import annotations

import os
import stat

import pytest

from agenticvbench.fsutil import atomic_write_json, atomic_write_text, file_sha256


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
