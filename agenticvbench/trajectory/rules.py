"""The audit's rules: each looks at one step of a task's trajectory and names what it found.

- `answer_access`: the call names the benchmark's answer material: the dataset repository
  (`Anonymous47621123/AgenticVBench_100`, or a repository of that name under any owner: a mirror) in any URL form
  (`huggingface.co/datasets/...`, `hf.co/...`, `resolve/<rev>/...`, `hf://datasets/...@<rev>`, `.git`, the
  dataset viewer and API, `datasets-server` asked about it), in a Hub CLI, Python or git call (`hub_refs`:
  cleared only when every file and pattern it names is the task's own input), as a Hub cache folder
  (`datasets--<owner>--<name>`) or a folder named after it (its table, verifier-only references and other tasks'
  inputs); the dataset being scored (its local mirror or parquet); any `avb-results` folder; the scorer's cache
  ($AVB_CACHE); the repair ground truth shipped with this package; or an answer column (`correct_order`,
  `rubric_json`, `verifier_reference_urls`) read by the call (`context.answer_field`: named as a string, after a
  `.`, in a SQL select; not a bare identifier) or named in what it returned. The task's own inputs (the files of
  its `reference_file_urls`, zips extracted) are fine, wherever they are read from.
- `web_access`: a web search or fetch tool (WebSearch, WebFetch, web_search, browser tools, ...), an answer
  carrying a provider's grounding metadata, or a download (curl, wget, pip download, git clone, requests, urllib,
  httpx, ...) from a host that is not one of the task's input hosts (nor loopback).
- `foreign_task`: another task's inputs (in the repository, a mirror or the cache), another task's folder of a
  run being audited (or the same task's folder of another run), a sibling task's outputs (`../38/solution.json`,
  `../38/output/`, judged after `cd`s and `..` from the log's folder, else from `TASK_HOME`), or another task's
  Harbor name (`sequencing-038`).

Only tool calls are judged (what the agent did, not what it wrote in prose), and grounding on any agent step.
A call is read whole (`Step.text`, not the shown `Step.arguments`), every path and URL it names (`Call`).
Paths are normalised first (`extract.normalise_path`: quotes, `~`, `$HOME`, `$AVB_CACHE`, `..`, URL escapes,
`file:`), followed through the `cd`s, `ln -s` and variables set earlier in the same command
(`extract.shell_paths`), and a folder the audit was given through a symlink is read where it leads
(`AuditContext.resolved`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from agenticvbench.dataset.tasks import OUTPUT_FILES
from agenticvbench.trajectory.context import LOOPBACK, REPO_WHY, AuditContext, answer_field
from agenticvbench.trajectory.extract import mentions, shell_paths
from agenticvbench.trajectory.hub_refs import hub_call_verdicts, hub_tail, path_tail, viewer_call
from agenticvbench.trajectory.model import Step

_DOWNLOAD = re.compile(
    r"\b(?:curl|wget|aria2c|yt-dlp|youtube-dl|lynx|w3m|httpie)\b|\bpip3?\s+download\b|\bgit\s+clone\b"
    r"|\brequests\.(?:get|post|request|Session)\b|\burllib\.request\b|\burlopen\s*\(|\bhttpx\.\w+\s*\("
    r"|\bhttp\.client\b|\baiohttp\b|\bInvoke-WebRequest\b|\bfetch\s*\(\s*['\"]https?:"
)
_NO_URL_DOWNLOAD = re.compile(r"\bpip3?\s+download\b|\bgit\s+clone\b")
_WEB_TOOL_PARTS = (
    "websearch",
    "web_search",
    "webfetch",
    "web_fetch",
    "google_search",
    "browser",
    "playwright",
    "puppeteer",
    "fetch_url",
    "url_fetch",
    "http_request",
    "browse",
)
_WEB_TOOL_NAMES = frozenset({"fetch", "open_url", "search_web", "grounding"})
_TASK_NAME = re.compile(r"(?:^|/)(recap|sequencing|repair|assembly)-0*([0-9]{1,3})(?:/|$)")
_HUB_CACHE = re.compile(r"datasets--([^/]+)--([^/]+)(/.*)?$")
_SIBLING = re.compile(r"0*([0-9]{1,3})/([^/]+)")
#: The task's folder when the log records no working folder (codex): a relative path is read from it, so
#: `cd .. && cat 38/output/x` is a sibling's. Not a path anyone writes (a NUL byte).
TASK_HOME = "/\0task/\0here"
#: What a sibling folder `../<id>/...` must lead to before it counts as another task's (an agent's own numbered
#: folders, `frames/1/`, would otherwise look like task folders): its `output/` or an output file.
_TASK_FILES = frozenset({"output", *(name for names in OUTPUT_FILES.values() for name in names)})


@dataclass(frozen=True)
class Hit:
    """One thing a rule found in a step: the rule's name, why, and the text that matched (for the quote)."""

    rule: str
    why: str
    needle: str


