"""The one atomic writer: whole files only, no temp files left, readable permissions."""

from __future__ import annotations

import json
import os
import stat

import pytest

from agenticvbench.fsutil import (
    TooLargeError,
    atomic_write_json,
    atomic_write_text,
    file_kind,
    file_sha256,
    json_values,
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


def _tokens(value: object) -> int:
    """What `json_values` counts, from the parsed value: each container, and each element after its first."""
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        return 0
    return 1 + max(0, len(value) - 1) + sum(_tokens(v) for v in value)


def test_json_values_counts_containers_and_elements_outside_strings():
    """`json_values` bounds what a document becomes before it is parsed: `{`, `[` and `,` outside strings. Past
    the limit the count is exact, so brackets and commas inside strings (escaped quotes and backslashes too)
    neither refuse an honest document nor hide a hostile one."""
    doc = rb'{"a": "x,\",y{[", "b": [1, 2, {"c": "\\"}], "d": "[{,\\\\", "e": [[], {}]}'
    assert json_values(doc, 0) == _tokens(json.loads(doc)) == 12
    assert json_values(doc, 1000) <= 1000
    long = b'["' + b",{[" * 2_000_000 + b'", {}]'  # six million brackets, all inside one string
    assert json_values(long, 10) == _tokens(json.loads(long)) == 3
    edge = b'["' + b"," * ((1 << 20) - 2) + b'", [], [' + b"{}," * 5 + b"{}]]"  # a string across two windows
    assert json_values(edge, 0) == _tokens(json.loads(edge)) == 16


def test_parse_json_bounded_refuses_too_many_values_before_parsing():
    """A few bytes per value become some 150 of Python objects: 13 million `{}` in 39 MB took 2.1 GB. With
    `max_values` the document is refused by count, in one line, before `json.loads` builds anything."""
    bomb = b"[" + b",".join([b"{}"] * 500_000) + b"]"
    with pytest.raises(ValueError, match=r"x.json: 1000000 JSON values, over the cap of 999999"):
        parse_json_bounded(bomb, "x.json", max_values=999_999)
    assert len(parse_json_bounded(bomb, "x.json", max_values=1_000_000)) == 500_000
