"""Verdict parsing: only JSON booleans decide (D-C1 fixed); unreadable replies are `unscored`, never fails."""

from __future__ import annotations

import pytest

from agenticvbench.judge.verdict import parse_verdict, strip_fences


@pytest.mark.parametrize(
    "reply, outcome",
    [
        ('{"pass": true, "reason": "title card present"}', "pass"),
        ('{"pass": false, "reason": "no title"}', "fail"),
        ('```json\n{"pass": true, "reason": "ok"}\n```', "pass"),
        ('```\n{"pass": false, "reason": "x"}\n```', "fail"),
        ('Verdict: {"pass": false, "reason": "too long"} -- done', "fail"),
        ("Yes.", "pass"),
        ("no", "fail"),
        ("No, the credits are missing.", "fail"),
    ],
)
def test_decisive_replies(reply: str, outcome: str) -> None:
    assert parse_verdict(reply).outcome == outcome


@pytest.mark.parametrize(
    "reply",
    [
        '{"pass": "false", "reason": "string"}',
        '{"pass": "true"}',
        '{"pass": 1}',
        '{"pass": null}',
        '{"verdict": true}',
        '{"pass": true} and also {"pass": false}',
        "No - well, yes, mostly",
        "The video looks fine overall.",
        "",
        None,
        '{"pass": tru',
    ],
)
def test_unscored_replies(reply: str | None) -> None:
    """D-C1: upstream's bool(obj["pass"]) passed the string "false"; anything not a JSON boolean is unscored."""
    v = parse_verdict(reply)
    assert v.outcome == "unscored"
    assert v.reason


def test_reason_is_kept() -> None:
    v = parse_verdict('{"pass": false, "reason": "the recap runs 95 s, limit 60 s"}')
    assert (v.outcome, v.reason) == ("fail", "the recap runs 95 s, limit 60 s")


def test_strip_fences() -> None:
    assert strip_fences("```json\n{}\n```  ") == "{}"
    assert strip_fences("  plain ") == "plain"