@dataclass(frozen=True, kw_only=True)
class Call:
    """One step as the rules read it: its full text (`Step.text`), every path it names (as written, normalised
    as the shell sees it, through the audit's symlinked folders) and every URL, worked out once."""

    step: Step
    text: str
    paths: tuple[tuple[str, str], ...]
    urls: tuple[str, ...]
    cwd: str | None  # the log's working folder (None: not recorded)
    home: str  # the folder relative paths were read from: `cwd`, else `TASK_HOME`

    @classmethod
    def of(cls, step: Step, cwd: str | None, ctx: AuditContext) -> Call:
        """The call of `step`, its paths read from `cwd` (or `TASK_HOME`) with the audit's environment."""
        text = step.text or step.arguments
        home = cwd or TASK_HOME
        places, urls = mentions(text)
        named = shell_paths(text, cwd=home, env=ctx.env, places=places, links=dict(ctx.aliases))
        paths = tuple(dict.fromkeys(named))  # the given spellings (`ctx.aliases`) already followed
        return cls(step=step, text=text, paths=paths, urls=tuple(urls), cwd=cwd, home=home)


RuleFn = Callable[[Call, int, AuditContext, str], Iterator[Hit]]


def _under(path: str, folder: str | None) -> str | None:
    """The part of `path` below `folder` ('' for the folder itself), or None when it is not inside it."""
    if not folder:
        return None
    if path == folder:
        return ""
    return path[len(folder) + 1 :] if path.startswith(folder.rstrip("/") + "/") else None


def _hub_url_hits(call: Call, task: int, ctx: AuditContext, rule: str) -> Iterator[Hit]:
    """Hits of `rule` for the call's URLs into the dataset repository whose file `ctx.classify` puts under it."""
    for url in call.urls:
        tail = hub_tail(url, ctx)
        if tail is not None and (found := ctx.classify(tail, task)) and found[0] == rule:
            yield Hit(rule, found[1], url)


def _hub_call_hits(call: Call, task: int, ctx: AuditContext, rule: str) -> Iterator[Hit]:
    """Hits of `rule` for the call's Hub and git calls into the dataset repository (`hub_refs`)."""
    for found, why, needle in hub_call_verdicts(call.text, task, ctx, cwd=call.cwd, env=ctx.env):
        if found == rule:
            yield Hit(rule, why, needle)


def _copy_hit(path: str, raw: str, task: int, ctx: AuditContext, rule: str) -> Hit | None:
    """A hit of `rule` for a path through a folder named after the dataset repository (a copy of it, reached
    from anywhere: `AgenticVBench_100/data/t.parquet`), for the table, a verifier-only reference or another
    task's input; the rest of such a folder is not judged (a folder of that name may be the agent's own)."""
    tail = path_tail(path, ctx)
    found = ctx.classify(tail, task) if tail else None
    if found and found[0] == rule and not found[1].startswith(REPO_WHY):
        return Hit(rule, f"{found[1]} (a copy of the dataset)", raw)
    return None


def answer_access(call: Call, task: int, ctx: AuditContext, run: str) -> Iterator[Hit]:
    """The rule `answer_access` (module docstring)."""
    if viewer := viewer_call(call.text, call.urls, ctx):
        yield Hit("answer_access", "the dataset viewer's rows", viewer)
    yield from _hub_url_hits(call, task, ctx, "answer_access")
    for raw, path in call.paths:
        m = _HUB_CACHE.search(path) if "datasets--" in path else None
        if m and (f"{m.group(1)}/{m.group(2)}".lower() in ctx.repos or m.group(2).lower() in ctx.repo_names):
            cached = re.sub(r"^/?snapshots/[^/]+", "", m.group(3) or "")
            found = (
                ctx.classify(cached, task)
                if cached or m.group(3) is None
                else ("answer_access", "the Hub cache")
            )
            if found and found[0] == "answer_access":
                yield Hit("answer_access", found[1] + " (Hub cache)", raw)
            continue
        if ctx.parquet and path == ctx.parquet:
            yield Hit("answer_access", "the parquet being scored", raw)
            continue
        tail = _under(path, ctx.dataset_root)
        if tail is not None:
            found = ctx.classify(tail, task)
            if found and found[0] == "answer_access":
                yield Hit("answer_access", found[1] + " (the dataset being scored)", raw)
            continue
        tail = _under(path, ctx.cache_dir)
        if tail is not None:
            found = (
                ctx.classify(tail, task)
                if tail.startswith("materials/")
                else ("answer_access", "the scorer's cache")
            )
            if found and found[0] == "answer_access":
                yield Hit("answer_access", found[1], raw)
            continue
        if "avb-results" in path.split("/"):
            yield Hit("answer_access", "a results folder (avb-results)", raw)
        elif _under(path, ctx.ground_truth) is not None or "ground_truth/repair" in path:
            yield Hit("answer_access", "the repair ground truth", raw)
        elif hit := _copy_hit(path, raw, task, ctx, "answer_access"):
            yield hit
    yield from _hub_call_hits(call, task, ctx, "answer_access")
    if field := answer_field(call.text, call.step.result):
        yield Hit("answer_access", f"the answer column {field}", field)


