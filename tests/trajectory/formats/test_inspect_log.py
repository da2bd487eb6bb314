"""Inspect AI eval logs (written by inspect_ai itself) are read with inspect_ai's reader into the audit's steps:
which samples are a task's, what each message, call and event becomes, and the rules' flags on them, in
`avb audit` and `avb verify`."""

from __future__ import annotations

import io
import json
import shutil
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="the optional extra agenticvbench[inspect]")

import inspect_logs as il  # noqa: E402 - after the skip: it imports inspect_ai

from agenticvbench.demo import DemoBenchmark  # noqa: E402
from agenticvbench.results.model import iter_results  # noqa: E402
from agenticvbench.runs.jobdir import JobDir  # noqa: E402
from agenticvbench.runs.submission import RESULTS_DIRNAME  # noqa: E402
from agenticvbench.scoring.engine import verify_run  # noqa: E402
from agenticvbench.trajectory import check, formats  # noqa: E402
from agenticvbench.trajectory.audit import AUDITED, NOT_AUDITED, UNREADABLE, audit_run  # noqa: E402
from agenticvbench.trajectory.context import AuditContext  # noqa: E402
from agenticvbench.trajectory.formats import inspect_log, inspect_zip  # noqa: E402
from agenticvbench.trajectory.formats.inspect_log import task_of  # noqa: E402
from agenticvbench.trajectory.locate import candidates, read_log  # noqa: E402

FILM = "/workspace/materials/film.mp4"
HONEST = [
    il.bash(f"ffprobe -v error {FILM}", "duration=12.0"),
    il.Call("text_editor", {"command": "view", "path": FILM}),
]


def _read(run: Path, parts: tuple[str, ...], task: int):
    with JobDir(run) as job:
        return read_log(job, parts, task)


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_a_sample_becomes_steps_with_times_tokens_and_results(tmp_path: Path, suffix: str) -> None:
    """Both log formats give the same steps: the system and user messages, the assistant's text (with the model
    call's tokens and time) and each tool call (its arguments, the file or URL they name, the result paired by
    call id, the `ToolEvent`'s time); a tool error is the step's error."""
    fetch = "import urllib.request; urllib.request.urlretrieve('https://example.com/films/a.mp4', 'x.mp4')"
    calls = [
        *HONEST,
        il.Call("bash", {"cmd": "ls /nope"}, error="No such file"),
        il.Call("python", {"code": fetch}),
    ]
    il.write(tmp_path / "logs" / f"run{suffix}", [il.sample("agenticvbench/recap-001", calls)])
    traj = _read(tmp_path, ("logs", f"run{suffix}"), 1)
    assert traj.format == "inspect" and traj.of_task and not traj.notes, traj.notes
    assert [s.role for s in traj.steps[:3]] == ["system", "user", "agent"]
    tools = [s for s in traj.steps if s.tool]
    assert [s.tool for s in tools] == ["bash", "text_editor", "bash", "python"]
    assert tools[0].arguments == f"cmd=ffprobe -v error {FILM}" and tools[0].paths == (FILM,)
    assert tools[0].result == "duration=12.0" and tools[0].time == "2026-01-01T00:00:03+00:00"
    assert FILM in tools[1].paths and tools[2].error == "unknown: No such file"
    assert traj.steps[2].tokens == 110 and traj.steps[2].time == "2026-01-01T00:00:02+00:00"
    assert tools[3].urls == ("https://example.com/films/a.mp4",)  # the audit's own extractor
    assert sum(s.tokens or 0 for s in traj.steps) == 110 * 5  # four calls and the answer
    assert [s.index for s in traj.steps] == list(range(len(traj.steps)))


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_a_sample_run_in_the_local_sandbox_is_read(tmp_path: Path, suffix: str) -> None:
    """inspect-harbor run with Inspect's `local` sandbox logs the task's compose configuration under a `local`
    sandbox, which inspect_ai's reader cannot deserialise (it raised NotImplementedError on every such log):
    the configuration is dropped before inspect_ai reads the sample, and the steps come out."""
    sample = il.sample("agenticvbench/recap-001", HONEST, sandbox=il.local_sandbox())
    il.write(tmp_path / "logs" / f"run{suffix}", [sample])
    traj = _read(tmp_path, ("logs", f"run{suffix}"), 1)
    assert traj.format == "inspect" and not traj.notes, traj.notes
    assert [s.tool for s in traj.steps if s.tool] == ["bash", "text_editor"]


