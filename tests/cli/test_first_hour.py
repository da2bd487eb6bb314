"""The offline first hour and the shared grammar: AVB_DATASET, a fast one-line failure when the Hub is unreachable,
`tasks --dataset M show`, download --json keys, the demo's next commands, and API parity with the CLI."""

from __future__ import annotations

import json
import shlex
import socket
import time
from pathlib import Path

import pytest

from agenticvbench import load_results, load_tasks, verify_run
from agenticvbench.cli.demo import next_commands
from agenticvbench.cli.main import EXIT_INPUT, build_parser, main
from agenticvbench.dataset.loader import _HUB_REACHABLE
from agenticvbench.dataset.selection import parse_task_ids
from agenticvbench.errors import SubmissionError


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_unreachable_hub_fails_fast_in_one_line_with_the_way_out(tmp_path, monkeypatch, capsys):
    """Regression: offline, the default Hub id spent ~26 s in retries before an error that gave no way out."""
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("AVB_DATASET", raising=False)
    _HUB_REACHABLE.clear()
    t0 = time.monotonic()
    assert main(["tasks", "--cache-dir", str(tmp_path / "c")]) == EXIT_INPUT
    elapsed = time.monotonic() - t0
    err = capsys.readouterr().err
    assert elapsed < 3.0, elapsed
    assert len(err.strip().splitlines()) == 1
    assert "Hub is unreachable" in err and "--dataset PATH" in err and "avb demo" in err
    _HUB_REACHABLE.clear()


def test_avb_dataset_is_the_default_and_show_honours_the_outer_dataset(seq_mirror, monkeypatch, capsys):
    """AVB_DATASET replaces --dataset; `avb tasks --dataset M show 37` reads M (it used to ignore it)."""
    monkeypatch.setenv("AVB_DATASET", str(seq_mirror))
    assert main(["tasks", "--tasks", "37-38"]) == 0
    assert "2 task(s)" in capsys.readouterr().out
    monkeypatch.delenv("AVB_DATASET")
    assert main(["tasks", "--dataset", str(seq_mirror), "show", "38"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["task_id"] == 38 and "correct_order" in data["hidden"]


def test_download_json_keeps_verifier_references_apart(seq_mirror, tmp_path, capsys):
    """The agent's materials and the verifier-only source are listed under separate keys."""
    assert (
        main(
            [
                "download",
                "--dataset",
                str(seq_mirror),
                "--tasks",
                "65",
                "--with-verifier-references",
                "--json",
                "--cache-dir",
                str(tmp_path / "c"),
            ]
        )
        == 0
    )
    entry = json.loads(capsys.readouterr().out)["65"]
    assert [p.rsplit("/", 1)[1] for p in entry["materials"]] == ["broken.mp4"]
    assert [p.rsplit("/", 1)[1] for p in entry["verifier_references"]] == ["v1_source.mp4"]


def test_demo_next_commands_are_real_commands(tmp_path):
    """Every `avb ...` line the demo prints parses with the real CLI and names the demo's paths."""
    runs = {n: tmp_path / "runs" / n for n in ("perfect", "partial", "broken")}
    text = next_commands(tmp_path / "mirror", runs)
    lines = [ln.split("  #")[0].strip() for ln in text.splitlines() if ln.strip().startswith("avb ")]
    assert len(lines) >= 4 and any(str(tmp_path / "mirror") in ln for ln in lines)
    parser = build_parser()
    for ln in lines:
        assert callable(parser.parse_args(shlex.split(ln)[1:]).func), ln


def test_task_id_grammar():
    """Ranges expand, duplicates drop, single ids are required; nonsense is a ValueError."""
    ids = parse_task_ids("37-40,83, 38")
    assert ids == [37, 38, 39, 40, 83] and ids.required == [83, 38]
    for bad in ("", "a", "40-37", "1-999999"):
        with pytest.raises(ValueError):
            parse_task_ids(bad)


def test_python_api_rejects_what_the_cli_rejects(seq_mirror, tmp_path):
    """load_tasks(task_ids="65") used to be read digit by digit; jobs=0 was accepted; a missing path read empty."""
    with pytest.raises(TypeError, match="list of ints"):
        load_tasks(task_ids="65", dataset=seq_mirror)
    with pytest.raises(TypeError):
        load_tasks(task_ids=[37.0], dataset=seq_mirror)
    assert [t.task_id for t in load_tasks(task_ids=(37,), dataset=seq_mirror)] == [37]
    with pytest.raises(ValueError, match="jobs must be >= 1"):
        verify_run(tmp_path, dataset=seq_mirror, jobs=0)
    with pytest.raises(SubmissionError, match="no such run directory"):
        load_results(tmp_path / "missing")


def test_bare_parquet_warns_up_front_and_repair_ends_with_a_dataset_reason(demo, tmp_path, capsys):
    """Regression: `--dataset only.parquet` (no media beside it) scored every family but repair, whose tasks ended
    in "verifier crashed: DatasetError" with no warning. It now warns before scoring, names the tasks, and the
    reason says it is the dataset, not a crash."""
    import shutil

    from agenticvbench.dataset.loader import PARQUET_PATH

    pq_file = tmp_path / "pq" / "only.parquet"
    pq_file.parent.mkdir()
    shutil.copyfile(demo.mirror / PARQUET_PATH, pq_file)
    run = tmp_path / "run"
    for tid in ("37", "65"):
        shutil.copytree(demo.runs["perfect"] / tid, run / tid)
    assert main(["verify", str(run), "--dataset", str(pq_file), "--tasks", "37,65", "--jobs", "1"]) == 1
    err = capsys.readouterr().err
    assert f"{pq_file} is a bare parquet file without the verifier-only media of task(s) 65" in err
    got = json.loads((run / "avb-results" / "65.json").read_text(encoding="utf-8"))
    assert (
        got["status"] == "error" and got["reason"].startswith("dataset: ") and "crashed" not in got["reason"]
    )
    assert "beside this bare parquet file (pass the dataset mirror folder" in got["reason"]
    assert json.loads((run / "avb-results" / "37.json").read_text(encoding="utf-8"))["status"] == "scored"
    assert main(["verify", str(run), "--dataset", str(demo.mirror), "--tasks", "37", "--jobs", "1"]) == 0
    assert "bare parquet" not in capsys.readouterr().err


def test_download_draws_no_bar_when_stderr_is_not_a_terminal(seq_mirror, tmp_path, capsys):
    """Regression: `avb download ... 2>&1 | cat` got tqdm's carriage-return bar in the log; like verify, the bar
    is drawn only on a terminal or with --progress."""
    args = ["download", "--dataset", str(seq_mirror), "--tasks", "37", "--cache-dir", str(tmp_path / "c")]
    assert main(args) == 0
    assert "downloading" not in capsys.readouterr().err
    assert main([*args, "--progress"]) == 0
    assert "downloading" in capsys.readouterr().err


def test_tasks_show_on_a_local_mirror_names_the_local_files(seq_mirror, capsys):
    """Regression: `avb tasks show` on a local mirror printed only the dataset's huggingface.co URLs; it now also
    lists where those files are in the mirror (the URLs stay: they are the dataset row)."""
    assert main(["tasks", "--dataset", str(seq_mirror), "show", "65"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["local_files"] == [str(seq_mirror / "repair" / "materials" / "65" / "broken.mp4")]
    assert all(Path(p).is_file() for p in data["local_files"])
