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
from collections.abc import Mapping
from urllib.parse import unquote

MAX_TOUCHED = 50  # paths and URLs a step keeps for display; the rules read every mention (`shell_paths`)
_URL = re.compile(r"(?i)\b(?:https?|ftp|s3|gs|hf)://[^\s'\"<>()\[\]{}`|\\^]+")
_BARE_HUB = re.compile(r"(?i)(?<![\w./-])(?:www\.)?(?:huggingface\.co|hf\.co)/[^\s'\"<>()\[\]{}`|\\^]+")
#: `file:` / `file://` / `file://localhost` before a path (ffmpeg's protocol, a `file:///` URL): the path is read.
_FILE_SCHEME = re.compile(r"(?i)(?<![\w.+-])file:(?://(?:localhost)?(?=/))?")
_TOKEN = re.compile(r"[^\s'\"`;|&<>(){}\[\],=]+")
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


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def mentions(text: str) -> tuple[list[tuple[int, str]], list[str]]:
    """(offset, path) of every place a path is named in `text` (URL escapes decoded; offsets into the decoded
    text), in order, and every URL, in order. A path is a token with a `/` or starting with `~` (a quoted one may
    hold spaces: kept whole, and split too); a `file:` prefix is dropped. Linear in the text."""
    text = decoded(text)
    urls = [m.group(0).rstrip(_TRAILING) for m in _URL.finditer(text)]
    urls += ["https://" + m.group(0).rstrip(_TRAILING) for m in _BARE_HUB.finditer(text)]
    rest = _FILE_SCHEME.sub(_blank, _BARE_HUB.sub(_blank, _URL.sub(_blank, text)))
    found: list[tuple[int, str]] = []
    for m in _QUOTED.finditer(rest):
        group = 1 if m.group(1) is not None else 2
        inner = m.group(group)
        quoted = inner.strip()
        if "/" in quoted and not any(c in quoted for c in "'\"`;|&<>(){}[],="):
            found.append((m.start(group) + len(inner) - len(inner.lstrip()), quoted))
    for m in _TOKEN.finditer(rest):
        token = m.group(0)
        token = token if token.endswith(("/..", "/.")) else token.rstrip(_TRAILING)
        if len(token) > 1 and ("/" in token or token.startswith("~")) and "://" not in token:
            found.append((m.start(), token))
    found.sort(key=lambda x: x[0])
    return found, urls


