"""The human verdict store: append-only, durable, keyed by the video's hash, and the majority rule."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenticvbench.errors import ConfigError
from agenticvbench.grade.store import HumanVerdict, VerdictStore, majority

SHA = "a" * 64


def v(grader: str, verdict: str, item: str = "I-1", sha: str = SHA, **kw) -> HumanVerdict:
    return HumanVerdict(grader=grader, task_id=3, item_id=item, video_sha256=sha, verdict=verdict, **kw)  # type: ignore[arg-type]


def test_append_only_last_line_wins_and_time_is_recorded(tmp_path: Path) -> None:
    """A grader changing their mind appends a line; the store keeps both and the last one counts."""
    store = VerdictStore(tmp_path)
    store.append(v("alice", "pass"))
    store.append(v("alice", "fail", notes="changed my mind"))
    lines = store.path("alice").read_text().splitlines()
    assert len(lines) == 2
    latest = store.latest("alice")[(3, "I-1", SHA)]
    assert latest.verdict == "fail" and latest.notes == "changed my mind" and latest.time.endswith("+00:00")


def test_torn_last_line_is_skipped_and_next_append_survives(tmp_path: Path) -> None:
    """A crash mid-write leaves a torn line: readers skip it and the next verdict still lands on its own line."""
    store = VerdictStore(tmp_path)
    store.append(v("bob", "pass", item="I-1"))
    with open(store.path("bob"), "ab") as f:
        f.write(b'{"grader": "bob", "task_id": 3, "item')
    store.append(v("bob", "fail", item="I-2"))
    latest = store.latest("bob")
    assert {k[1]: x.verdict for k, x in latest.items()} == {"I-1": "pass", "I-2": "fail"}


def test_changed_video_has_no_verdict(tmp_path: Path) -> None:
    """Verdicts are keyed by the video's SHA-256: another file (another hash) inherits nothing."""
    store = VerdictStore(tmp_path)
    store.append(v("alice", "pass"))
    assert (3, "I-1", "b" * 64) not in store.by_key()


def test_bad_grader_names_and_foreign_files_are_refused(tmp_path: Path) -> None:
    """Grader names become file names, so `../x` is refused; a FIFO in place of a grader file is not read."""
    store = VerdictStore(tmp_path)
    with pytest.raises(ConfigError):
        store.path("../evil")
    os.mkfifo(tmp_path / "carol.jsonl")
    with pytest.raises(ConfigError, match="not a regular file"):
        store.read("carol")


@pytest.mark.parametrize(
    ("votes", "outcome"),
    [
        (["pass", "pass", "fail"], "pass"),
        (["pass", "fail"], "unscored"),
        (["skip"], "unscored"),
        ([], "unscored"),
        (["fail", "skip"], "fail"),
    ],
)
def test_majority(votes: list[str], outcome: str) -> None:
    """Majority of pass/fail across graders; skip is no vote; a tie or no vote is unscored."""
    got = majority({f"g{i}": v(f"g{i}", x) for i, x in enumerate(votes)})
    assert got[0] == outcome
