"""The steps a bundle withholds beyond the flagged ones (`view/taint.py`): everything after a flagged answer read
(and every result without its call in that log), and everything from a step naming another task's folder of the
run, whatever the audit said of them."""

from __future__ import annotations

import time

from agenticvbench.trajectory.model import Step, make_step
from agenticvbench.view.taint import Taint


def _log() -> list[Step]:
    """A read of the dataset's table (step 1, flagged by the audit), a message quoting what it read, and a result
    whose call id matches nothing (an orphan), with an orphan before the read too."""
    return [
        make_step(0, role="tool", result="ORPHAN before"),
        make_step(
            1, role="agent", tool="Bash", arguments={"command": "python read_table.py"}, result="RUBRIC"
        ),
        make_step(2, role="agent", arguments="the rubric says RUBRIC"),
        make_step(3, role="tool", result="ORPHAN RUBRIC"),
    ]


def test_steps_after_an_answer_read_are_withheld() -> None:
    """A message quoting the table and an orphan result were published in full, since the audit judges neither:
    every step after the read is withheld with the reason, and so is an orphan result before it."""
    out = Taint(answers=True).reasons(_log(), [1])
    assert set(out) == {0, 2, 3}
    assert "after step 1's flagged answer read" in out[2] and "after step 1" in out[3]
    assert "a result without its call" in out[0]
    assert Taint().reasons(_log(), [1]) == {}  # a local page or --show-answers: nothing more withheld
    assert Taint(answers=True).reasons(_log(), []) == {}  # no answer read: nothing


def _shell(i: int, cmd: str, result: str = "ok") -> Step:
    return make_step(i, role="agent", tool="Bash", arguments={"command": cmd}, result=result)


def test_a_step_naming_another_tasks_folder_is_withheld() -> None:
    """Task 38's agent printed solved task 37's solution (`cd .. && cat 37/output/solution.json`) and the audit
    did not flag it: the step and every later one are withheld; a step before it stays."""
    taint = Taint(others=frozenset({1, 37}))
    steps = [
        _shell(0, "ls"),
        _shell(1, "cd .. && cat 37/output/solution.json", "[4, 1, 6]"),
        _shell(2, "cat x"),
    ]
    out = taint.reasons(steps, [])
    assert set(out) == {1, 2} and "task 37's folder" in out[1] and "after step 1" in out[2]
    assert Taint().reasons(steps, []) == {}


def test_every_spelling_of_another_tasks_folder() -> None:
    """`../37`, `37/output` in a result, the run's own path with `//`; not a ratio, not `37/outputs`, not a task
    the run does not hold, not a folder that only ends in the id."""
    taint = Taint(others=frozenset({37}), roots=("/w/run",))
    named = ["cat ../37/solution.json", "ls /w/run//37", "x=/w/run/37"]
    for text in named:
        assert taint.foreign([text]) == 37, text
    assert taint.foreign(["ls", "done: wrote 37/output/solution.json"]) == 37
    for text in ["fps=37/1", "cat 37/outputs/a", "cat run37/output/a", "cat ../99/output", "cat ../370"]:
        assert taint.foreign([text]) is None, text


def test_the_search_is_bounded_on_hostile_text() -> None:
    """A long result of digits and slashes is searched in linear time."""
    taint = Taint(others=frozenset({37}), roots=("/w/run",))
    hostile = "1/" * 200_000 + "../" * 100_000 + "/w/run/" * 50_000
    started = time.perf_counter()
    assert taint.foreign([hostile]) is None
    assert time.perf_counter() - started < 2
