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
        token = token if token.endswith(("/..", "/.")) else token.rstrip(_TRAILING)
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


_ARG = r"('[^'\n]*'|\"[^\"\n]*\"|[^\s;&|()'\"]+)"
#: `cd DIR` / `pushd DIR` at the start of a shell command, and Python's `os.chdir('DIR')`.
_CD = re.compile(r"(?:^|(?<=[\s;&|(=]))(?:cd|pushd)\s+(?:--\s+)?" + _ARG + r"|\bos\.chdir\(\s*[rf]?" + _ARG)
#: `ln -s TARGET LINK`: a later `LINK/...` is `TARGET/...`.
_LINK = re.compile(
    r"(?:^|(?<=[\s;&|(=]))ln\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*s[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*"
    + _ARG
    + r"\s+"
    + _ARG
)
#: `VAR=VALUE` / `export VAR=VALUE`: a later `$VAR` in a path is VALUE.
#: Zero-width, so that `command=D=/x` (a flattened arguments object) still sets D.
_SET = re.compile(r"(?:^|(?<=[\s;&|(=]))(?=(?:export\s+)?([A-Za-z_]\w*)=" + _ARG + ")")
MAX_OCCURRENCES = 8  # places per path where the working folder is worked out


def _unquote(arg: str) -> str:
    return arg[1:-1] if len(arg) > 1 and arg[0] == arg[-1] and arg[0] in "'\"" else arg


def _changes(text: str) -> list[tuple[int, str, str, str]]:
    """(end, kind, first, second) of each `cd` ("cd", DIR, ""), `ln -s` ("ln", TARGET, LINK) and assignment
    ("set", NAME, VALUE) in `text`, in order."""
    found = [(m.end(), "cd", _unquote(m.group(1) or m.group(2)), "") for m in _CD.finditer(text)]
    found += [(m.end(), "ln", _unquote(m.group(1)), _unquote(m.group(2))) for m in _LINK.finditer(text)]
    found += [(m.end(2), "set", m.group(1), _unquote(m.group(2))) for m in _SET.finditer(text)]
    return sorted(found)


class _Shell:
    """The working folder, symlinks and variables of one command, advanced change by change."""

    def __init__(self, cwd: str | None, env: dict[str, str] | None) -> None:
        self.here = cwd
        self.links: list[tuple[str, str]] = []  # (link, target), normalised
        self.scope = dict(os.environ if env is None else env)

    def apply(self, kind: str, first: str, second: str) -> None:
        """Apply one change from `_changes`."""
        if kind == "cd":
            self.here = normalise_path(first, cwd=self.here, env=self.scope)
        elif kind == "ln":
            link = normalise_path(second, cwd=self.here, env=self.scope)
            self.links.append((link, normalise_path(first, cwd=self.here, env=self.scope)))
        else:
            self.scope[first] = normalise_path(second, env=self.scope) if second else ""

    def resolve(self, raw: str) -> str:
        """`raw` as this shell reads it: normalised, then through the latest symlink it lies under."""
        path = normalise_path(raw, cwd=self.here, env=self.scope)
        for link, target in reversed(self.links):
            if path == link or path.startswith(link.rstrip("/") + "/"):
                return target + path[len(link) :]
        return path


def shell_paths(
    text: str, paths: tuple[str, ...], *, cwd: str | None = None, env: dict[str, str] | None = None
) -> list[tuple[str, str]]:
    """(path as written, normalised) for each of `paths` named in the command `text`, following the folder
    changes, symlinks and variables set earlier in the same command: a path after `cd DIR` (`pushd`,
    `os.chdir`) is joined to DIR, one under `LINK/` after `ln -s TARGET LINK` is read under TARGET, and `$VAR`
    after `VAR=VALUE` is VALUE. Each place a path is named (at most `MAX_OCCURRENCES`) gives its own normalised
    form; `cwd` is the log's working folder. One walk over the command: linear in its changes and paths."""
    text = decoded(text)
    changes = iter(_changes(text))
    places = sorted(
        (start, i, raw)
        for i, raw in enumerate(paths)
        for start in ([m.start() for m in re.finditer(re.escape(raw), text)][:MAX_OCCURRENCES] or [len(text)])
    )
    shell, pending = _Shell(cwd, env), next(changes, None)
    found: dict[int, dict[str, None]] = {i: {} for i in range(len(paths))}
    for start, i, raw in places:
        while pending is not None and pending[0] <= start:
            shell.apply(*pending[1:])
            pending = next(changes, None)
        found[i].setdefault(shell.resolve(raw), None)
    return list(dict.fromkeys((raw, path) for i, raw in enumerate(paths) for path in found[i]))


def folders_at(
    text: str, offsets: list[int], *, cwd: str | None = None, env: dict[str, str] | None = None
) -> list[str | None]:
    """The working folder at each of `offsets` (ascending) of the command `text` (decoded), after its earlier
    `cd`s: one walk over the command."""
    shell, out = _Shell(cwd, env), []
    changes = iter(_changes(decoded(text)))
    pending = next(changes, None)
    for pos in offsets:
        while pending is not None and pending[0] <= pos:
            shell.apply(*pending[1:])
            pending = next(changes, None)
        out.append(shell.here)
    return out