def test_sample_ids_name_tasks() -> None:
    """inspect-harbor names a sample after the exported task (with `@hash` when two share a name); an own task
    may use the id; anything else, or an id outside its family's range, names no task."""
    assert task_of("agenticvbench/sequencing-037") == 37 and task_of("sequencing-37@1a2b3c4d") == 37
    assert task_of("agenticvbench/recap-001") == 1 and task_of(65) == 65 and task_of("065") == 65
    assert task_of("recap-050") is None and task_of("sample-1") is None and task_of("agenticvbench/x") is None


def test_a_run_level_log_gives_each_task_its_samples(tmp_path: Path) -> None:
    """RUN/logs/run.eval holds tasks 1 and 37 (and an unnamed sample): each task folder is audited from its own
    sample; task 38, absent from the log, has no trajectory (the log is not its log, not even unreadable)."""
    for t in ("1", "37", "38"):
        (tmp_path / t).mkdir()
    il.write(
        tmp_path / "logs" / "run.eval",
        [
            il.sample("agenticvbench/recap-001", HONEST),
            il.sample("agenticvbench/sequencing-037@1a2b3c4d", [il.bash("ls /workspace/materials/37")]),
            il.sample("other", [il.bash("ls /")]),
        ],
    )
    (tmp_path / "logs" / "logs.json").write_text("{}")  # Inspect's listing: not a log
    with JobDir(tmp_path) as job:
        assert candidates(job, "38") == [("logs", "run.eval")]
    ctx = AuditContext(repos=frozenset(), inputs={1: (), 37: (), 38: ()}, hosts={}, references=frozenset())
    t1, t37, t38 = audit_run(tmp_path, ctx).tasks
    assert t1.status == t37.status == AUDITED and t38.status == NOT_AUDITED and not t38.notes
    assert t1.logs == [{"format": "inspect", "path": "logs/run.eval", "steps": 7}]
    assert _read(tmp_path, ("logs", "run.eval"), 37).steps[3].arguments == "cmd=ls /workspace/materials/37"


def test_a_task_folder_log_and_its_epochs(tmp_path: Path) -> None:
    """A log in the task's own folder with one unnamed sample is the task's; two epochs are read one after the
    other with a note saying where each starts. A task folder log of another task's sample is not read."""
    epochs = [il.sample("s", [il.bash("ls")], epoch=1), il.sample("s", [il.bash("pwd")], epoch=2)]
    il.write(tmp_path / "1" / "agent" / "run.eval", epochs)
    traj = _read(tmp_path, ("1", "agent", "run.eval"), 1)
    assert [s.arguments for s in traj.steps if s.tool] == ["cmd=ls", "cmd=pwd"]
    assert [n.rsplit(" ", 3)[-3:] for n in traj.notes] == [["from", "step", "0"], ["from", "step", "5"]]
    il.write(tmp_path / "2" / "run.eval", [il.sample("agenticvbench/sequencing-038", [il.bash("ls")])])
    traj = _read(tmp_path, ("2", "run.eval"), 2)
    assert (
        traj.format == "unknown"
        and "no sample of task 2" in traj.notes[0]
        and "sequencing-038" in traj.notes[0]
    )


def test_calls_only_in_the_events_and_citations_are_read(tmp_path: Path) -> None:
    """A sub-agent's call is a `ToolEvent` only: it becomes a step (after the messages, with a note, its long
    argument resolved from the sample's attachments), so a web search hidden there is still judged; an answer
    citing a URL is grounded."""
    query = (
        "film answers " + "x" * 200
    )  # over 100 characters: Inspect keeps it as an attachment of the events
    calls = [il.bash("ls"), il.Call("web_search", {"query": query}, events_only=True)]
    for suffix in (".eval", ".json"):
        il.write(tmp_path / "logs" / f"run{suffix}", [il.sample(1, calls, cited="https://example.com/recap")])
        traj = _read(tmp_path, ("logs", f"run{suffix}"), 1)
        assert traj.steps[-1].tool == "web_search" and traj.steps[-1].arguments == f"query={query}"
        assert "only in its events" in traj.notes[0] and any(s.grounded for s in traj.steps)


