"""End to end: `avb verify` with a vision judge and an audio judge on two loopback endpoints, then `avb explain`
and `avb cost` on the result. The audio judge's endpoint comes from the `--judge-config` file (its `modalities`
table), its model from `--judge-audio-model`; the vision judge is `--judge-model` at `--judge-base-url`."""

from __future__ import annotations

import json
from pathlib import Path

import openai_server
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from agenticvbench.cli.main import main
from agenticvbench.results.model import iter_results
from agenticvbench.verifiers.recap.explain import judge_by_modality, judge_usage

fake = openai_server  # the loopback OpenAI-compatible server (tests/openai_server.py)

ITEMS = [
    {
        "id": "V-1",
        "dispatch": "llm",
        "prompt": "The title card shows a colour pattern.",
        "weight": 1,
        "pillar": 1,
    },
    {"id": "V-2", "dispatch": "llm", "prompt": "The recap has a clear ending.", "weight": 1, "pillar": 2},
    {
        "id": "A-1",
        "dispatch": "llm",
        "prompt": "A steady musical tone is audible throughout.",
        "weight": 1,
        "pillar": 3,
    },
    {
        "id": "AV-1",
        "dispatch": "llm",
        "prompt": "Music plays while the title card is on screen.",
        "weight": 1,
        "pillar": 3,
    },
]
MODALITY = {"V-1": "visual", "V-2": "visual", "A-1": "audio", "AV-1": "audio_visual"}


def _dataset(root: Path) -> Path:
    table = pa.table(
        {
            "task_id": [1],
            "task_family": ["recap"],
            "prompt": ["make a recap"],
            "reference_file_urls": [[]],
            "verifier_reference_urls": [None],
            "rubric_json": [json.dumps(ITEMS)],
        },
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
    parquet = root / "data" / "train-00000-of-00001.parquet"
    parquet.parent.mkdir(parents=True)
    pq.write_table(table, parquet)
    return parquet


@pytest.fixture
def scored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """(run dir, vision server, audio server): task 1 verified with the two judges."""
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "AVB_JUDGE_MODE",
        "AVB_JUDGE_MODEL",
        "AVB_JUDGE_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    run = tmp_path / "run"
    (run / "1").mkdir(parents=True)
    fake.make_clip(run / "1" / "final.mp4")
    (run / "run.json").write_text(json.dumps({"harness": "h", "model": "m", "rep": 1}), encoding="utf-8")
    dataset = _dataset(tmp_path)
    with fake.FakeOpenAIServer() as vision, fake.FakeOpenAIServer() as audio:
        config = tmp_path / "judge.json"
        config.write_text(
            json.dumps(
                {
                    "max_frames": 3,
                    "max_side": 32,
                    "modalities": {
                        m: {"base_url": audio.base_url} for m in ("audio", "audio_visual", "video")
                    },
                }
            ),
            encoding="utf-8",
        )
        argv = [
            "verify",
            str(run),
            "--dataset",
            str(dataset),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--jobs",
            "1",
        ]
        argv += ["--judge", "cache", "--judge-model", "gpt-4o-mini", "--judge-base-url", vision.base_url]
        argv += ["--judge-audio-model", "gpt-4o-audio-preview", "--judge-config", str(config), "-q"]
        assert main(argv) == 0
    return run, vision, audio


def _chat(server) -> list[dict]:  # type: ignore[no-untyped-def]
    """The judging requests a server got (capability probes ask a one-word question and are left out)."""
    return [b for b in server.requests if "avb-capability-probe" not in fake.request_text(b)]


def test_audio_items_reach_only_the_audio_endpoint(scored, capsys) -> None:
    """Each item goes to its modality's judge: visual items to the vision server with frames and no audio, the
    audio and audio-visual items to the audio server with the audio model; the result's item detail and
    provenance record the routing and both judges, `avb explain` prints the routes, and the leaderboard marks
    the recap cell ◊ naming the uncalibrated audio judge."""
    run, vision, audio = scored
    seen = {b["model"] for b in vision.requests}, {b["model"] for b in audio.requests}
    assert seen == ({"gpt-4o-mini"}, {"gpt-4o-audio-preview"})
    assert all("audio" not in fake.part_kinds(b) for b in vision.requests)
    assert len(_chat(vision)) == 2 and len(_chat(audio)) == 2
    assert sorted(tuple(sorted(set(fake.part_kinds(b)))) for b in _chat(audio)) == [
        ("audio",),
        ("audio", "image"),
    ]
    (result,) = iter_results(run)
    by_id = {it["item_id"]: it for it in result.detail["items"]}
    assert {i: it["route"]["modality"] for i, it in by_id.items()} == MODALITY
    prov = result.provenance
    assert prov["judge_model"] == "gpt-4o-mini"
    assert prov["judge_modalities"]["audio"]["model"] == "gpt-4o-audio-preview"
    assert prov["judge_modalities"]["audio"]["base_url_host"] == audio.base_url.split("//")[1].split("/")[0]
    capsys.readouterr()
    assert main(["explain", str(run), "1"]) == 0
    out = capsys.readouterr().out
    assert "A-1: audio (rule sound" in out and "V-1: visual (rule picture" in out
    assert "AV-1: audio-visual (rule sound-and-picture" in out
    assert "audio: 1 item(s) judged, 1 call(s)" in out and "visual: 2 item(s) judged, 2 call(s)" in out
    cache = str(run.parent / "cache")
    assert main(["leaderboard", str(run), "--cache-dir", cache, "--no-floor", "--resamples", "0"]) == 0
    board = capsys.readouterr().out
    assert "◊" in board and "judge not calibrated" in board  # no calibration record in that cache
    assert "gpt-4o-audio-preview (legacy) on audio: no calibration record" in board


def test_judge_cost_per_modality_sums_to_the_totals(scored, capsys) -> None:
    """The result's per-modality split (calls, tokens, cost) adds up to its judge totals, and to the items' own
    judge records counted independently (`judge_usage`, `judge_by_modality`); `avb cost --format json` shows the
    same split, its `all` row equal to the totals."""
    run, _, _ = scored
    (result,) = iter_results(run)
    judge = result.extra["judge"]
    split = judge["by_modality"]
    assert set(split) == {"visual", "audio", "audio_visual"}
    for key in ("prompt_tokens", "completion_tokens"):
        assert sum(row[key] for row in split.values()) == judge[key] == judge_usage([result])[key] > 0
    assert sum(row["cost_usd"] for row in split.values()) == pytest.approx(judge["cost_usd"])
    assert judge["cost_usd"] == pytest.approx(judge_usage([result])["cost_usd"])
    items = judge_by_modality([result])
    assert {m: (r["prompt_tokens"], r["calls"]) for m, r in items.items()} == {
        m: (r["prompt_tokens"], r["calls"]) for m, r in split.items()
    }
    assert split["audio"]["models"] == ["gpt-4o-audio-preview"] and split["audio"]["unpriced_calls"] == 1
    capsys.readouterr()
    assert main(["cost", str(run), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["judge_by_modality"]["rows"]
    assert [r["modality"] for r in rows] == ["visual", "audio", "audio_visual", "all"]
    total = rows[-1]
    assert (total["prompt_tokens"], total["completion_tokens"]) == (
        judge["prompt_tokens"],
        judge["completion_tokens"],
    )
    assert (
        total["cost_usd"] == pytest.approx(judge["cost_usd"])
        and total["unpriced_calls"] == judge["unpriced_calls"]
    )
    assert main(["cost", str(run)]) == 0
    assert "| audio | gpt-4o-audio-preview |" in capsys.readouterr().out
