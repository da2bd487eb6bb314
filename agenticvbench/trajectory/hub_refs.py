"""Where a call points into the dataset repository: a URL, a path through a copy of it, or a Hub download.

- `hub_tail`: the part of a URL after the repository it names (`huggingface.co/datasets/<owner>/<name>`, `hf.co`,
  `hf://datasets/<owner>/<name>@<rev>/...`, `<name>.git`, the `resolve/<rev>/` of a file URL dropped), with the
  URL's path decoded and `.`, `..` and `//` resolved first, so `.../materials/37/../../../data/t.parquet` is the
  table it leads to.
- `path_tail`: the same through a local path with a folder named after the repository
  (`/anywhere/AgenticVBench_100/data/t.parquet`).
- `hub_call_verdicts`: a Hub call (`hf download`, `huggingface-cli download`, `hf_hub_download`,
  `snapshot_download`, `load_dataset`, `HfFileSystem`, `hf_hub_url`, or `git clone` / `git lfs pull` / `git pull`)
  naming the repository, under any owner: every file or pattern it names is judged, and the call is fine only
  when each is the task's own input. A call naming nothing fetches the whole repository.

The repository's name is matched under any owner (a mirror), in any case, with `.git` or `@<revision>` glued on.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from fnmatch import fnmatchcase
from urllib.parse import parse_qs, urlsplit

from agenticvbench.trajectory.context import AuditContext
from agenticvbench.trajectory.extract import decoded, folders_at

_HUB_KINDS = frozenset({"resolve", "blob", "raw", "tree"})
_FILE_KINDS = frozenset({"resolve", "raw"})
#: The dataset viewer's API: it serves the table's rows, whatever the path.
VIEWER_HOST = "datasets-server.huggingface.co"
_HUB_CALL = re.compile(
    r"\b(?:hf|huggingface-cli)\s+download\b|\bhf_hub_download\b|\bsnapshot_download\b|\bload_dataset\b"
    r"|\bHfFileSystem\b|\bhf_hub_url\b"
)
_GIT_CALL = re.compile(r"\bgit\s+(?:clone|pull|fetch|checkout|lfs\s+(?:pull|fetch|checkout|clone))\b")
_PY_CALLS = ("hf_hub_download", "snapshot_download", "load_dataset", "hf_hub_url", "HfFileSystem")
_ALIAS = re.compile(r"\b(?:" + "|".join(_PY_CALLS) + r")\s+as\s+(\w+)")
#: Values that name a local place or a secret, not something in the repository: dropped before items are read.
_LOCAL_OPTION = re.compile(
    r"--(?:local-dir|cache-dir|token)(?:=|\s+)(?:'[^'\n]*'|\"[^\"\n]*\"|\S+)"
    r"|\b(?:local_dir|cache_dir|token|ignore_patterns)\s*=\s*"
    r"(?:[rfb]?'[^'\n]*'|[rfb]?\"[^\"\n]*\"|\[[^\]]*\]|[\w.]+(?:\([^()]*\))?)"
    r"|--exclude(?:=|\s+)(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s-]\S*)"
)
_SUBFOLDER = re.compile(r"\bsubfolder\s*=\s*[rfb]?(?:'([^'\"\n]*)'|\"([^'\"\n]*)\")")
_LITERAL = re.compile(r"'([^'\"\n]*)'|\"([^'\"\n]*)\"")
_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
_WORDS = re.compile(r"[\s,()\[\]{}=;&|<>`]+")
_GLOB = re.compile(r"[*?\[]")
#: Extensions that make a bare word (no `/`) a file name in a Hub call.
_FILE_EXT = re.compile(
    r"(?i)\.(?:parquet|arrow|jsonl?|csv|tsv|zip|tar|gz|mp4|mov|mkv|webm|wav|mp3|md|txt|ya?ml)$"
)
_PROBES = (
    "data/train-00000-of-00001.parquet",
    "data/x.parquet",
    "x.parquet",
    "repair/sources/x.mp4",
    "README.md",
)
MAX_ITEMS = 64  # files and patterns judged per call


def repo_segment(segment: str, ctx: AuditContext, names: frozenset[str] | None = None) -> bool:
    """Whether one path segment names the dataset repository (any case, `.git` or `@<revision>` glued on);
    `names` is `ctx.repo_names`, when the caller has it at hand."""
    name = segment.split("@", 1)[0].lower()
    name = name[: -len(".git")] if name.endswith(".git") else name
    return name in (ctx.repo_names if names is None else names)


def _tail(segs: list[str], ctx: AuditContext, *, url: bool = False) -> str | None:
    """The segments after the one naming the repository, joined (a Hub URL's kind and revision dropped); for a
    `url`, None when a file URL (`resolve/<rev>`, `raw/<rev>`) names no file: the prefix alone fetches nothing."""
    names = ctx.repo_names
    joined = "/".join(segs).lower()
    if not any(n in joined for n in names):  # a cheap test first: paths can be deep
        return None
    for i, seg in enumerate(segs):
        if repo_segment(seg, ctx, names):
            rest = segs[i + 1 :]
            kind = rest[0] if rest and rest[0] in _HUB_KINDS and len(rest) > 1 else ""
            if kind:
                rest = rest[4:] if rest[1] == "refs" else rest[2:]
            return None if url and not rest and kind in _FILE_KINDS else "/".join(rest)
    return None


def _segments(path: str) -> list[str]:
    norm = posixpath.normpath("/" + decoded(path))
    return [s for s in norm.split("/") if s]


def hub_tail(url: str, ctx: AuditContext) -> str | None:
    """The part of a URL after a dataset repository it names (the kind and revision dropped for Hub file URLs),
    '' for the repository's own pages and for a query naming it (`?dataset=<owner>/<name>`, any owner), None
    when the URL names no dataset repository (nor a file of it: a bare `.../resolve/main` prefix)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    if any(_is_id(v, ctx) for v in query.get("dataset", []) + query.get("repo_id", [])):
        return ""
    path = f"{parts.netloc}/{parts.path}" if parts.scheme == "hf" else parts.path
    return _tail(_segments(path), ctx, url=True)


def viewer_call(text: str, urls: Sequence[str], ctx: AuditContext) -> str | None:
    """The dataset viewer's URL when a call sends it a request naming the repository anywhere in the call (a
    `params={'dataset': ...}` argument), or None."""
    viewer = next((u for u in urls if (urlsplit(u).hostname or "").lower() == VIEWER_HOST), None)
    return viewer if viewer is not None and _mentions(decoded(text), ctx) else None


def path_tail(path: str, ctx: AuditContext) -> str | None:
    """The part of a (normalised) local path below a folder named after the dataset repository, or None."""
    low = decoded(path).lower()
    if not any(n in low for n in ctx.repo_names):  # the cheap test first: most paths are not near it
        return None
    return _tail(_segments(path), ctx)


def _mentions(text: str, ctx: AuditContext) -> bool:
    names = ctx.repo_names
    return any(n in text.lower() for n in names) and any(
        repo_segment(s, ctx, names) for s in re.split(r"[^\w.@-]+", text) if s
    )


def _split(text: str) -> list[tuple[int, str]]:
    """(offset, text) of each simple command: split at `&&`, `||`, `;`, `|` and new lines outside quotes and
    brackets (a Python call spread over lines stays whole)."""
    out: list[tuple[int, str]] = []
    start = depth = 0
    quote = ""
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and c in ";|&\n":
            out.append((start, text[start:i]))
            start = i + 1
        i += 1
    out.append((start, text[start:]))
    return [(o, s) for o, s in out if s.strip()]


def _extents(segment: str, names: tuple[str, ...]) -> list[str]:
    """The argument lists of the Python calls to `names` in `segment` (brackets balanced, quotes skipped)."""
    out: list[str] = []
    for m in re.finditer(r"\b(?:" + "|".join(map(re.escape, names)) + r")\s*\(", segment):
        depth, quote, i = 1, "", m.end()
        while i < len(segment) and depth:
            c = segment[i]
            if quote:
                quote = "" if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
        out.append(segment[m.end() : i])
    return out


def _items(region: str, ctx: AuditContext) -> list[str]:
    """The file names, patterns and URLs a call region names: its string literals, and its bare words holding a
    `/`, a wildcard or a file extension; local places (`--local-dir`, `cache_dir=`, ...) and exclusions dropped.
    A `subfolder=` (`hf_hub_download`'s) is joined before each name that is not a URL, a local place or the
    repository's id, as the Hub client joins it."""
    region = _LOCAL_OPTION.sub(" ", region)
    sub = _SUBFOLDER.search(region)
    region = _SUBFOLDER.sub(" ", region)
    found = [m.group(1) or m.group(2) or "" for m in _LITERAL.finditer(region)]
    words = _WORDS.split(_QUOTED.sub(" ", region))
    found += [w for w in words if "/" in w or _GLOB.search(w) or _FILE_EXT.search(w)]
    keep = [f.strip() for f in found if f.strip() and ("/" in f or _GLOB.search(f) or "." in f)]
    if sub is not None and (folder := (sub.group(1) or sub.group(2) or "").strip("/")):
        keep = [
            k if "://" in k or k.startswith(("/", "~", "$")) or _is_id(k, ctx) else f"{folder}/{k}"
            for k in keep
        ]
    return list(dict.fromkeys(keep))[:MAX_ITEMS]


def _pattern(pattern: str, task: int, ctx: AuditContext) -> tuple[str, str] | None:
    """What a download pattern (`fnmatch`, as the Hub client applies it) reaches: None when it matches the
    task's own inputs and none of the answer material or other tasks' inputs probed."""
    pattern = pattern + "*" if pattern.endswith("/") else pattern
    own = [p for r in ctx.inputs.get(task, ()) for p in (r, r.removesuffix(".zip") + "/x")]
    others = [
        p
        for t, rels in ctx.inputs.items()
        if t != task
        for r in rels
        for p in (r, r.removesuffix(".zip") + "/x")
    ]
    for probe in (*_PROBES, *sorted(ctx.references), *others):
        if fnmatchcase(probe, pattern):
            found = ctx.classify(probe, task)
            if found:
                return found[0], f"{found[1]} (a download pattern)"
    if any(fnmatchcase(p, pattern) for p in own):
        return None
    return "answer_access", "the dataset repository (a download pattern)"


def _judge(item: str, task: int, ctx: AuditContext) -> tuple[bool, tuple[str, str] | None]:
    """(whether `item` names something inside the dataset repository, what it reaches: None for the task's own
    input). The repository's id, a local place and a URL of another site name nothing inside it."""
    tail = hub_tail(item, ctx) if "://" in item else path_tail(item, ctx)
    if tail is None:
        if "://" in item or item.startswith(("/", "~", "$")):
            return False, None
        tail = posixpath.normpath(decoded(item))
    elif not tail:
        return False, None
    return True, _pattern(tail, task, ctx) if _GLOB.search(tail) else ctx.classify(tail, task)


def _is_id(token: str, ctx: AuditContext) -> bool:
    """Whether `token` is a repository id `owner/name` naming the dataset (a repository in a variable)."""
    segs = token.strip().split("/")
    return len(segs) == 2 and all(segs) and repo_segment(segs[1], ctx)


def hub_call_verdicts(
    text: str, task: int, ctx: AuditContext, *, cwd: str | None = None, env: dict[str, str] | None = None
) -> Iterator[tuple[str, str, str]]:
    """(rule, why, the text that matched) for each Hub or git call of `text` that reaches anything of the dataset
    repository but the task's own inputs (module docstring)."""
    text = decoded(text)
    if not _mentions(text, ctx):
        return
    aliases = tuple(dict.fromkeys(_ALIAS.findall(text)))
    alias_call = re.compile(r"\b(?:" + "|".join(map(re.escape, aliases)) + r")\s*\(") if aliases else None
    segments = _split(text)
    hub = [(o, s) for o, s in segments if _HUB_CALL.search(s) or (alias_call and alias_call.search(s))]
    named = [(o, s) for o, s in hub if _mentions(s, ctx)]
    tokens = [a or b for a, b in _LITERAL.findall(text)] + _WORDS.split(_QUOTED.sub(" ", text))
    if not named and any(_is_id(t, ctx) for t in tokens):
        named = hub  # the repository's id sits in a variable
    for _, seg in named:
        regions = [r for r in _extents(seg, _PY_CALLS + aliases) if r.strip()]
        if not regions or (_mentions(seg, ctx) and not any(_mentions(r, ctx) for r in regions)):
            regions = [seg]
        judged = [(item, *_judge(item, task, ctx)) for r in regions for item in _items(r, ctx)]
        if not any(inside for _, inside, _ in judged):
            yield "answer_access", "the whole dataset repository (Hub download)", seg.strip()
        for item, _, found in judged:
            if found:
                yield found[0], f"{found[1]} (Hub download)", item
    git = [(o, s) for o, s in segments if _GIT_CALL.search(s)]
    for (_, seg), here in zip(git, folders_at(text, [o for o, _ in git], cwd=cwd, env=env), strict=True):
        if _mentions(seg, ctx) or _mentions(here or "", ctx):
            yield "answer_access", "the whole dataset repository (git)", seg.strip()
