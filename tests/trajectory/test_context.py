"""What the audit knows about the dataset: which places in it are answers (`AuditContext.classify`), which
spellings of its folders lead to them (`AuditContext.resolved`), and when an answer column is read
(`answer_field`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenticvbench.trajectory.context import REPO_WHY, AuditContext, _aliases, answer_field


@pytest.mark.parametrize(
    "call",
    [
        "df['correct_order']",
        'row.get("rubric_json")',
        "print(r.correct_order)",
        "jq .verifier_reference_urls t.json",
        "pq.read_table(f, columns=['task_id', 'correct_order'])",
        'duckdb -c "SELECT task_id, correct_order FROM t"',
        'python -c \\"print(d[\\"correct_order\\"])\\"',
    ],
)
def test_reading_an_answer_column_is_found(call: str) -> None:
    """The column named as a string, after a `.` or selected in SQL is read."""
    assert answer_field(call, "") is not None


@pytest.mark.parametrize(
    "call",
    [
        "python3 -c \"correct_order = [3, 1, 2, 6, 4, 5]; json.dump({}, open('o.json', 'w'))\"",
        "python3 /workspace/order.py  # writes correct_order to solution.json",
        "my_correct_order = sorted(clips); print(my_correct_order)",
        "print(correct_order_guess)",
    ],
)
def test_a_name_the_agent_chose_is_not_the_column(call: str) -> None:
    """A bare identifier or a comment is the agent's own name: not a read."""
    assert answer_field(call, "") is None


def test_a_result_naming_the_column_is_found() -> None:
    """What a call returned naming the column (a dataframe's header, a column list) means the agent saw it."""
    assert answer_field("python inspect.py", "   task_id  correct_order\n0  37  [3, 1]") == "correct_order"
    assert answer_field("python inspect.py", "ordered 6 clips") is None


@pytest.mark.parametrize(
    "tail", ["sequencing/materials", "recap/materials/", "repair", "sequencing/materials/37"]
)
def test_folders_of_inputs_only_are_not_answers(ctx: AuditContext, tail: str) -> None:
    """A family's folder and its `materials/` hold only inputs: listing them is not answer access."""
    assert ctx.classify(tail, 37) is None


@pytest.mark.parametrize("tail", ["data", "repair/sources", "", "README.md"])
def test_folders_holding_answers_stay_answers(ctx: AuditContext, tail: str) -> None:
    """The table's folder, the verifier-only sources and the repository's root and other files are not."""
    assert ctx.classify(tail, 37) is not None


def test_the_why_never_carries_the_tail(ctx: AuditContext) -> None:
    """A place of the repository is named by its kind: the agent's text (which could spell an answer) is not
    copied into the why."""
    assert ctx.classify("notes/order-3-1-2-6-4-5.txt", 37) == ("answer_access", REPO_WHY)


def test_a_folder_given_through_a_symlink_is_read_under_both_spellings(tmp_path: Path) -> None:
    """A symlinked spelling of the mirror leads to the resolved mirror; a spelling that does not lead there
    (a symlinked parquet's own folder) is not an alias."""
    real = tmp_path / "real" / "mirror"
    (real / "data").mkdir(parents=True)
    (real / "data" / "t.parquet").write_bytes(b"")
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "t.parquet").symlink_to(real / "data" / "t.parquet")
    aliases = _aliases(
        [(tmp_path / "link", str(real)), (tmp_path / "elsewhere", str(real)), (real, str(real))]
    )
    assert aliases == ((os.path.abspath(tmp_path / "link"), str(real)),)
    ctx = AuditContext(repos=frozenset(), inputs={}, hosts={}, references=frozenset(), aliases=aliases)
    assert ctx.resolved(f"{tmp_path}/link/data/t.parquet") == f"{real}/data/t.parquet"
    assert ctx.resolved(f"{tmp_path}/linked/x") == f"{tmp_path}/linked/x"
