"""Safe zip extraction for task materials: no path escapes, no symlinks, no zip bombs."""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from agenticvbench.errors import ArchiveError

MAX_TOTAL_BYTES = 8 * 1024**3
MAX_MEMBERS = 10_000
MAX_RATIO = 200.0


def _check_member(info: zipfile.ZipInfo, zip_path: Path) -> PurePosixPath:
    name = info.filename.replace("\\", "/")
    p = PurePosixPath(name)
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or p.is_absolute():
        raise ArchiveError(f"{zip_path}: member {info.filename!r} has an absolute path")
    if any(part == ".." for part in p.parts):
        raise ArchiveError(f"{zip_path}: member {info.filename!r} escapes the folder ('..')")
    if stat.S_ISLNK(info.external_attr >> 16):  # the Unix mode bits
        raise ArchiveError(f"{zip_path}: member {info.filename!r} is a symlink")
    return p


def extract_zip(zip_path: Path, dest: Path, *, max_total_bytes: int = MAX_TOTAL_BYTES) -> list[Path]:
    """Extract `zip_path` into `dest` after checking every member; returns the extracted files.

    The whole archive is vetted before anything is written, and extraction goes to a temporary sibling folder
    that is renamed into place, so a rejected or interrupted archive leaves nothing half-extracted.
    """
    zip_path, dest = Path(zip_path), Path(dest)
    if dest.is_dir():
        return sorted(p for p in dest.rglob("*") if p.is_file())
    try:
        zf = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ArchiveError(f"{zip_path}: not a readable zip ({exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ArchiveError(f"{zip_path}: {len(infos)} members (limit {MAX_MEMBERS})")
        total = sum(i.file_size for i in infos)
        packed = max(1, sum(i.compress_size for i in infos))
        if total > max_total_bytes or total / packed > MAX_RATIO:
            raise ArchiveError(
                f"{zip_path}: uncompressed size {total} bytes is absurd "
                f"(limit {max_total_bytes}, ratio {total / packed:.0f})"
            )
        members = [(_check_member(i, zip_path), i) for i in infos]
        files = {rel for rel, i in members if not i.is_dir()}
        for rel in files:
            if any(parent in files for parent in rel.parents):
                raise ArchiveError(
                    f"{zip_path}: member {rel.as_posix()!r} is inside a path that is also a file"
                )
        tmp = dest.with_name(dest.name + f".partial-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        written = 0
        try:
            for rel, info in members:
                if info.is_dir():
                    continue
                target = tmp.joinpath(*rel.parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as out:
                    while chunk := src.read(1 << 20):
                        written += len(chunk)
                        if written > max_total_bytes:
                            raise ArchiveError(
                                f"{zip_path}: uncompressed data exceeds {max_total_bytes} bytes"
                            )
                        out.write(chunk)
            try:
                os.replace(tmp, dest)
            except OSError:
                if not dest.is_dir():
                    raise
                shutil.rmtree(tmp, ignore_errors=True)  # another process extracted it first: use theirs
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError) as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ArchiveError(f"{zip_path}: extraction failed ({exc})") from None
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return sorted(p for p in dest.rglob("*") if p.is_file())
