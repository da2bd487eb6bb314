"""`avb score recap`: the official recap JSON shape, exit codes, dataset or rubric-file input, judge flags."""

from __future__ import annotations

import json
from pathlib import Path

import openai_server
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agenticvbench.cli.main import main

fake = openai_server  # the loopback OpenAI-compatible server (tests/openai_server.py)

ITEMS = [
    {
        "id": "F-01",
        "dispatch": "python",
        "kind": "ffprobe_duration_range",
        "params": {"min": 1, "max": 3},
        "weight": 1,
        "pillar": 0,
    },
    {"id": "N-01", "dispatch": "llm", "prompt": "The recap has a clear ending.", "weight": 1, "pillar": 2},
]


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake.make_clip(tmp_path_factory.mktemp("cli-recap") / "final.mp4")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "AVB_JUDGE_MODE",
        "AVB_JUDGE_MODEL",
        "AVB_JUDGE_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def rubric(tmp_path: Path) -> Path:
    path = tmp_path / "rubric.json"
    path.write_text(json.dumps({"rubric_items": ITEMS}))
    return path


def score(capsys, *args: str) -> tuple[int, dict]:
    code = main(["score", "recap", *args])
    return code, json.loads(capsys.readouterr().out)


def test_rubric_file_with_judge_off(clip, rubric, tmp_path, capsys) -> None:
    code, out = score(
        capsys,
        "--final-mp4",
        str(clip),
        "--rubric",
        str(rubric),
        "--judge",
        "off",
        "--cache-dir",
        str(tmp_path / "c"),
    )
    assert code == 0
    assert (out["task_id"], out["n_items"], out["final_score"], out["error"], out["unscored"]) == (
        None,
        2,
        1.0,
        "",
        1,
    )
    assert out["items"][0] == {
        "item_id": "F-01",
        "dispatch": "python",
        "weight": 1.0,
        "pillar": 0,
        "passed": True,
        "score": 1,
        "reason": out["items"][0]["reason"],
    }
    assert out["items"][1]["passed"] is None and out["status"] == "scored"
    assert len(out["items"][0]["reason"]) <= 300 and out["pillar_breakdown"]["format"]["score"] == 1.0


def test_judge_flags_and_warm_cache(clip, rubric, tmp_path, capsys) -> None:
    with fake.FakeOpenAIServer(default_reply='{"pass": false, "reason": "no ending"}') as srv:
        args = [
            "--final-mp4",
            str(clip),
            "--rubric",
            str(rubric),
            "--judge-base-url",
            srv.base_url,
            "--judge-model",
            "test-vlm",
            "--judge-frames",
            "3",
            "--judge-fps",
            "2",
            "--cache-dir",
            str(tmp_path),
        ]
        code, out = score(capsys, *args)
        assert code == 0 and out["final_score"] == 0.5 and out["items"][1]["reason"] == "no ending"
        body = srv.requests[0]
        assert body["model"] == "test-vlm" and fake.n_images(body) == 3
        code, again = score(capsys, *args)
        assert srv.calls == 1 and again["judge"]["cache_hits"] == 1 and again["final_score"] == 0.5
        code, replay = score(capsys, *args[:-2], "--judge", "replay", "--cache-dir", str(tmp_path / "empty"))
        assert code == 0 and replay["unscored"] == 1 and "replay miss" in replay["items"][1]["reason"]
        assert srv.calls == 1


def test_task_id_from_a_parquet_dataset(clip, tmp_path, capsys) -> None:
    rows = {
        "task_id": [3],
        "task_family": ["recap"],
        "prompt": ["make a recap"],
        "reference_file_urls": [[]],
        "verifier_reference_urls": [None],
        "rubric_json": [json.dumps(ITEMS)],
    }
    table = pa.table(
        rows,
        schema=pa.schema(
            [
                ("task_id", pa.int64()),
                ("task_family", pa.string()),
                ("prompt", pa.string()),
                ("reference_file_urls", pa.list_(pa.string())),
                ("verifier_reference_urls", pa.list_(pa.string())),
                ("rubric_json", pa.string()),
            ]
        ),
    )
    parquet = tmp_path / "data" / "train-00000-of-00001.parquet"
    parquet.parent.mkdir()
    pq.write_table(table, parquet)
    code, out = score(
        capsys,
        "--final-mp4",
        str(clip),
        "--task-id",
        "3",
        "--dataset",
        str(parquet),
        "--judge",
        "off",
        "--cache-dir",
        str(tmp_path / "c"),
    )
    assert code == 0 and out["task_id"] == 3 and out["n_items"] == 2


def test_missing_final_mp4_exits_1(rubric, tmp_path, capsys) -> None:
    code, out = score(
        capsys,
        "--final-mp4",
        str(tmp_path / "nope.mp4"),
        "--rubric",
        str(rubric),
        "--judge",
        "off",
        "--cache-dir",
        str(tmp_path),
    )
    assert (
        code == 1 and "not found" in out["error"] and out["final_score"] == 0.0 and out["status"] == "missing"
    )


def test_malformed_rubric_exits_1(clip, tmp_path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "Z", "dispatch": "telepathy"}]))
    code, out = score(
        capsys, "--final-mp4", str(clip), "--rubric", str(bad), "--judge", "off", "--cache-dir", str(tmp_path)
    )
    assert code == 1 and "unknown dispatch 'telepathy'" in out["error"] and out["status"] == "malformed"


def test_bad_judge_setting_is_a_usage_error(clip, rubric, tmp_path, capsys) -> None:
    code = main(
        [
            "score",
            "recap",
            "--final-mp4",
            str(clip),
            "--rubric",
            str(rubric),
            "--judge-fps",
            "0",
            "--cache-dir",
            str(tmp_path),
        ]
    )
    assert code == 2 and "frame_rate" in capsys.readouterr().err


def test_judge_with_no_key_and_no_endpoint_is_named_up_front(rubric, capsys, monkeypatch) -> None:
    """Regression: `--judge cache` with no OPENAI_API_KEY and no --judge-base-url called api.openai.com three times
    and left every llm item unscored with nothing on stderr. The warning comes before any call (so this test never
    scores: the settings alone decide)."""
    from agenticvbench.cli.common import judge_from_args, setup_logging
    from agenticvbench.cli.main import build_parser

    def warned(*extra: str) -> str:
        args = build_parser().parse_args(
            ["score", "recap", "--final-mp4", "f.mp4", "--rubric", str(rubric), "--judge", "cache", *extra]
        )
        setup_logging(args)
        judge_from_args(args)
        return capsys.readouterr().err

    err = warned()
    assert "no $OPENAI_API_KEY and no --judge-base-url" in err and "llm items will be unscored" in err
    assert len(err.strip().splitlines()) == 1
    assert warned("--judge-base-url", "http://127.0.0.1:9/v1") == ""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert warned() == ""
