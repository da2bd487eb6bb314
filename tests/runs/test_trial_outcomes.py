"""`run_exclusions`: run.json is the submitter's file, so each kind of inconsistent `excluded` declaration must be
refused with one line naming the file and field, and the task then scored as usual (a missing output is 0).
Without these checks a run could declare the tasks it failed "excluded" and dodge their zeros."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agenticvbench.runs.trial_outcomes import (
    EXCLUDED_TEXT,
    MAX_EXCLUDED,
    MAX_RUN_JSON_BYTES,
    MAX_TRIAL_NAME,
    run_exclusions,
)

INFRA = {"outcome": "infra_failure"}


def _run(tmp_path: Path, excluded: Any, *, policy: Any = "exclude", outcomes: Any = None) -> Path:
    harbor: dict[str, Any] = {
        "infra_policy": policy,
        "excluded": excluded,
        "outcomes": {"66": INFRA} if outcomes is None else outcomes,
    }
    (tmp_path / "run.json").write_text(json.dumps({"harbor": harbor}), encoding="utf-8")
    return tmp_path


def test_a_consistent_declaration_is_excluded(tmp_path: Path) -> None:
    """The one accepted shape: policy exclude, a task id, a trial name, and the recorded infra failure."""
    assert run_exclusions(_run(tmp_path, {"66": "t66__abc"})) == ({66: f"{EXCLUDED_TEXT}: t66__abc"}, [])


@pytest.mark.parametrize(
    ("excluded", "policy", "outcomes", "why"),
    [
        (["66"], "exclude", None, "harbor.excluded is not an object of at most"),
        (
            {str(i): "t" for i in range(MAX_EXCLUDED + 1)},
            "exclude",
            None,
            "harbor.excluded is not an object of at most",
        ),
        ({"66": "t"}, "zero", None, "harbor.infra_policy is not 'exclude'"),
        ({"66": "t"}, None, None, "harbor.infra_policy is not 'exclude'"),
        ({"sixty-six": "t"}, "exclude", None, "harbor.excluded['sixty-six']: not a task id"),
        (
            {"\u0666\u0666": "t"},
            "exclude",
            {"\u0666\u0666": INFRA},
            "not a task id",
        ),  # Arabic-Indic digits: int() takes them
        ({"1234567": "t"}, "exclude", None, "not a task id"),
        ({"66": 66}, "exclude", None, f"the trial name is not a string of 1-{MAX_TRIAL_NAME} printable"),
        ({"66": ""}, "exclude", None, "the trial name is not a string"),
        ({"66": "x" * (MAX_TRIAL_NAME + 1)}, "exclude", None, "the trial name is not a string"),
        ({"66": "t\nforged line"}, "exclude", None, "the trial name is not a string"),
        (
            {"66": "t"},
            "exclude",
            {"66": {"outcome": "agent_error"}},
            "records 'agent_error', not an infrastructure",
        ),
        ({"66": "t"}, "exclude", {}, "records 'None', not an infrastructure failure"),
        ({"66": "t"}, "exclude", {"66": "infra_failure"}, "not an infrastructure failure"),
    ],
)
def test_each_inconsistent_declaration_is_refused_by_name(
    tmp_path: Path, excluded: Any, policy: Any, outcomes: Any, why: str
) -> None:
    run = _run(tmp_path, excluded, policy=policy, outcomes=outcomes)
    got, problems = run_exclusions(run)
    assert got == {}
    assert len(problems) == 1 and problems[0].startswith(f"{run / 'run.json'}: ") and why in problems[0]
    assert "\n" not in problems[0]


def test_one_bad_entry_does_not_void_the_good_ones(tmp_path: Path) -> None:
    """Each entry is judged alone: a forged entry beside a real one is refused, the real one kept."""
    run = _run(
        tmp_path, {"66": "t66", "67": "t67"}, outcomes={"66": INFRA, "67": {"outcome": "agent_timeout"}}
    )
    got, problems = run_exclusions(run)
    assert list(got) == [66] and len(problems) == 1 and "harbor.excluded['67']" in problems[0]


def test_no_declaration_and_unreadable_run_json_exclude_nothing(tmp_path: Path) -> None:
    """Absent, linked, oversized or broken run.json: nothing is excluded (every task is scored as usual)."""
    assert run_exclusions(tmp_path) == ({}, [])
    (tmp_path / "elsewhere").mkdir()
    real = _run(tmp_path / "elsewhere", {"66": "t"})
    link = tmp_path / "linked"
    link.mkdir()
    (link / "run.json").symlink_to(real / "run.json")
    assert run_exclusions(link) == ({}, [])
    big = tmp_path / "big"
    big.mkdir()
    (big / "run.json").write_text(
        json.dumps(
            {
                "harbor": {
                    "infra_policy": "exclude",
                    "excluded": {"66": "t"},
                    "outcomes": {"66": INFRA},
                    "pad": "x" * MAX_RUN_JSON_BYTES,
                }
            }
        )
    )
    assert run_exclusions(big) == ({}, [])
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "run.json").write_bytes(b"\xff{not json")
    assert run_exclusions(broken) == ({}, [])
