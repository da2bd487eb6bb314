"""Find values that look like credentials in a JSON document (used on StudioBench's `mcp.json`).

The protocol says `mcp.json` holds "MCP config (no secrets)". A value is flagged when it carries a well-known
token prefix (OpenAI/Anthropic `sk-`, GitHub `ghp_`, Hugging Face `hf_`, AWS `AKIA`, Google `AIza`, Slack
`xox?-`, GitLab `glpat-`, JWTs, PEM private keys, `Bearer ...`), when its key (or the command-line flag before
it) names a secret (`api_key`, `token`, `secret`, `password`, ...) and it is not a placeholder such as
`${OPENAI_API_KEY}`, or when it is a long random-looking token. Findings never include the value itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agenticvbench.interop.studiobench_task import json_pointer

_PREFIXES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Anthropic API key", re.compile(r"sk-ant-[A-Za-z0-9_-]{16,}")),
    ("OpenAI-style API key", re.compile(r"\bsk-[A-Za-z0-9_-]{16,}")),
    ("GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{20,}")),
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{30,}")),
    ("Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}")),
    ("JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+")),
    ("private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("bearer token", re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=-]{16,}", re.IGNORECASE)),
)
_SECRET_NAME = re.compile(
    r"(api[_-]?key|apikey|access[_-]?key|secret|token|password|passwd|credential|private[_-]?key|"
    r"^-*auth$|^-*authorization$|^-*pwd$)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(
    r"^(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^<>]*>|\*+|x+|redacted|\[redacted\]|none|null|changeme)$",
    re.IGNORECASE,
)
_TOKENISH = re.compile(r"^[A-Za-z0-9_-]{32,}$")
_HEX = re.compile(r"^[0-9a-fA-F]{32,}$")


@dataclass(frozen=True)
class SecretFinding:
    """A value that looks like a secret: where it is (JSON pointer) and why it was flagged."""

    path: str
    kind: str

    def to_dict(self) -> dict[str, str]:
        """`{"path", "message"}` like every other finding in this package."""
        return {"path": self.path, "message": f"looks like a secret ({self.kind}); value not shown"}


def classify_value(value: str, key: str | None = None) -> str | None:
    """Why `value` (found under `key`, or after the flag `key`) looks like a secret; None when it does not."""
    text = value.strip()
    if not text:
        return None
    for kind, rx in _PREFIXES:
        if rx.search(text):
            return kind
    if key is not None and _SECRET_NAME.search(key) and not _PLACEHOLDER.match(text) and not text.isdigit():
        return f"non-placeholder value under a secret-like name {key!r}"
    if _HEX.match(text) or (
        _TOKENISH.match(text)
        and re.search(r"[a-z]", text)
        and re.search(r"[A-Z]", text)
        and re.search(r"[0-9]", text)
    ):
        return "long random-looking token"
    return None


def find_secrets(doc: Any) -> list[SecretFinding]:
    """Every string value of `doc` (a parsed JSON document) that looks like a credential."""
    found: list[SecretFinding] = []

    def walk(node: Any, parts: list[str | int], key: str | None) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, [*parts, k], str(k))
        elif isinstance(node, list):
            prev: str | None = None
            for i, v in enumerate(node):
                flag_key = prev if prev is not None and prev.startswith("-") else key
                if isinstance(v, str) and v.startswith("-") and "=" in v:
                    flag, _, rest = v.partition("=")
                    if kind := classify_value(rest, flag) or classify_value(v):
                        found.append(SecretFinding(json_pointer(*parts, i), kind))
                else:
                    walk(v, [*parts, i], flag_key if isinstance(v, str) and not v.startswith("-") else None)
                prev = v if isinstance(v, str) else None
        elif isinstance(node, str):
            if kind := classify_value(node, key):
                found.append(SecretFinding(json_pointer(*parts), kind))

    walk(doc, [], None)
    return found
