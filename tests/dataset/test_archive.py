"""Safe zip extraction: good archives extract; unsafe ones raise ArchiveError and leave nothing behind."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from agenticvbench.dataset.archive import extract_zip
from agenticvbench.errors import ArchiveError


def _zip(
    path: Path, members: list[tuple[str | zipfile.ZipInfo, bytes]], *, compression: int = zipfile.ZIP_STORED
) -> Path:
    with zipfile.ZipFile(path, "w", compression=compression) as zf:
        for name, data in members:
            zf.writestr(name, data)
    return path


def _symlink_info(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _leftovers(parent: Path, zip_name: str) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name != zip_name)


def test_good_zip_extracts_every_member(tmp_path: Path) -> None:
    z = _zip(
        tmp_path / "good.zip", [("1.mp4", b"one"), ("2.mp4", b"two"), ("sub/", b""), ("sub/3.mp4", b"3")]
    )
    dest = tmp_path / "out" / "37"
    files = extract_zip(z, dest)
    assert [p.relative_to(dest).as_posix() for p in files] == ["1.mp4", "2.mp4", "sub/3.mp4"]
    assert (dest / "2.mp4").read_bytes() == b"two"
    assert not list((tmp_path / "out").glob("*.partial-*"))


def test_existing_extraction_is_reused(tmp_path: Path) -> None:
    """A finished extraction is a cache: the zip is not opened again (here it no longer exists)."""
    z = _zip(tmp_path / "a.zip", [("1.mp4", b"x")])
    dest = tmp_path / "out"
    first = extract_zip(z, dest)
    z.unlink()
    assert extract_zip(z, dest) == first


@pytest.mark.parametrize("name", ["../x.mp4", "a/../../x.mp4", "..\\x.mp4"])
def test_path_escape_is_refused(tmp_path: Path, name: str) -> None:
    z = _zip(tmp_path / "slip.zip", [("ok.mp4", b"fine"), (name, b"evil")])
    dest = tmp_path / "box" / "out"
    with pytest.raises(ArchiveError, match="escapes"):
        extract_zip(z, dest)
    assert (
        not dest.exists() and not (tmp_path / "box" / "x.mp4").exists() and not (tmp_path / "x.mp4").exists()
    )
    assert not (tmp_path / "box").exists() or _leftovers(tmp_path / "box", "") == []


@pytest.mark.parametrize("name", ["/tmp/abs.mp4", "C:/abs.mp4", "\\abs.mp4"])
def test_absolute_member_is_refused(tmp_path: Path, name: str) -> None:
    z = _zip(tmp_path / "abs.zip", [("ok.mp4", b"fine"), (name, b"evil")])
    with pytest.raises(ArchiveError, match="absolute"):
        extract_zip(z, tmp_path / "out")
    assert _leftovers(tmp_path, "abs.zip") == []


def test_symlink_member_is_refused(tmp_path: Path) -> None:
    z = _zip(tmp_path / "link.zip", [("ok.mp4", b"fine"), (_symlink_info("passwd"), b"/etc/passwd")])
    with pytest.raises(ArchiveError, match="symlink"):
        extract_zip(z, tmp_path / "out")
    assert _leftovers(tmp_path, "link.zip") == []


def test_absurd_compression_ratio_is_refused(tmp_path: Path) -> None:
    """A zip bomb: 20 MB of zeros deflate to ~20 KB (ratio ~1000, the limit is 200)."""
    z = _zip(
        tmp_path / "bomb.zip", [("zeros.bin", bytes(20 * 1024 * 1024))], compression=zipfile.ZIP_DEFLATED
    )
    with pytest.raises(ArchiveError, match="absurd"):
        extract_zip(z, tmp_path / "out")
    assert _leftovers(tmp_path, "bomb.zip") == []


def test_total_size_limit_is_enforced(tmp_path: Path) -> None:
    z = _zip(tmp_path / "big.zip", [("a.bin", b"x" * 4000), ("b.bin", b"y" * 4000)])
    with pytest.raises(ArchiveError, match="absurd"):
        extract_zip(z, tmp_path / "out", max_total_bytes=5000)
    assert _leftovers(tmp_path, "big.zip") == []


def test_unreadable_zip_is_an_archive_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ArchiveError, match="not a readable zip"):
        extract_zip(bad, tmp_path / "out")
    with pytest.raises(ArchiveError, match="not a readable zip"):
        extract_zip(tmp_path / "missing.zip", tmp_path / "out2")
    assert _leftovers(tmp_path, "bad.zip") == []