@pytest.fixture
def ctx(tmp_path: Path) -> AuditContext:
    """Tasks 1 and 38 with a local mirror being scored, and the run under tmp_path being audited."""
    return AuditContext(
        repos=frozenset({"anonymous47621123/agenticvbench_100"}),
        inputs={1: ("recap/materials/1/film.mp4",), 38: ("sequencing/materials/38.zip",)},
        hosts={t: frozenset({"huggingface.co", "hf.co"}) for t in (1, 38)},
        references=frozenset(),
        dataset_root=str(tmp_path / "mirror"),
        runs=(str(tmp_path / "run"),),
        env={"HOME": "/home/u"},
    )


@pytest.mark.parametrize(
    ("rule", "call"),
    [
        (None, HONEST[0]),
        (
            "answer_access",
            il.bash("python -c \"import pandas as pd; pd.read_parquet('{mirror}/data/t.parquet')\""),
        ),
        ("web_access", il.Call("web_search", {"query": "AgenticVBench recap answers"})),
        ("web_access", il.Call("web_browser_go", {"url": "https://example.com/film"})),
        ("foreign_task", il.Call("text_editor", {"command": "view", "path": "{run}/38/solution.json"})),
    ],
)
def test_each_rule_flags_an_inspect_call(ctx: AuditContext, tmp_path: Path, rule: str | None, call) -> None:
    """An honest call raises nothing; reading the dataset's parquet, a web tool and another task's folder raise
    their flag on the call's step, as in every other format."""
    run = tmp_path / "run"
    args = {k: v.format(mirror=ctx.dataset_root, run=run) for k, v in call.arguments.items()}
    il.write(
        run / "logs" / "run.eval", [il.sample("agenticvbench/recap-001", [il.Call(call.function, args)])]
    )
    (run / "1").mkdir()
    [task] = audit_run(run, ctx).tasks
    assert task.status == AUDITED, task.notes
    assert [(f.rule, f.step, f.tool) for f in task.findings] == ([(rule, 3, call.function)] if rule else [])


def test_an_inspect_json_log_is_not_taken_for_atif() -> None:
    """Inspect's JSON log has a plan with `steps`, which the ATIF sniffer would match: it sniffs as Inspect, and
    an ATIF document still sniffs as ATIF."""
    head = json.dumps(
        {"version": 2, "status": "success", "eval": {}, "plan": {"steps": []}}, indent=2
    ).encode()
    assert formats.sniff(head, "run.json").name == "inspect"
    assert formats.sniff(b'{"schema_version": "ATIF-v1.4", "steps": []}', "trajectory.json").name == "atif"


