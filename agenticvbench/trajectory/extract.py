"""The files and URLs a tool call names, pulled out of its argument text (a shell command, a JSON arguments
object flattened to text, a Python snippet).

Matching must survive the ways a call can spell one place: quotes (`'a b'`, `"x"`), URL encoding (`%2F`, `%20`),
a URL without its scheme (`hf.co/datasets/...`), `~`, `$HOME`, `..` (resolved by `normalise_path`). Extraction is
generous (any token with a `/`, or starting with `~` or `.`): the rules decide what a path means, and a token that
is not a path matches nothing.
"""

from __future__ import annotations

import os
import posixpath
import re
from urllib.parse import unquote

MAX_TOUCHED = 50  # paths and URLs kept per step
_URL = re.compile(r"(?i)\b(?:https?|ftp|s3|gs|hf)://[^\s'\"<>()\[\]{}`|\\^]+")
_BARE_HUB = re.compile(r"(?i)(?<![\w./-])(?:www\.)?(?:huggingface\.co|hf\.co)/[^\s'\"<>()\[\]{}`|\\^]+")
_SPLIT = re.compile(r"[\s'\"`;|&<>(){}\[\],=]+")
_TRAILING = ".:!?"
_QUOTED = re.compile(r"'([^'\n]{2,1000})'|\"([^\"\n]{2,1000})\"")
_VAR = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


def decoded(text: str) -> str:
    """`text` with URL escapes decoded (twice at most: `%252F` is `%2F` once more); unchanged without `%`."""
    for _ in range(2):
        if "%" not in text:
            break
        text = unquote(text)
    return text


def touched(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(paths, URLs) named in `text`, each at most `MAX_TOUCHED`, first mention first, URL escapes decoded."""
    text = decoded(text)
    urls: list[str] = []
    for m in _URL.finditer(text):
        urls.append(m.group(0).rstrip(_TRAILING))
    for m in _BARE_HUB.finditer(text):
        urls.append("https://" + m.group(0).rstrip(_TRAILING))
    rest = _BARE_HUB.sub(" ", _URL.sub(" ", text))
    paths: list[str] = []
    for m in _QUOTED.finditer(rest):  # a quoted path may hold spaces: kept whole, as well as split below
        quoted = (m.group(1) or m.group(2) or "").strip()
        if "/" in quoted and not any(c in quoted for c in "'\"`;|&<>(){}[],="):
            paths.append(quoted)
    for token in _SPLIT.split(rest):
        token = token.rstrip(_TRAILING)
        if len(token) > 1 and ("/" in token or token.startswith("~")) and "://" not in token:
            paths.append(token)
    return _unique(paths), _unique(urls)


def _unique(items: list[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        if len(seen) >= MAX_TOUCHED:
            break
        seen.setdefault(item[:1000], None)
    return tuple(seen)


def normalise_path(path: str, *, cwd: str | None = None, env: dict[str, str] | None = None) -> str:
    """A path as the agent's shell would see it, without touching the disk: `~` and `$VAR` / `${VAR}` expanded
    from `env` (default: this process's environment), joined to `cwd` when relative and a `cwd` is known, `.` and
    `..` resolved lexically, repeated slashes folded."""
    env = dict(os.environ) if env is None else env
    path = decoded(path)
    if path == "~" or path.startswith("~/"):
        home = env.get("HOME") or os.path.expanduser("~")
        path = home + path[1:]
    path = _VAR.sub(lambda m: env.get(m.group(1) or m.group(2) or "", m.group(0)), path)
    if cwd and not path.startswith("/"):
        path = posixpath.join(cwd, path)
    norm = posixpath.normpath(path)
    return "/" + norm.lstrip("/") if norm.startswith("//") else norm
