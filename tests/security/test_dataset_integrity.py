"""Dataset integrity: a broken task table is a one-line DatasetError/TaskError naming task and field."""

from __future__ import annotations

import json

import pytest

from agenticvbench.dataset.loader import PARQUET_PATH, load_tasks
from agenticvbench.dataset.tasks import task_from_row
from agenticvbench.errors import DatasetError, TaskError


def _row(tid=37, rubric=None):
    return {
        "task_id": tid,
        "task_family": "sequencing",
        "prompt": "p",
        "reference_file_urls": [],
        "verifier_reference_urls": None,
        "rubric_json": rubric if rubric is not None else json.dumps({"correct_order": ["1"], "n_slots": 1}),
    }


def test_duplicate_task_rows_are_refused(demo, tmp_path):
    """Two rows for task 37 were accepted and which answer key won varied between reruns."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    mirror = tmp_path / "mirror"
    shutil.copytree(demo.mirror, mirror)
    table = pq.read_table(mirror / PARQUET_PATH)
    pq.write_table(pa.concat_tables([table, table.slice(2, 1)]), mirror / PARQUET_PATH)
    with pytest.raises(DatasetError, match=r"field task_id: task 37 appears in 2 rows"):
        load_tasks(dataset=mirror)


@pytest.mark.parametrize("tid", [0, -3])
def test_non_positive_ids_are_refused(tid):
    """Task ids are 1..100; 0 or negative ids would collide with results of failed jobs."""
    with pytest.raises(TaskError, match="field 'task_id': must be a positive integer"):
        task_from_row(_row(tid))


def test_deep_rubric_is_a_task_error():
    """rubric_json nested 100k deep crashed with a RecursionError traceback."""
    with pytest.raises(TaskError) as exc:
        task_from_row(_row(rubric="[" * 100_000 + "]" * 100_000))
    assert "task 37: field 'rubric_json'" in str(exc.value) and "\n" not in str(exc.value)


def test_moderately_deep_rubric_is_a_task_error():
    """Nesting under the parser's recursion limit but over 64 levels has no place in a rubric either."""
    with pytest.raises(TaskError, match="nested deeper than 64"):
        task_from_row(_row(rubric="[" * 500 + "]" * 500))


def test_huge_integer_in_rubric_is_a_task_error():
    """A 5000-digit integer raised an uncaught ValueError from the JSON parser."""
    with pytest.raises(TaskError, match="rubric_json"):
        task_from_row(_row(rubric='{"correct_order": ["1"], "n_slots": ' + "1" * 5000 + "}"))


def test_oversized_rubric_is_a_task_error():
    """A multi-megabyte rubric_json is refused before parsing."""
    with pytest.raises(TaskError, match="over the"):
        task_from_row(_row(rubric=" " * (6 * 1024 * 1024)))