def web_access(call: Call, task: int, ctx: AuditContext, run: str) -> Iterator[Hit]:
    """The rule `web_access` (module docstring)."""
    step = call.step
    if step.grounded:
        yield Hit("web_access", "the answer carries web grounding metadata", "")
    if step.tool is None:
        return
    name = re.sub(r"[^a-z0-9]+", "_", step.tool.lower()).strip("_")
    if (
        name in _WEB_TOOL_NAMES
        or any(p in name for p in _WEB_TOOL_PARTS)
        or name.replace("_", "") in ("websearch",)
    ):
        yield Hit("web_access", f"a web tool ({step.tool})", step.tool)
        return
    m = _DOWNLOAD.search(call.text)
    if not m:
        return
    allowed = ctx.hosts.get(task, frozenset()) | LOOPBACK
    outside = [u for u in call.urls if (urlsplit(u).hostname or "").lower() not in allowed]
    if outside:
        yield Hit("web_access", f"a download from {urlsplit(outside[0]).hostname}", outside[0])
    elif not call.urls and (n := _NO_URL_DOWNLOAD.search(call.text)):
        yield Hit("web_access", f"a download ({n.group(0)})", n.group(0))


def foreign_task(call: Call, task: int, ctx: AuditContext, run: str) -> Iterator[Hit]:
    """The rule `foreign_task` (module docstring)."""
    yield from _hub_url_hits(call, task, ctx, "foreign_task")
    yield from _hub_call_hits(call, task, ctx, "foreign_task")
    parent = call.home.rsplit("/", 1)[0] + "/"  # a sibling task's folder is `parent/<id>/`
    for raw, path in call.paths:
        if hit := _copy_hit(path, raw, task, ctx, "foreign_task"):
            yield hit
        for anchor in (ctx.dataset_root, ctx.cache_dir):
            tail = _under(path, anchor)
            if tail is not None and (found := ctx.classify(tail, task)) and found[0] == "foreign_task":
                yield Hit("foreign_task", found[1], raw)
        for folder in ctx.runs:
            tail = _under(path, folder)
            head = tail.split("/", 1)[0] if tail else ""
            if head.isascii() and head.isdigit() and (int(head) != task or folder != run):
                where = "" if folder == run else f" of run {folder.rsplit('/', 1)[-1]}"
                yield Hit("foreign_task", f"task {int(head)}'s folder{where}", raw)
        m = _SIBLING.match(path[len(parent) :]) if path.startswith(parent) else None
        if (
            m
            and int(m.group(1)) != task
            and int(m.group(1)) in ctx.inputs
            and (m.group(2) or "") in _TASK_FILES
        ):
            yield Hit("foreign_task", f"task {int(m.group(1))}'s folder (a sibling)", raw)
        m = _TASK_NAME.search(path)
        if m and int(m.group(2)) != task and int(m.group(2)) in ctx.inputs:
            yield Hit("foreign_task", f"task {int(m.group(2))} ({m.group(1)}-{int(m.group(2)):03d})", raw)


#: name -> (what it flags, the rule); `avb audit` runs them all, in this order.
RULES: dict[str, tuple[str, RuleFn]] = {
    "answer_access": (
        "reached the benchmark's answers (dataset table, verifier-only references, results, "
        "the scorer's cache)",
        answer_access,
    ),
    "web_access": (
        "used the web: a search or fetch tool, grounding, or a download from outside the task's input hosts",
        web_access,
    ),
    "foreign_task": ("read another task's inputs, folder or outputs", foreign_task),
}


def hits(step: Step, task: int, ctx: AuditContext, cwd: str | None, run: str) -> list[Hit]:
    """Every rule's hits on one step (tool calls only; grounding on any agent step), at most one per rule."""
    if step.role != "agent" or (step.tool is None and not step.grounded):
        return []
    call = Call.of(step, cwd, ctx)
    out: list[Hit] = []
    for _, fn in RULES.values():
        first = next(iter(fn(call, task, ctx, run)), None)
        if first is not None:
            out.append(first)
    return out
