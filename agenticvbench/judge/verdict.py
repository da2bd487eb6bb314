"""Parse a judge reply into pass / fail / unscored (D-C1 fixed).

Upstream took `bool(obj["pass"])`, so the string `"false"` passed, and anything it could not read failed. Here:

1. Leading/trailing code fences (```` ```json ... ``` ````) and whitespace are stripped.
2. Every JSON object in the reply that has a `"pass"` key is read (the whole reply, or objects embedded in
   prose). Only the JSON boolean `true` passes and only `false` fails; a string (`"false"`, `"yes"`), a number
   or null is `unscored`. Two objects that disagree are `unscored`.
3. With no such object, an unambiguous bare yes/no is accepted: the reply's first word is `yes` (pass) or `no`
   (fail) and the opposite word appears nowhere in it as a whole word ("Yes." passes, "No, ..." fails,
   "No - well, yes" is unscored). This keeps small local models usable without guessing.
4. Anything else is `unscored` (never a fail): the item is excluded from the score and counted, so a judge
   that cannot follow the format shows up as missing coverage instead of a silently lower score.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

Outcome = Literal["pass", "fail", "unscored"]
_FENCE_START = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*")
_FENCE_END = re.compile(r"\s*```\s*$")
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Verdict:
    """One parsed verdict: `outcome` and the judge's reason (or why the reply could not be read)."""

    outcome: Outcome
    reason: str


def strip_fences(text: str) -> str:
    """Remove a leading ```lang fence and a trailing ``` fence, and surrounding whitespace."""
    return _FENCE_END.sub("", _FENCE_START.sub("", text)).strip()


def _objects_with_pass(text: str) -> list[dict]:
    """Every JSON object in `text` (the whole text, or objects embedded in prose) that has a "pass" key."""
    try:
        whole = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        whole = None
    if isinstance(whole, dict):
        return [whole] if "pass" in whole else []
    found: list[dict] = []
    decoder = json.JSONDecoder()
    pos = text.find("{")
    while pos != -1:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            pos = text.find("{", pos + 1)
            continue
        if isinstance(obj, dict) and "pass" in obj:
            found.append(obj)
        pos = text.find("{", end)
    return found


def _bare_yes_no(text: str) -> Outcome | None:
    words = _WORD.findall(text.lower())
    if not words or words[0] not in ("yes", "no"):
        return None
    other = "no" if words[0] == "yes" else "yes"
    if other in words:
        return None
    return "pass" if words[0] == "yes" else "fail"


def parse_verdict(reply: str | None) -> Verdict:
    """Read one judge reply; see the module docstring for the exact rules."""
    if reply is None or not reply.strip():
        return Verdict("unscored", "empty reply from judge")
    text = strip_fences(reply)
    objs = _objects_with_pass(text)
    if objs:
        values = [o["pass"] for o in objs]
        if any(not isinstance(v, bool) for v in values):
            bad = next(v for v in values if not isinstance(v, bool))
            return Verdict(
                "unscored", f"unparseable verdict: 'pass' is {json.dumps(bad)}, not a JSON boolean"
            )
        if len(set(values)) > 1:
            return Verdict("unscored", "unparseable verdict: the reply holds contradictory 'pass' values")
        reason = objs[0].get("reason", "")
        return Verdict(
            "pass" if values[0] else "fail", reason if isinstance(reason, str) else json.dumps(reason)
        )
    bare = _bare_yes_no(text)
    if bare is not None:
        return Verdict(bare, text[:300])
    return Verdict("unscored", f"unparseable verdict: {text[:120]!r}")
