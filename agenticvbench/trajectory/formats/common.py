"""Helpers the format readers share: field access on untrusted JSON and the grounding-metadata probe."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from agenticvbench.trajectory.model import MAX_STEPS, Step, make_step, with_result

#: Keys under which providers return web grounding (Gemini's `groundingMetadata` with `webSearchQueries` and
#: `groundingChunks`; OpenAI's `url_citation` annotations): a model answer that carries one used the web.
GROUNDING_KEYS = frozenset(
    {
        "groundingMetadata",
        "grounding_metadata",
        "webSearchQueries",
        "web_search_queries",
        "groundingChunks",
        "grounding_chunks",
        "url_citation",
    }
)
_PROBE_BUDGET = 2000


def get(obj: Any, *keys: str) -> Any:
    """`obj[k1][k2]...` when every level is an object, else None."""
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def text_of(value: Any) -> str:
    """The text of a message content: a string, or the `text` of its parts (`[{"type": "text", "text": ...}]`)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(
            p["text"] for p in value[:200] if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return ""


def has_grounding(obj: Any) -> bool:
    """Whether a parsed value holds a grounding key (`GROUNDING_KEYS`) or a `url_citation` annotation anywhere,
    looking at no more than `_PROBE_BUDGET` values (iterative: no recursion)."""
    stack = [obj]
    seen = 0
    while stack and seen < _PROBE_BUDGET:
        v = stack.pop()
        seen += 1
        if isinstance(v, dict):
            if GROUNDING_KEYS.intersection(v) or v.get("type") == "url_citation":
                return True
            stack.extend(x for x in v.values() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            stack.extend(x for x in v[:200] if isinstance(x, (dict, list)))
    return False


def lines_of(head: bytes) -> list[bytes]:
    """The complete lines of a file's head (the last, possibly cut, line dropped when the head ends mid-line)."""
    lines = head.split(b"\n")
    if not head.endswith(b"\n"):
        lines = lines[:-1] if len(lines) > 1 else lines
    return [ln.strip() for ln in lines[:50] if ln.strip()]


def head_objects(head: bytes) -> Iterator[dict[str, Any]]:
    """The JSON objects among the complete lines of a file's head (`lines_of`); other lines are passed over."""
    for raw in lines_of(head):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict):
            yield obj


class StepBuilder:
    """Steps in log order, with results paired to their calls by id."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.calls: dict[str, int] = {}

    def add(self, step_id: Any, **kw: Any) -> None:
        """Append a step (`make_step` keywords); a call id lets a later result find it."""
        if len(self.steps) >= MAX_STEPS:
            return
        if isinstance(step_id, str) and step_id:
            self.calls[step_id] = len(self.steps)
        self.steps.append(make_step(len(self.steps), **kw))

    def result(self, call_id: Any, content: Any, error: Any, time: Any) -> None:
        """Pair a result with the call of that id, or keep it as a `tool` step when there is none."""
        text = content if isinstance(content, str) else text_of(content) or content
        i = self.calls.get(call_id) if isinstance(call_id, str) else None
        if i is None:
            self.add(None, role="tool", result=text, error=error, time=time)
        else:
            self.steps[i] = with_result(self.steps[i], text, error)

    def add_block(
        self,
        block: dict[str, Any],
        calls: frozenset[str],
        arguments: str,
        time: Any,
        tokens: Any,
        grounded: bool,
    ) -> bool:
        """Add the step of one assistant content block: a tool call (its `type` in `calls`, with `id`, `name` and
        its arguments under the key `arguments`) or a non-blank `text` block; whether it was one of these."""
        kind = block.get("type")
        if isinstance(kind, str) and kind in calls:
            name = block.get("name") if isinstance(block.get("name"), str) else "unnamed"
            self.add(
                block.get("id"),
                role="agent",
                tool=name,
                arguments=block.get(arguments),
                time=time,
                tokens=tokens,
                grounded=grounded,
            )
            return True
        if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            self.add(None, role="agent", arguments=block["text"], time=time, tokens=tokens, grounded=grounded)
            return True
        return False
