"""The loader over local data: a mirror directory, a parquet path, URL forms, filters and errors, speed."""

from __future__ import annotations

import json
import shutil
import time
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from agenticvbench.dataset.loader import PARQUET_PATH, DatasetSource, load_tasks, repo_relative
from agenticvbench.dataset.tasks import FAMILY_ID_RANGES, RepairTask, SequencingTask
from agenticvbench.demo import DemoBenchmark
from agenticvbench.demo.build import write_parquet
from agenticvbench.demo.common import HUB_RESOLVE
from agenticvbench.errors import DatasetError, TaskError


def test_mirror_directory(demo: DemoBenchmark) -> None:
    tasks = load_tasks(dataset=demo.mirror)
    assert [t.task_id for t in tasks] == [1, 2, 37, 38, 65, 66, 67, 83, 84]
    src = tasks[0].source
    assert src is not None and src.kind == "mirror" and src.resolved_revision == "local"
    assert src.provenance()["dataset"] == str(demo.mirror)


def test_parquet_path_resolves_media_against_the_repo_root(demo: DemoBenchmark, tmp_path: Path) -> None:
    tasks = load_tasks(dataset=demo.mirror / PARQUET_PATH, task_ids=[65])
    (t,) = tasks
    assert isinstance(t, RepairTask) and t.source is not None and t.source.kind == "parquet"
    assert t.materials() == [demo.mirror / "repair/materials/65/broken.mp4"]
    loose = tmp_path / "tasks.parquet"  # a parquet outside any data/ folder: media are looked up beside it
    shutil.copyfile(demo.mirror / PARQUET_PATH, loose)
    src, path = DatasetSource.open(loose)
    assert src.root == tmp_path and path == loose


def test_full_resolve_urls_and_relative_paths_fetch_the_same_files(demo: DemoBenchmark) -> None:
    by_id = {t.task_id: t for t in load_tasks(dataset=demo.mirror)}
    assert by_id[1].reference_file_urls[0].startswith(HUB_RESOLVE)
    assert not by_id[2].reference_file_urls[0].startswith("http")
    assert by_id[1].materials() == [demo.mirror / "recap/materials/1/film.mp4"]
    assert by_id[2].materials() == [demo.mirror / "recap/materials/2/film.mp4"]
    assert by_id[65].verifier_references() == [demo.mirror / "repair/sources/demo1_source.mp4"]
    assert by_id[66].verifier_references() == [demo.mirror / "repair/sources/demo2_source.mp4"]
    assert repo_relative(HUB_RESOLVE + "a/b.zip") == "a/b.zip"
    assert repo_relative("https://hf.co/datasets/o/n/resolve/0123abc/a/b.zip") == "a/b.zip"
    assert repo_relative("/a/b.zip") == "a/b.zip"
    with pytest.raises(DatasetError, match=r"'\.\.'"):
        repo_relative("recap/../../etc/passwd")


def test_zip_materials_from_a_mirror_are_extracted(demo: DemoBenchmark, tmp_path: Path) -> None:
    (t,) = load_tasks(dataset=demo.mirror, task_ids=[38], cache_dir=tmp_path)
    assert isinstance(t, SequencingTask)
    clips = t.materials()
    assert sorted(p.name for p in clips) == [f"{i}.mp4" for i in range(1, 6)]
    assert all(p.is_relative_to(tmp_path / "materials") for p in clips)


def test_family_and_id_filters(demo: DemoBenchmark) -> None:
    assert [t.task_id for t in load_tasks("repair", dataset=demo.mirror)] == [65, 66, 67]
    assert [t.task_id for t in load_tasks(dataset=demo.mirror, task_ids=[84, 1])] == [1, 84]
    assert [t.task_id for t in load_tasks("assembly", dataset=demo.mirror, task_ids=[83])] == [83]