def touched(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(paths, URLs) named in `text` for display (`mentions`), each at most `MAX_TOUCHED`, first mention first."""
    found, urls = mentions(text)
    return _unique([p for _, p in found]), _unique(urls)


def _unique(items: list[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        if len(seen) >= MAX_TOUCHED:
            break
        seen.setdefault(item[:1000], None)
    return tuple(seen)


def normalise_path(
    path: str,
    *,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    links: Mapping[str, str] | None = None,
) -> str:
    """A path as the agent's shell would see it, without touching the disk: `~` and `$VAR` / `${VAR}` expanded
    from `env` (default: this process's environment), joined to `cwd` when relative and a `cwd` is known, `.` and
    `..` resolved, repeated slashes folded; a `file:` / `file://` prefix dropped. `links` (absolute link ->
    absolute target) are followed where they occur, before the `..` after them, as the kernel does: with
    `/x/d -> /m/mirror`, `/x/d/../mirror/f` is `/m/mirror/f`, not `/x/mirror/f`."""
    env = dict(os.environ) if env is None else env
    path = decoded(path)
    if m := _FILE_SCHEME.match(path):
        path = path[m.end() :]
    if path == "~" or path.startswith("~/"):
        home = env.get("HOME") or os.path.expanduser("~")
        path = home + path[1:]
    path = _VAR.sub(lambda m: env.get(m.group(1) or m.group(2) or "", m.group(0)), path)
    if cwd and not path.startswith("/"):
        path = posixpath.join(cwd, path)
    if links:
        return through_links(path, links)
    norm = posixpath.normpath(path)
    return "/" + norm.lstrip("/") if norm.startswith("//") else norm


MAX_LINK_HOPS = 8  # symlinks followed within one path; a longer chain is read lexically from there on


def through_links(path: str, links: Mapping[str, str]) -> str:
    """`path` read as the kernel reads it, without touching the disk: component by component, `.` and `..`
    resolved, and a prefix that is a link in `links` replaced by its target, whose own components are read the
    same way (so a link to a linked folder is followed), before the components after it; at most
    `MAX_LINK_HOPS` links per path. A relative path stays relative (its leading `..` kept), as
    `posixpath.normpath` leaves it."""
    root = "/" if path.startswith("/") else ""
    prefixes = [root]  # prefixes[i]: the folder after i components
    todo = path.split("/")[::-1]  # the components still to read, the next one last
    hops = 0
    while todo:
        part = todo.pop()
        if part in ("", "."):
            continue
        if part == ".." and len(prefixes) > 1 and posixpath.basename(prefixes[-1]) != "..":
            prefixes.pop()
            continue
        if part == ".." and prefixes[0]:
            continue  # `/..` is `/`
        here = posixpath.join(prefixes[-1], part) if prefixes[-1] else part
        target = links.get(here) if hops < MAX_LINK_HOPS and part != ".." else None
        if target is None:
            prefixes.append(here)
            continue
        hops += 1
        prefixes = ["/" if target.startswith("/") else ""]
        todo.extend(target.split("/")[::-1])
    return prefixes[-1] or "."


_ARG = r"('[^'\n]*'|\"[^\"\n]*\"|[^\s;&|()'\"]+)"
#: `cd DIR` / `pushd DIR` at the start of a shell command (or of a quoted one: `bash -lc "cd .."`), and Python's
#: `os.chdir('DIR')`.
_CD = re.compile(
    r"(?:^|(?<=[\s;&|(='\"]))(?:cd|pushd)\s+(?:--\s+)?" + _ARG + r"|\bos\.chdir\(\s*[rf]?" + _ARG
)
#: `ln -s TARGET LINK`: a later `LINK/...` is `TARGET/...`.
_LINK = re.compile(
    r"(?:^|(?<=[\s;&|(='\"]))ln\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*s[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*"
    + _ARG
    + r"\s+"
    + _ARG
)
#: `VAR=VALUE` / `export VAR=VALUE`: a later `$VAR` in a path is VALUE.
#: Zero-width, so that `command=D=/x` (a flattened arguments object) still sets D.
_SET = re.compile(r"(?:^|(?<=[\s;&|(='\"]))(?=(?:export\s+)?([A-Za-z_]\w*)=" + _ARG + ")")
MAX_OCCURRENCES = 8  # places per path where the working folder is worked out
PATH_MAX = 4096  # Linux's: the longest path a call can name to open a file
MAX_LINKS = 64  # symlinks of one command followed (the latest ones)


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
    """The working folder, symlinks and variables of one command, advanced change by change. A folder, link or
    value longer than `PATH_MAX` is not followed (no call can open such a path), nor more than the latest
    `MAX_LINKS` symlinks: so a long command costs time linear in its length."""

    def __init__(
        self, cwd: str | None, env: dict[str, str] | None, given: Mapping[str, str] | None = None
    ) -> None:
        self.here = cwd
        self.given = dict(given or {})  # links known before the command (a folder given through a symlink)
        self.links: dict[str, str] = {}  # link -> target, normalised, oldest first (at most `MAX_LINKS`)
        self.scope = dict(os.environ if env is None else env)

    def _norm(self, raw: str, cwd: str | None) -> str:
        return normalise_path(raw, cwd=cwd, env=self.scope, links={**self.given, **self.links})

    def apply(self, kind: str, first: str, second: str) -> None:
        """Apply one change from `_changes`."""
        if kind == "cd":
            here = self._norm(first, self.here)
            self.here = here if len(here) <= PATH_MAX else self.here
        elif kind == "ln":
            link = normalise_path(second, cwd=self.here, env=self.scope)  # the link itself is not followed
            target = self._norm(first, self.here)
            if len(link) <= PATH_MAX and len(target) <= PATH_MAX:
                self.links.pop(link, None)
                self.links[link] = target
                if len(self.links) > MAX_LINKS:
                    del self.links[next(iter(self.links))]
        else:
            value = normalise_path(second, env=self.scope) if second else ""
            if len(value) <= PATH_MAX:
                self.scope[first] = value
            else:
                self.scope.pop(first, None)

    def resolve(self, raw: str) -> str:
        """`raw` as this shell reads it: normalised, through the symlinks it passes."""
        return self._norm(raw, self.here)


def shell_paths(
    text: str,
    *,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    places: list[tuple[int, str]] | None = None,
    links: Mapping[str, str] | None = None,
) -> list[tuple[str, str]]:
    """(path as written, normalised) for every path named in the command `text` (`mentions`: all of them, not
    only the step's displayed `MAX_TOUCHED`), following the folder changes, symlinks and variables set earlier in
    the same command: a path after `cd DIR` (`pushd`, `os.chdir`) is joined to DIR, one under `LINK/` after
    `ln -s TARGET LINK` (or under a link of `links`, known before the command) is read under TARGET, `..` after a
    link leaving the target, and `$VAR` after `VAR=VALUE` is VALUE. Each place a path is named
    (at most `MAX_OCCURRENCES`) gives its own normalised form; `cwd` is the log's working folder. One walk over
    the command: linear in its changes and paths. `places` is `mentions(text)`'s first part, when at hand."""
    places = mentions(text)[0] if places is None else places
    changes = iter(_changes(decoded(text)))
    shell, pending = _Shell(cwd, env, links), next(changes, None)
    seen: dict[str, int] = {}
    found: dict[tuple[str, str], None] = {}
    for start, raw in places:
        if seen.get(raw, 0) >= MAX_OCCURRENCES:
            continue
        seen[raw] = seen.get(raw, 0) + 1
        while pending is not None and pending[0] <= start:
            shell.apply(*pending[1:])
            pending = next(changes, None)
        found.setdefault((raw, shell.resolve(raw)), None)
    return list(found)


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
