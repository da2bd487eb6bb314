"""The rules on generated logs of every format: an honest run raises nothing, and each way of reaching answers,
the web or another task's files raises its flag, naming the step and quoting the call."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import traj_logs as logs
from traj_logs import HUB, REPO

from agenticvbench.trajectory.audit import AUDITED, audit_run
from agenticvbench.trajectory.context import AuditContext
from agenticvbench.trajectory.model import make_step
from agenticvbench.trajectory.rules import hits


def _flags(ctx: AuditContext, tmp_path: Path, task: int, calls: list[logs.Call], fmt: str = "atif"):
    run = Path(ctx.runs[0])
    logs.write(run / str(task), fmt, calls)
    audit = audit_run(run, ctx)
    [t] = audit.tasks
    assert t.status == AUDITED, t.notes
    return t.findings


HONEST = [
    logs.shell(f"curl -L -o film.mp4 {HUB}/resolve/main/recap/materials/1/film.mp4"),
    logs.shell(f"hf download {REPO} recap/materials/1/film.mp4 --repo-type dataset --local-dir ."),
    logs.shell("ffprobe -v error -show_streams /workspace/materials/film.mp4"),
    logs.shell("ffmpeg -i film.mp4 -vf fps=1 frames/%04d.png && pip install opencv-python-headless"),
    logs.shell("curl -s http://localhost:8080/health"),
    logs.Call("read", "/workspace/output/final.mp4"),
]


@pytest.mark.parametrize("fmt", logs.FORMATS)
def test_an_honest_run_raises_nothing(ctx: AuditContext, tmp_path: Path, fmt: str) -> None:
    """Fetching the task's own input from the Hub, probing and cutting it, installing a package and calling a
    local service are what agents do: no flag, in any format."""
    assert _flags(ctx, tmp_path, 1, HONEST, fmt) == []


ANSWER = [
    f"curl -LO {HUB}/resolve/main/data/train-00000-of-00001.parquet",
    "wget 'hf.co/datasets/anonymous47621123/agenticvbench_100/resolve/refs%2Fconvert%2Fparquet/default/x.parquet'",
    f"python -c \"from huggingface_hub import snapshot_download; snapshot_download('{REPO}', repo_type='dataset')\"",
    f"hf download {REPO} repair/sources/demo1_source.mp4 --repo-type dataset",
    "ls ~/.cache/huggingface/hub/datasets--Anonymous47621123--AgenticVBench_100/snapshots/abc/repair/sources/",
    "curl https://huggingface.co/datasets/someone/AgenticVBench_100/blob/main/data/t.parquet",
    "curl 'https://huggingface.co/datasets/Anonymous47621123%2FAgenticVBench_100/resolve/main/repair/sources/a.mp4'",
    'cat "{root}/../mirror/data/train-00000-of-00001.parquet"',
    "ls ../../other-run/avb-results/",
    "cat $AVB_CACHE/result-key",
    "python -c \"import pandas as pd; print(pd.read_parquet('t.parquet')['correct_order'])\"",
    f"open {HUB}/viewer",
]


@pytest.mark.parametrize("command", ANSWER)
def test_answer_access_is_flagged(ctx: AuditContext, tmp_path: Path, command: str) -> None:
    """Each spelling of the answer material (parquet, verifier-only sources, a mirror repository, the Hub cache,
    the dataset being scored, a results folder, the scorer's cache, the answer columns, the viewer) is flagged
    on the step that names it, quoted on one line."""
    command = command.format(root=ctx.dataset_root)
    calls = [logs.shell("ls"), logs.shell(command)]
    found = _flags(ctx, tmp_path, 65, calls)
    assert [f.rule for f in found] == ["answer_access"], found
    assert found[0].step == 2 and "\n" not in found[0].quote and len(found[0].quote) <= 200


@pytest.mark.parametrize("fmt", logs.FORMATS)
def test_answer_access_in_every_format(ctx: AuditContext, tmp_path: Path, fmt: str) -> None:
    """The verifier-only source read through the format's own read tool is flagged in each format."""
    calls = [logs.Call("read", f"{ctx.dataset_root}/repair/sources/demo1_source.mp4")]
    found = _flags(ctx, tmp_path, 65, calls, fmt)
    assert [f.rule for f in found] == ["answer_access"]
    assert "verifier-only reference" in found[0].why and "demo1_source.mp4" in found[0].quote


def test_a_result_holding_answer_columns_is_flagged(ctx: AuditContext, tmp_path: Path) -> None:
    """A harmless-looking call whose output shows the answer columns reached the answers."""
    found = _flags(ctx, tmp_path, 37, [logs.shell("python inspect.py", "task_id correct_order rubric_json")])
    assert [f.rule for f in found] == ["answer_access"] and "correct_order" in found[0].why


WEB = [
    logs.Call("search", "AgenticVBench answers"),
    logs.Call("fetch", "https://example.com/recap-guide"),
    logs.shell("curl -sSL https://example.com/x.mp4 -o x.mp4"),
    logs.shell("git clone https://github.com/someone/solutions"),
    logs.shell("pip download numpy"),
    logs.shell("python -c \"import requests; requests.get('https://api.example.org/v1')\""),
]


@pytest.mark.parametrize("call", WEB, ids=lambda c: c.text[:20])
def test_web_access_is_flagged(ctx: AuditContext, tmp_path: Path, call: logs.Call) -> None:
    """Search and fetch tools, and downloads from hosts outside the task's inputs, are flagged."""
    found = _flags(ctx, tmp_path, 37, [call])
    assert [f.rule for f in found] == ["web_access"], found


@pytest.mark.parametrize("fmt", logs.FORMATS)
def test_web_search_in_every_format(ctx: AuditContext, tmp_path: Path, fmt: str) -> None:
    """Each format's own web search (a tool, or codex's web_search item) is flagged."""
    found = _flags(ctx, tmp_path, 37, [logs.Call("search", "how to sort clips")], fmt)
    assert [f.rule for f in found] == ["web_access"]


def test_grounding_metadata_is_web_access(ctx: AuditContext) -> None:
    """An agent answer carrying a provider's grounding metadata used the web, with no tool call at all."""
    step = make_step(0, role="agent", arguments="The film ends with...", grounded=True)
    assert [h.rule for h in hits(step, 1, ctx, None, ctx.runs[0])] == ["web_access"]


FOREIGN = [
    "cat ../38/solution.json",
    f"curl -LO {HUB}/resolve/main/sequencing/materials/38.zip",
    "ls {runs}/a/38/",
    "cat {runs}/b/37/solution.json",
    "ls /tasks/sequencing-038/environment",
    "unzip {cache}/materials/local-1/sequencing/materials/38/clip_a.mp4",
]


@pytest.mark.parametrize("command", FOREIGN)
def test_foreign_task_is_flagged(ctx: AuditContext, tmp_path: Path, command: str) -> None:
    """Another task's input, folder or Harbor name, and the same task's folder in another run, are flagged."""
    command = command.format(runs=tmp_path / "runs", cache=ctx.cache_dir)
    found = _flags(ctx, tmp_path, 37, [logs.shell(command)])
    assert [f.rule for f in found] == ["foreign_task"], found


def test_own_folder_and_own_inputs_are_not_foreign(ctx: AuditContext, tmp_path: Path) -> None:
    """The task's own folder in its run and its own extracted input in the cache are fine."""
    calls = [
        logs.shell(f"ls {tmp_path}/runs/a/37/ && cat solution.json"),
        logs.shell(f"ls {ctx.cache_dir}/materials/local-1/sequencing/materials/37/"),
    ]
    assert _flags(ctx, tmp_path, 37, calls) == []


def test_relative_paths_resolve_against_the_logged_working_folder(ctx: AuditContext, tmp_path: Path) -> None:
    """`cd`-free relative paths are joined to the log's cwd: from RUN/37, `../38/x` is task 38's folder, and
    `../../b/37/` is another run's task."""
    run = Path(ctx.runs[0])
    logs.write(run / "37", "claude-code", [logs.shell("cat ../../b/37/solution.json")], cwd=f"{run}/37")
    [t] = audit_run(run, ctx).tasks
    assert [(f.rule, f.why) for f in t.findings] == [("foreign_task", "task 37's folder of run b")]


def test_numbered_folders_of_the_agent_are_not_sibling_tasks(ctx: AuditContext, tmp_path: Path) -> None:
    """`../1/frame.png` from inside the agent's own `frames/2/` is its own work, not task 1: a sibling counts
    only when it leads to a task's output/ or an output file."""
    calls = [logs.shell("cd frames/2 && cp ../1/frame_0001.png . && ls ../1")]
    assert _flags(ctx, tmp_path, 37, calls) == []
    shutil.rmtree(Path(ctx.runs[0]) / "37")
    found = _flags(ctx, tmp_path, 38, [logs.shell("cat ../37/solution.json")])
    assert [f.why for f in found] == ["task 37's folder (a sibling)"]


OWN = "sequencing/materials/37.zip"
PQ = "data/train-00000-of-00001.parquet"
#: Ways of reading the answers that a plain match missed, one call each (task 37, its own input named as cover).
TRICKS = {
    "hf_cli_own_input_plus_parquet": f"hf download {REPO} {OWN} {PQ} --repo-type dataset --local-dir .",
    "hf_cli_own_input_plus_pattern": f"hf download {REPO} {OWN} --include 'data/*' --repo-type dataset",
    "snapshot_allow_patterns": (
        f'python -c "from huggingface_hub import snapshot_download as s; '
        f"s('{REPO}', repo_type='dataset', allow_patterns=['{OWN}', 'data/*'])\""
    ),
    "hf_hub_download_two_files": (
        f'python -c "from huggingface_hub import hf_hub_download as d; '
        f"d(repo_id='{REPO}', filename='{OWN}'); d(repo_id='{REPO}', filename='{PQ}')\""
    ),
    "url_dotdot_from_own_input": f"curl -L -o t.parquet {HUB}/resolve/main/sequencing/materials/37/../../../../{PQ}",
    "url_encoded_dotdot": f"curl -L {HUB}/resolve/main/sequencing/materials/37/%2e%2e/%2E%2E/%2e%2e/%2e%2e/{PQ}",
    "git_clone_dot_git": f"git clone {HUB}.git ds",
    "git_clone_hf_co": f"git clone https://hf.co/datasets/{REPO}.git ds",
    "git_lfs_pull_in_clone": "cd AgenticVBench_100 && git lfs pull --include 'data/*'",
    "hf_path_at_revision": f"python -c \"import pandas as pd; pd.read_parquet('hf://datasets/{REPO}@main/{PQ}')\"",
    "hf_cli_mirror_owner": "hf download someone-else/AgenticVBench_100 --repo-type dataset --local-dir ds",
    "load_dataset_mirror_owner": "python -c \"import datasets; datasets.load_dataset('someone-else/AgenticVBench_100')\"",
    "relative_after_cd_copy_name": f"cd /data && python -c \"import pandas as pd; pd.read_parquet('AgenticVBench_100/{PQ}')\"",
    "relative_after_cd_scored_mirror": f"cd {{parent}} && cat mirror/{PQ}",
    "symlink_copy_name": f"ln -s /data d && cat d/AgenticVBench_100/{PQ} | head -c 100",
    "symlink_scored_mirror": "ln -sf {parent} m && cp m/mirror/repair/sources/demo1_source.mp4 .",
}


@pytest.mark.parametrize("command", TRICKS.values(), ids=TRICKS.keys())
def test_disguised_answer_reads_are_flagged(ctx: AuditContext, tmp_path: Path, command: str) -> None:
    """A Hub call that names the task's own input next to the table, a wildcard or `..` leading out of the own
    input, a git clone (`.git`, `hf.co`, `git lfs pull` in the clone), `hf://...@rev`, a mirror under another
    owner in a CLI or Python call, and a relative path after `cd` or through a symlink made in the same command
    all reach the answers: each is `answer_access`."""
    found = _flags(ctx, tmp_path, 37, [logs.shell(command.format(parent=tmp_path))])
    assert "answer_access" in [f.rule for f in found], found


HONEST_LOOKALIKES = [
    f"hf download {REPO} {OWN} --repo-type dataset --local-dir data --cache-dir /tmp/data/x.parquet",
    f"hf download {REPO} --include 'sequencing/materials/37*' --repo-type dataset --local-dir .",
    (
        f"python -c \"from huggingface_hub import snapshot_download; p = snapshot_download(repo_id='{REPO}', "
        f"repo_type='dataset', allow_patterns=['{OWN}'], local_dir='/workspace/in'); print(p + '/data')\""
    ),
    f"curl -L -o in.zip {HUB}/resolve/main/sequencing/materials/38/../37.zip",
    f"curl -L -o in.zip {HUB}/resolve/main//sequencing/./materials/37.zip",
    "cd /workspace/out && git init && git status && git checkout -b cut",
    "python -c \"import pandas as pd; pd.read_parquet('hf://datasets/someone/AgenticVBench_1000@main/x.parquet')\"",
    "hf download someone/other-clips --repo-type dataset && python -c \"load_dataset('someone/AgenticVBench_100k')\"",
    "cd /workspace/AgenticVBench_100_work && cat data/frames.parquet",
    "mkdir -p data && cd data && python -c \"import pandas as pd; pd.DataFrame().to_parquet('frames.parquet')\"",
    "ln -s /workspace/materials m && ffmpeg -i m/clip_a.mp4 -vf fps=1 frames/%04d.png",
    "ls /data/AgenticVBench_100/ && ffprobe /data/AgenticVBench_100/sequencing/materials/37/clip_a.mp4",
    "ls && cd .. && ls -la",
]


@pytest.mark.parametrize("command", HONEST_LOOKALIKES)
def test_honest_lookalikes_stay_clean(ctx: AuditContext, tmp_path: Path, command: str) -> None:
    """Each new matcher has a near miss an honest agent writes: the own input alone (a local folder named
    `data`, a pattern matching only it, `..` that lands on it), git in the agent's own folder, repositories of
    other names, the agent's own `data/` folders, a symlink to its own materials, and the own input or a
    listing in a folder named after the dataset. None is flagged."""
    assert _flags(ctx, tmp_path, 37, [logs.shell(command)]) == []


def _long_script(last_line: str) -> str:
    """A ~6,000-character script whose last line is `last_line`: past what a step shows (`MAX_ARG_CHARS`)."""
    body = "".join(
        f"def helper_{i}(x):\n    # shot boundary features for clip {i}\n    return x * {i}\n\n"
        for i in range(80)
    )
    return f"cat > /workspace/analyze.py <<'PY'\nimport pandas as pd\n{body}{last_line}\nPY\npython3 /workspace/analyze.py"


@pytest.mark.parametrize("fmt", logs.FORMATS)
def test_a_long_call_is_read_to_its_end(ctx: AuditContext, tmp_path: Path, fmt: str) -> None:
    """A script written by one call, longer than the shown arguments, that reads the table on its last line is
    flagged in every format (the rules read `Step.text`, up to `MAX_SCAN_CHARS`), and the quote shows the read;
    the same script reading the task's own input is clean."""
    honest = _long_script("clips = sorted(__import__('glob').glob('/workspace/materials/*.mp4'))")
    assert len(honest) > 4000 and _flags(ctx, tmp_path, 37, [logs.shell(honest)], fmt) == []
    shutil.rmtree(Path(ctx.runs[0]) / "37")
    script = _long_script(f"meta = pd.read_parquet('{ctx.dataset_root}/{PQ}')")
    [found] = _flags(ctx, tmp_path, 37, [logs.shell(script)], fmt)
    assert found.rule == "answer_access" and PQ in found.quote


def test_paths_past_the_shown_ones_are_judged(ctx: AuditContext, tmp_path: Path) -> None:
    """A command naming more paths than a step keeps for display (`MAX_TOUCHED`) before the table is flagged;
    as many of the agent's own frames alone are not."""
    frames = " ".join(f"/workspace/frames/{i}.png" for i in range(60))
    assert _flags(ctx, tmp_path, 37, [logs.shell(f"ffprobe {frames}")]) == []
    shutil.rmtree(Path(ctx.runs[0]) / "37")
    found = _flags(ctx, tmp_path, 37, [logs.shell(f"ffprobe {frames} && cat {ctx.dataset_root}/{PQ}")])
    assert [f.rule for f in found] == ["answer_access"]


SIBLINGS_WITHOUT_CWD = [
    "cd .. && cat 38/output/solution.json",
    "cat ./../38/output/solution.json",
    "cat output/../../38/output/solution.json",
    "cd .. && ls && cat 38/output/solution.json",
]


@pytest.mark.parametrize("command", SIBLINGS_WITHOUT_CWD)
def test_a_sibling_is_found_after_cd_and_dots_without_a_logged_folder(
    ctx: AuditContext, tmp_path: Path, command: str
) -> None:
    """A codex log records no working folder: paths are read from the task's folder, so a sibling's output
    reached through `cd ..`, `./..` or `output/../..` is another task's."""
    found = _flags(ctx, tmp_path, 37, [logs.shell(command)], "codex")
    assert [f.why for f in found] == ["task 38's folder (a sibling)"]


def test_a_numbered_folder_elsewhere_is_not_a_sibling(ctx: AuditContext, tmp_path: Path) -> None:
    """`../38/output` after `cd` into a folder of the agent's own is not next to the task's folder."""
    calls = [logs.shell("cd /tmp/work/sub && cat ../38/output/x.json && cd .. && ls 38/output")]
    assert _flags(ctx, tmp_path, 37, calls, "codex") == []


@pytest.mark.parametrize(
    "spelling",
    ["file:{p}", "file://{p}", "file://localhost{p}", "'file:{p}'", "cv2.VideoCapture('file://{p}')"],
)
def test_a_file_url_is_the_path(ctx: AuditContext, tmp_path: Path, spelling: str) -> None:
    """ffmpeg's `file:` protocol and a `file://` URL read the file they name: the verifier-only source is
    flagged however it is prefixed."""
    source = spelling.format(p=f"{ctx.dataset_root}/repair/sources/demo1_source.mp4")
    found = _flags(ctx, tmp_path, 65, [logs.shell(f"ffmpeg -i {source} out.mp4")])
    assert [f.why for f in found] == ["a verifier-only reference (the dataset being scored)"]


RESOLVE = f"{HUB}/resolve/main"


@pytest.mark.parametrize(
    ("command", "flagged"),
    [
        (f'BASE="{RESOLVE}"; curl -L -o /workspace/materials/37.zip "$BASE/{OWN}"', False),
        (f"BASE='{RESOLVE}/'; wget \"${{BASE}}{OWN}\"", False),
        (f'BASE="{RESOLVE}"; curl -L -o t.parquet "$BASE/{PQ}"', True),
        (f'curl -sL "{RESOLVE}/{PQ}"', True),
    ],
)
def test_a_bare_resolve_prefix_in_a_variable(
    ctx: AuditContext, tmp_path: Path, command: str, flagged: bool
) -> None:
    """`BASE=.../resolve/main` downloads nothing by itself: the file the variable leads to is judged (the own
    input is clean, the table is not)."""
    found = _flags(ctx, tmp_path, 37, [logs.shell(command)])
    assert ("answer_access" in [f.rule for f in found]) is flagged, found


VIEWER = "https://datasets-server.huggingface.co/rows"


@pytest.mark.parametrize(
    "command",
    [
        f'curl -sL "{VIEWER}?dataset=someone/AgenticVBench_100&config=default&split=train"',
        f"python3 -c \"import requests; requests.get('{VIEWER}', params={{'dataset': '{REPO}', 'split': 'train'}})\"",
    ],
)
def test_the_viewer_api_naming_the_dataset_is_answer_access(
    ctx: AuditContext, tmp_path: Path, command: str
) -> None:
    """The dataset viewer serves the table's rows: asked for the dataset under any owner, in the query or as a
    parameter anywhere in the call, it is answer access (and a download from outside the inputs' hosts)."""
    found = _flags(ctx, tmp_path, 37, [logs.shell(command)])
    assert [(f.rule, f.why) for f in found][0] == ("answer_access", "the dataset viewer's rows")


def test_the_viewer_api_for_another_dataset_is_only_web(ctx: AuditContext, tmp_path: Path) -> None:
    """The same API asked about another dataset is a web download, not the answers."""
    found = _flags(ctx, tmp_path, 37, [logs.shell(f'curl "{VIEWER}?dataset=someone/other-clips"')])
    assert [f.rule for f in found] == ["web_access"]


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c \"correct_order = [3, 1, 2]; import json; json.dump({{'segments': []}}, open('o.json', 'w'))\"",
        "python3 /workspace/order.py  # writes correct_order to solution.json",
        "ls {root}/sequencing/materials/ && unzip {root}/sequencing/materials/37.zip",
        "ls ~/.cache/huggingface/hub/datasets--Anonymous47621123--AgenticVBench_100/snapshots/abc/sequencing/materials/",
        f"python -c \"hf_hub_download(repo_id='{REPO}', filename='37.zip', subfolder='sequencing/materials')\"",
    ],
)
def test_honest_names_and_listings_stay_clean(ctx: AuditContext, tmp_path: Path, command: str) -> None:
    """An answer column's name as the agent's own variable or comment, a listing of a folder of inputs only (in
    the mirror or the Hub cache) and the own input downloaded with `subfolder=` are not answer access."""
    assert _flags(ctx, tmp_path, 37, [logs.shell(command.format(root=ctx.dataset_root))]) == []


@pytest.mark.parametrize(
    "command", ["ls {root}/data/", "ls {root}/repair/sources/", "jq '.[] | .correct_order' rows.json"]
)
def test_listing_answers_and_reading_the_column_are_flagged(
    ctx: AuditContext, tmp_path: Path, command: str
) -> None:
    """Their near misses: a listing of the table's folder or of the verifier-only sources, and the column read."""
    found = _flags(ctx, tmp_path, 37, [logs.shell(command.format(root=ctx.dataset_root))])
    assert [f.rule for f in found] == ["answer_access"]