def test_unknown_family_and_unknown_ids(demo: DemoBenchmark) -> None:
    with pytest.raises(DatasetError, match="unknown family 'editing'"):
        load_tasks("editing", dataset=demo.mirror)
    with pytest.raises(TaskError) as info:
        load_tasks(dataset=demo.mirror, task_ids=[37, 99])
    assert info.value.task_id == 99 and info.value.field == "task_id"
    with pytest.raises(TaskError) as info:  # 37 exists, but not in the family asked for
        load_tasks("repair", dataset=demo.mirror, task_ids=[37])
    assert info.value.task_id == 37 and "family repair" in str(info.value)


def test_missing_and_unreadable_datasets(demo: DemoBenchmark, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such file"):
        load_tasks(dataset=tmp_path / "nowhere" / "deeper")
    with pytest.raises(DatasetError, match="no data/train"):
        load_tasks(dataset=tmp_path)
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1 definitely not parquet")
    with pytest.raises(DatasetError, match="not a readable parquet"):
        load_tasks(dataset=bad)


def test_missing_media_in_a_mirror(demo: DemoBenchmark, tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    (mirror / "data").mkdir(parents=True)
    shutil.copyfile(demo.mirror / PARQUET_PATH, mirror / PARQUET_PATH)
    (t,) = load_tasks(dataset=mirror, task_ids=[1])
    with pytest.raises(DatasetError, match="recap/materials/1/film.mp4 not found"):
        t.materials()


def test_malformed_row_in_a_mirror_names_task_and_field(demo: DemoBenchmark, tmp_path: Path) -> None:
    rows = pq.read_table(demo.mirror / PARQUET_PATH).to_pylist()
    rows[2]["rubric_json"] = json.dumps({"correct_order": ["1", "2"], "n_slots": 5})
    write_parquet(tmp_path / PARQUET_PATH, rows)
    with pytest.raises(TaskError, match=r"task 37: field 'rubric_json.n_slots'"):
        load_tasks(dataset=tmp_path)
    assert [t.task_id for t in load_tasks("repair", dataset=tmp_path)] == [65, 66, 67]


def _hundred_rows(demo: DemoBenchmark) -> list[dict]:
    """100 real-shaped rows: the demo rows recycled over the real id ranges, recap rubrics padded to 28 items."""
    base = {r["task_family"]: r for r in pq.read_table(demo.mirror / PARQUET_PATH).to_pylist()}
    rows = []
    for family, ids in FAMILY_ID_RANGES.items():
        for tid in ids:
            r = dict(base[family], task_id=tid)
            if family == "recap":
                items = json.loads(r["rubric_json"])
                r["rubric_json"] = json.dumps(
                    [dict(items[k % len(items)], id=f"item_{k}") for k in range(28)]
                )
            rows.append(r)
    return rows


def test_a_100_row_mirror_loads_quickly(demo: DemoBenchmark, tmp_path: Path) -> None:
    write_parquet(tmp_path / PARQUET_PATH, _hundred_rows(demo))
    load_tasks(dataset=tmp_path)  # warm imports
    t0 = time.perf_counter()
    tasks = load_tasks(dataset=tmp_path)
    elapsed = time.perf_counter() - t0
    print(f"load_tasks over a 100-row mirror: {elapsed * 1000:.1f} ms")
    assert len(tasks) == 100 and [t.task_id for t in tasks] == list(range(1, 101))
    assert len(tasks[0].items) == 28
    assert elapsed < 10.0  # the target is < 1 s; this bound only catches pathologies on a busy machine


def test_two_mirrors_do_not_share_extracted_materials(demo, tmp_path):
    """Extracted zips are cached per zip file, so a second mirror's 37.zip is not served stale clips."""
    other = tmp_path / "other"
    shutil.copytree(demo.mirror, other)
    with zipfile.ZipFile(other / "sequencing/materials/37.zip", "w") as zf:
        for i in range(1, 7):
            zf.writestr(f"{i}.mp4", b"other")
    cache = tmp_path / "cache"
    a = load_tasks(dataset=demo.mirror, task_ids=[37], cache_dir=cache)[0].materials()
    b = load_tasks(dataset=other, task_ids=[37], cache_dir=cache)[0].materials()
    assert b[0].read_bytes() == b"other" and a[0].read_bytes() != b"other"
