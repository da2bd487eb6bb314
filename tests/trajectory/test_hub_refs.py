"""Where a call points into the dataset repository: URLs with `..`, escapes, `.git` or `@revision`; paths through
a folder named after it; and Hub calls judged file by file, pattern by pattern."""

from __future__ import annotations

import pytest
from traj_logs import HUB, REPO

from agenticvbench.trajectory.context import AuditContext
from agenticvbench.trajectory.hub_refs import hub_call_verdicts, hub_tail, path_tail, repo_segment


def test_repo_segment_matches_any_case_git_and_revision_only() -> None:
    """The repository's name matches with `.git` or `@rev` glued on, in any case; a longer name does not."""
    ctx = AuditContext(repos=frozenset({REPO.lower()}), inputs={}, hosts={}, references=frozenset())
    assert all(
        repo_segment(s, ctx) for s in ("AgenticVBench_100", "agenticvbench_100.git", "AgenticVBench_100@v1")
    )
    assert not any(repo_segment(s, ctx) for s in ("AgenticVBench_1000", "AgenticVBench_100_work", "git"))


@pytest.mark.parametrize(
    ("url", "tail"),
    [
        (f"{HUB}/resolve/main/sequencing/materials/37/../../../data/t.parquet", "data/t.parquet"),
        (f"{HUB}/resolve/main/a/%2e%2e/b//./c.mp4", "b/c.mp4"),
        (f"{HUB}.git", ""),
        (f"hf://datasets/{REPO}@main/data/t.parquet", "data/t.parquet"),
        ("https://hf.co/datasets/someone/AgenticVBench_100/resolve/refs%2Fpr%2F1/x.zip", "x.zip"),
        ("https://huggingface.co/datasets/someone/AgenticVBench_1000/resolve/main/data/t.parquet", None),
        ("https://example.com/a/../AgenticVBench_100_notes/x", None),
    ],
)
def test_hub_tail_normalises_the_url_path(ctx: AuditContext, url: str, tail: str | None) -> None:
    """The part after the repository, with `..`, `.`, `//` and escapes resolved and `resolve/<rev>` dropped;
    None for a repository of another name."""
    assert hub_tail(url, ctx) == tail


def test_path_tail_is_below_a_folder_named_after_the_repository(ctx: AuditContext) -> None:
    """`/x/AgenticVBench_100/data/t.parquet` leads to `data/t.parquet`; a folder of another name to None."""
    assert path_tail("/x/AgenticVBench_100/data/t.parquet", ctx) == "data/t.parquet"
    assert path_tail("/x/AgenticVBench_100_work/data/t.parquet", ctx) is None


def _verdicts(text: str, ctx: AuditContext) -> list[str]:
    return [rule for rule, _, _ in hub_call_verdicts(text, 37, ctx, cwd="/w", env={})]


@pytest.mark.parametrize(
    "text",
    [
        f"hf download {REPO} sequencing/materials/37.zip data/t.parquet",
        f"hf download {REPO} --include '*.parquet'",
        f"hf download {REPO} --include '*'",
        f"hf download {REPO} README.md",
        "huggingface-cli download Someone/agenticvbench_100 --repo-type dataset",
        f"python -c \"snapshot_download(repo_id='{REPO}', allow_patterns=['sequencing/materials/37.zip', 'data/*'])\"",
        f"python -c \"from datasets import load_dataset as ld; ld('{REPO}')\"",
        f"R={REPO}; hf download $R --repo-type dataset",
        "git clone https://huggingface.co/datasets/someone/AgenticVBench_100.git",
        "cd /w/AgenticVBench_100 && git lfs pull",
    ],
)
def test_a_hub_call_reaching_beyond_the_own_input_is_answer_access(ctx: AuditContext, text: str) -> None:
    """Anything named next to the own input, a wildcard that can match the table, another file of the
    repository, a whole-repository download (under any owner, through an alias or a variable) and a git clone
    or LFS pull of the repository are answer access."""
    assert "answer_access" in _verdicts(text, ctx)


def test_a_pattern_reaching_another_task_is_foreign(ctx: AuditContext) -> None:
    """`sequencing/*` matches task 38's zip: another task's input, not the table."""
    assert _verdicts(f"hf download {REPO} --include 'sequencing/*'", ctx) == ["foreign_task"]


@pytest.mark.parametrize(
    "text",
    [
        f"hf download {REPO} sequencing/materials/37.zip --local-dir data --cache-dir /x/t.parquet",
        f"hf download {REPO} --include 'sequencing/materials/37*' --repo-type dataset",
        f"python -c \"hf_hub_download(repo_id='{REPO}', filename='sequencing/materials/37.zip', local_dir=Path('data'))\"",
        f"python -c \"p = hf_hub_download('{REPO}', 'sequencing/materials/37.zip'); print(p, 'data/t.parquet')\"",
        "hf download someone/other-clips data/t.parquet",
        "git clone https://github.com/someone/tool && cd tool && git pull",
        f"echo 'notes on {REPO}' > notes.txt",
    ],
)
def test_the_own_input_and_other_repositories_are_not_judged(ctx: AuditContext, text: str) -> None:
    """The own input alone (local folders and caches dropped, a pattern matching only it, text outside the call),
    another repository's download and git outside the dataset give no verdict."""
    assert _verdicts(text, ctx) == []


def test_a_bare_resolve_prefix_names_nothing(ctx: AuditContext) -> None:
    """`.../resolve/main` (a prefix kept in a variable) fetches nothing by itself; the repository's pages
    (`tree/main`, the repository itself) still lead to it."""
    assert hub_tail(f"{HUB}/resolve/main", ctx) is None
    assert hub_tail(f"{HUB}/raw/main/", ctx) is None
    assert hub_tail(f"{HUB}/tree/main", ctx) == ""
    assert hub_tail(HUB, ctx) == ""


def test_the_viewer_query_names_the_dataset_under_any_owner(ctx: AuditContext) -> None:
    """`?dataset=<owner>/AgenticVBench_100` is the dataset whoever owns the copy; another name is not."""
    rows = "https://datasets-server.huggingface.co/rows?dataset="
    assert hub_tail(f"{rows}someone/AgenticVBench_100&split=train", ctx) == ""
    assert hub_tail(f"{rows}someone/other-clips&split=train", ctx) is None


def test_a_subfolder_is_joined_to_the_file_name(ctx: AuditContext) -> None:
    """`hf_hub_download(filename=..., subfolder=...)` fetches `subfolder/filename`: the own input so spelled is
    clean, the table so spelled is answer access."""
    own = f"python -c \"hf_hub_download(repo_id='{REPO}', filename='37.zip', subfolder='sequencing/materials', repo_type='dataset')\""
    table = f"python -c \"hf_hub_download('{REPO}', 'train-00000-of-00001.parquet', subfolder='data')\""
    assert _verdicts(own, ctx) == []
    assert _verdicts(table, ctx) == ["answer_access"]