def test_without_inspect_ai_the_log_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When inspect_ai is not installed the log is not read: one note saying how to install it, and the task is
    unreadable (never clean)."""
    il.write(tmp_path / "1" / "agent" / "run.eval", [il.sample("agenticvbench/recap-001", HONEST)])
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    ctx = AuditContext(repos=frozenset(), inputs={1: ()}, hosts={}, references=frozenset())
    [task] = audit_run(tmp_path, ctx).tasks
    assert task.status == UNREADABLE and task.logs == []
    assert task.notes == [
        "1/agent/run.eval: an Inspect log, not read (inspect_ai is not installed "
        "(pip install 'agenticvbench[inspect]'))"
    ]


def test_avb_verify_reads_a_run_level_inspect_log(demo: DemoBenchmark, tmp_path: Path) -> None:
    """`avb verify` finds RUN/logs/run.eval for each task folder: task 37's sample reads the parquet being
    scored (flagged answer_access, score kept, provenance format `inspect`), task 38's is clean; the logs/
    folder is not reported as a stray folder."""
    run = tmp_path / "perfect"
    shutil.copytree(demo.runs["perfect"], run, ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    parquet = next(demo.mirror.rglob("*.parquet"))
    il.write(
        run / "logs" / "run.eval",
        [
            il.sample("agenticvbench/sequencing-037", [il.bash(f"python -c 'read(\"{parquet}\")'")]),
            il.sample("agenticvbench/sequencing-038", [il.bash("ls /workspace/materials")]),
        ],
    )
    summary = verify_run(
        [run], dataset=str(demo.mirror), task_ids=[37, 38], jobs=1, key_file=tmp_path / "key"
    )
    assert not [n for n in summary.notes if "ignored" in n], summary.notes  # logs/ is not a stray folder
    results = {r.task_id: r for r in iter_results(run)}
    r37, r38 = results[37], results[38]
    assert r37.integrity == ["answer_access"] and r37.headline_score == 1.0
    [entry] = r37.provenance["trajectory"]["logs"]
    assert entry["format"] == "inspect" and entry["path"] == "logs/run.eval" and len(entry["sha256"]) == 64
    assert r38.integrity == [] and r38.provenance["trajectory"]["status"] == "audited"


def test_avb_view_draws_each_task_from_its_own_sample(demo: DemoBenchmark, tmp_path: Path) -> None:
    """The viewer read a run-level log without the task id, so it could not pick the task's sample, and it took a
    run-level log holding none of the task's samples for a log "added since scoring". Task 37's page draws its own
    sample (the flagged read), 38's its own (no flag), and 83, which has no sample, says it was not audited."""
    from agenticvbench.view import Thumbnailer, build_model
    from agenticvbench.view.pages import Site, task_page

    run = tmp_path / "perfect"
    shutil.copytree(demo.runs["perfect"], run, ignore=shutil.ignore_patterns(RESULTS_DIRNAME))
    parquet = next(demo.mirror.rglob("*.parquet"))
    il.write(
        run / "logs" / "run.eval",
        [
            il.sample("agenticvbench/sequencing-037", [il.bash(f"cat '{parquet}'")]),
            il.sample("agenticvbench/sequencing-038", [il.bash("ls /workspace/materials")]),
        ],
    )
    verify_run([run], dataset=str(demo.mirror), task_ids=[37, 38, 83], jobs=1, key_file=tmp_path / "key")
    model = build_model([run], dataset=demo.mirror, resamples=0)
    thumbs = Thumbnailer(tmp_path / "thumbs", progress=False)

    def section(task: int) -> str:
        page = task_page(model, Site(), thumbs, 0, task)
        return page[page.index('<section class="trajectory"') :].split("</section>", 1)[0]

    s37, s38, s83 = section(37), section(38), section(83)
    assert "logs/run.eval" in s37 and "answer_access" in s37 and "parquet" in s37 and "added since" not in s37
    assert "ls /workspace/materials" in s38 and "answer_access" not in s38 and "parquet" not in s38
    assert "not audited" in s83 and "logs/run.eval" not in s83


def test_a_run_level_log_is_parsed_and_hashed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every task folder reads RUN/logs/: a JSON log (no sample-level reading in inspect_ai) is parsed once for
    all of them and hashed once for their fingerprints, and a rewritten log is read and hashed again."""
    parsed, hashed = [], []
    real_parse, real_digest = inspect_log._json_samples, check._digest
    monkeypatch.setattr(inspect_log, "_json_cache", None)
    monkeypatch.setattr(check, "_hashed", {})
    monkeypatch.setattr(inspect_log, "_json_samples", lambda *a: parsed.append(1) or real_parse(*a))
    monkeypatch.setattr(check, "_digest", lambda fd: hashed.append(1) or real_digest(fd))
    samples = [il.sample("agenticvbench/recap-001", HONEST), il.sample(37, [il.bash("ls")])]
    il.write(tmp_path / "logs" / "run.json", samples)
    for t in ("1", "37"):
        (tmp_path / t).mkdir()
    assert [len(_read(tmp_path, ("logs", "run.json"), t).steps) for t in (1, 37)] == [7, 5]
    digests = {check.task_logs(tmp_path / t)["logs/run.json"] for t in ("1", "37")}
    assert len(parsed) == 1 and len(hashed) == 1 and len(digests) == 1
    il.write(tmp_path / "logs" / "run.json", samples[:1])
    assert len(_read(tmp_path, ("logs", "run.json"), 1).steps) == 7 and len(parsed) == 2
    assert check.task_logs(tmp_path / "1")["logs/run.json"] not in digests and len(hashed) == 2


def test_a_run_level_json_log_without_the_task_is_not_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the last JSON log read is kept, so with two run-level JSON logs every task folder parsed both again
    (sixteen at the cap cost a minute per task). Which tasks a log holds is kept per process: a task folder
    parses again only the logs that hold its samples."""
    monkeypatch.setattr(inspect_log, "_json_cache", None)
    monkeypatch.setattr(inspect_log, "_json_tasks", {})
    parsed: list[int] = []
    real_parse = inspect_log._json_samples
    monkeypatch.setattr(inspect_log, "_json_samples", lambda *a: parsed.append(1) or real_parse(*a))
    il.write(tmp_path / "logs" / "a.json", [il.sample(1, HONEST), il.sample(37, [il.bash("ls")])])
    il.write(tmp_path / "logs" / "b.json", [il.sample(38, [il.bash("pwd")])])
    reads = [_read(tmp_path, ("logs", log), t) for t in (1, 37, 38) for log in ("a.json", "b.json")]
    assert [len(t.steps) for t in reads] == [7, 0, 5, 0, 0, 5] and len(parsed) == 4
    assert [t.of_task for t in reads] == [True, False, True, False, False, True]


