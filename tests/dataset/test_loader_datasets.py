"""The loader against the `datasets` library: the HF view of the task table equals what load_tasks reads."""

from __future__ import annotations

import json

from agenticvbench import load_hf_dataset, load_tasks


def test_hf_dataset_rows_equal_the_typed_tasks(demo, tmp_path):
    """load_tasks reads the parquet with pyarrow for speed; `datasets` must see exactly the same rows."""
    ds = load_hf_dataset(demo.mirror, cache_dir=tmp_path)
    assert ds.num_rows == len(load_tasks(dataset=demo.mirror))
    assert set(ds.column_names) == {
        "task_id",
        "task_family",
        "prompt",
        "reference_file_urls",
        "verifier_reference_urls",
        "rubric_json",
    }
    assert ds.features["task_id"].dtype == "int64"
    by_id = {t.task_id: t for t in load_tasks(dataset=demo.mirror)}
    for row in ds:
        t = by_id[row["task_id"]]
        assert (
            row["task_family"],
            row["prompt"],
            row["reference_file_urls"],
            row["verifier_reference_urls"],
        ) == (t.family, t.prompt, t.reference_file_urls, t.verifier_reference_urls)
        assert json.loads(row["rubric_json"]) == json.loads(t.rubric_json)
    seq = ds.filter(lambda r: r["task_family"] == "sequencing")
    assert sorted(seq["task_id"]) == [t.task_id for t in load_tasks("sequencing", dataset=demo.mirror)]