def test_a_run_level_archive_directory_is_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every task folder reads each `.eval` of RUN/logs/: 16 archives of 19,999 entries took 12 s to audit 9
    tasks when each task parsed each directory again. The directory (or its refusal) is parsed once per archive
    and process, the samples named by no task are not kept, and a rewritten archive is parsed again."""
    parsed: list[int] = []
    real_entries = inspect_zip.entries
    monkeypatch.setattr(inspect_log, "_directories", {})
    monkeypatch.setattr(inspect_zip, "entries", lambda *a: parsed.append(1) or real_entries(*a))
    samples = [il.sample("agenticvbench/recap-001", HONEST), il.sample(37, [il.bash("ls")])]
    il.write(tmp_path / "logs" / "run.eval", samples + [il.sample(f"other-{i}", []) for i in range(3)])
    runs = [_read(tmp_path, ("logs", "run.eval"), t) for t in (1, 37, 38, 1)]
    assert [len(t.steps) for t in runs] == [7, 5, 0, 7] and [t.of_task for t in runs] == [
        True,
        True,
        False,
        True,
    ]
    assert len(parsed) == 1
    (kept,) = inspect_log._directories.values()
    assert not isinstance(kept, Exception) and sorted(kept.by_task) == [1, 37] and len(kept.members) == 2
    il.write(tmp_path / "logs" / "run.eval", samples[1:])
    assert _read(tmp_path, ("logs", "run.eval"), 1).of_task is False and len(parsed) == 2
    monkeypatch.setattr(inspect_zip, "MAX_ENTRIES", 1)  # over the cap: refused for each task, parsed once
    monkeypatch.setattr(inspect_log, "_directories", {})
    notes = [_read(tmp_path, ("logs", "run.eval"), t).notes for t in (1, 37)]
    assert all(n and "over the cap" in n[0] for n in notes) and len(parsed) == 3


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_deep_nesting_is_refused_before_inspect_ai_walks_it(tmp_path: Path, suffix: str) -> None:
    """A sample nested 100,000 levels deep (inspect_ai's reader grows quadratically with nesting: this exhausted
    memory) is refused quickly with a note, in both log formats."""
    il.write(tmp_path / "ok.json", [il.sample(1, [il.bash("ls")])])
    doc = json.loads((tmp_path / "ok.json").read_text())
    deep = "[" * 100_000 + "]" * 100_000
    text = json.dumps(doc if suffix == ".json" else doc["samples"][0])
    text = text.replace('"metadata": {}', f'"metadata": {{"x": {deep}}}', 1)
    assert deep in text
    data = text.encode()
    if suffix == ".eval":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("samples/1_epoch_1.json", data)
        data = buf.getvalue()
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / f"run{suffix}").write_bytes(data)
    started = time.monotonic()
    traj = _read(tmp_path, ("logs", f"run{suffix}"), 1)
    assert time.monotonic() - started < 10 and traj.format == "unknown" and traj.steps == []
    assert any("nested too deeply" in n or "recursion limit" in n for n in traj.notes), traj.notes


def _eval_of(tmp_path: Path, edit) -> Path:
    """RUN/logs/run.eval holding task 37's sample (one call) as JSON, passed through `edit` (a dict to a dict or
    to the member's text) first."""
    il.write(tmp_path / "ok.json", [il.sample(37, [il.bash("ls")])])
    got = edit(json.loads((tmp_path / "ok.json").read_text())["samples"][0])
    (tmp_path / "logs").mkdir(exist_ok=True)
    with zipfile.ZipFile(tmp_path / "logs" / "run.eval", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("samples/37_epoch_1.json", got if isinstance(got, str) else json.dumps(got))
    return tmp_path


def test_a_sample_of_too_many_values_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Empty objects cost a few bytes unpacked and some 150 of memory each once parsed: 13 million in a 62 KB
    `.eval` took 2.1 GB within every byte cap. They are counted before any parse, and a sample over the cap (or
    over the unpacked size of a sample) is a one-line note, not read."""
    monkeypatch.setattr(inspect_log, "MAX_VALUES", 20_000)
    parsed: list[int] = []
    real_loads = json.loads
    monkeypatch.setattr(json, "loads", lambda *a, **k: parsed.append(1) or real_loads(*a, **k))

    def bomb(sample: dict) -> str:
        return json.dumps(sample).replace(
            '"metadata": {}', '"metadata": {"k": [' + ",".join(["{}"] * 30_000) + "]}"
        )

    run = _eval_of(tmp_path, bomb)
    parsed.clear()
    traj = _read(run, ("logs", "run.eval"), 37)
    assert traj.format == "unknown" and traj.steps == [] and not parsed
    assert "JSON values, over the cap of 20000" in traj.notes[0] and "\n" not in traj.notes[0]
    monkeypatch.setattr(inspect_log, "MAX_VALUES", 80_000)  # each {} is a container and an element
    assert len(_read(tmp_path, ("logs", "run.eval"), 37).steps) == 5
    monkeypatch.setattr(inspect_log, "MAX_SAMPLE_BYTES", 1000)
    traj = _read(tmp_path, ("logs", "run.eval"), 37)
    assert traj.steps == [] and "bytes unpacked, over the cap of 1000 for a sample" in traj.notes[0]


def test_model_inputs_are_not_rebuilt_nor_the_sample_formatted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """inspect_ai rebuilds each model call's input from `events_data` (a range of 11 bytes became 1,000 list
    entries), and its synchronous reader formatted the whole sample twice (`asyncio.run` on Python 3.11): a
    sample of 300 calls cost 8.5 s and 210 MB. The steps need neither: the inputs are dropped before inspect_ai
    reads the sample, and it is read on a loop of its own."""
    from inspect_ai.log import EvalSample

    formatted: list[int] = []
    monkeypatch.setattr(EvalSample, "__repr__", lambda self: formatted.append(1) or "EvalSample(...)")

    def refs(sample: dict) -> dict:
        sample["events_data"] = {"messages": [sample["messages"][1]] * 1000, "calls": []}
        for event in sample["events"]:
            if event["event"] == "model":
                event["input"], event["input_refs"] = [], [[0, 1000]] * 10_000  # ten million entries
        return sample

    run = _eval_of(tmp_path, refs)
    tracemalloc.start()
    try:
        traj = _read(run, ("logs", "run.eval"), 37)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [s.tool for s in traj.steps if s.tool] == ["bash"] and not traj.notes, traj.notes
    assert peak < 40_000_000 and formatted == []


def test_a_note_never_names_the_private_copy_of_a_sample(tmp_path: Path) -> None:
    """Each `.eval` sample is rewritten alone into a temporary folder before inspect_ai reads it, and inspect_ai's
    errors name that file: a member spelled `37_epoch_01.json` gave a note ending "not found in log
    /tmp/avb-audit-inspect-.../sample.eval", a path of the scoring machine that a published page could carry.
    The note keeps inspect_ai's reason and names the private copy without its path."""
    il.write(tmp_path / "ok.json", [il.sample(37, [il.bash("ls")])])
    text = json.dumps(json.loads((tmp_path / "ok.json").read_text())["samples"][0])
    (tmp_path / "logs").mkdir()
    with zipfile.ZipFile(tmp_path / "logs" / "run.eval", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("samples/37_epoch_01.json", text)
    traj = _read(tmp_path, ("logs", "run.eval"), 37)
    assert traj.steps == [] and traj.notes, traj.notes
    assert any("not found" in n and "<the sample's private copy>" in n for n in traj.notes), traj.notes
    assert not any(inspect_log._PRIVATE_PREFIX in n for n in traj.notes), traj.notes
