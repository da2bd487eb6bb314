"""The one disclosure policy: what a page of `avb view` may show, per class of material.

A local server shows everything (`LOCAL`): the operator looks at their own run. A published bundle (`published`)
withholds every class below unless the operator opts in (`--show-rubric`, `--show-answers`): the rubric and the
answers are public in the dataset, but a published page should not hand them to the next agent, and the other
classes are never public anywhere. Pages ask the policy (`Site.policy`) and never decide on their own; `scrub`
is the one pass over every page of a bundle that removes this machine's paths.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, fields

#: Each class of material, and why a published page withholds it by default.
CLASSES: dict[str, str] = {
    "answers": "the correct orders, expected clips and gold defect windows, the marks derived from them, and what "
    "a trajectory's steps say after a flagged answer read (`view.taint`)",
    "solved_outputs": "what a run submitted for a task it solved exactly (its output files, the text of its "
    "trajectory's steps, which write them, and the URLs and paths its flagged steps named and the detail of their "
    "flags' why, which can carry it), and any step of another task naming its folder: that submission is the "
    "task's answer",
    "rubric": "the recap rubric's item ids, pillars, weights, thresholds and the checks' reasons that quote them",
    "verifier_derived": "anything derived from verifier-only files: their hashes, series split by the gold window",
    "repair_outputs": "repair output videos: a good fix reproduces the verifier-only source video",
    "local_paths": "absolute paths of the machine the bundle was built on",
    "flagged_steps": "what a trajectory step the audit flagged sent and received (the call's text, its result, a "
    "named URL's query and fragment): it can quote answer material; the step's tool, its flags and the URLs "
    "(scheme, host, path) and paths it named stay (but see `solved_outputs`); a task whose result counts findings "
    "it does not locate loses every step's text",
}


@dataclass(frozen=True, kw_only=True)
class Disclosure:
    """One switch per class of `CLASSES`: True shows that material."""

    answers: bool
    solved_outputs: bool
    rubric: bool
    verifier_derived: bool
    repair_outputs: bool
    local_paths: bool
    flagged_steps: bool

    def withheld(self) -> list[str]:
        """The classes this policy withholds, in `CLASSES` order."""
        return [f.name for f in fields(self) if not getattr(self, f.name)]


#: A local server's policy: every class shown.
LOCAL = Disclosure(**dict.fromkeys(CLASSES, True))


def published(*, rubric: bool = False, answers: bool = False) -> Disclosure:
    """The policy of a bundle: everything withheld, but the rubric (`rubric`) and the answers with the solved
    tasks' submissions (`answers`) when the operator opts in."""
    shown = {"answers": answers, "solved_outputs": answers, "rubric": rubric}
    return Disclosure(**{**dict.fromkeys(CLASSES, False), **shown})


def spellings(path: str, given: Iterable[str] = ()) -> list[str]:
    """The absolute spellings of folder `path` a page can show: itself, its resolved form, and its spelling through
    each of `given` (the folders as the operator typed them: a symlink, a relative path) that is it, holds it, or
    lies inside it."""
    real = os.path.realpath(path)
    out = [os.path.abspath(path), real]
    for g in given:
        typed, r = os.path.abspath(g), os.path.realpath(g)
        if r == real or real.startswith(r.rstrip("/") + "/"):
            out.append(os.path.normpath(os.path.join(typed, os.path.relpath(real, r))))
        elif r.startswith(real.rstrip("/") + "/"):
            for _ in range(os.path.relpath(r, real).count("/") + 1):
                typed = os.path.dirname(typed)
            out.append(typed)
    return [p for p in dict.fromkeys(out) if p != "/"]


#: A separator as a page can spell it: `/`, `//`, `/./` (a few repeats at most: the match stays linear).
_SEP = r"/(?:\.?/){0,8}"
_AFTER = r"(?=[/\\\"'<\s&)\],;:]|$)"


def scrub(text: str, roots: Iterable[tuple[str, str]]) -> str:
    """`text` (a rendered page) with every absolute path under one of `roots` ((path, placeholder) pairs, most
    specific first) replaced by its placeholder, in plain and HTML-escaped spelling, and any other absolute path
    under the user's home folder shown from `~`. A path is matched with its separators spelled `//` or `/./`
    too (`/w/./run//38` is under `/w/run`). A path cut short on the page (`trajectory.model.cap` ends it with
    "...") inside one of them, past its first folder, becomes the placeholder too ("[dataset]..."): a cut can
    fall before the separator the whole path needs. Placeholders hold no markup character (`[run 1]`), so the
    pass reads the same before or after HTML escaping."""
    home = os.path.expanduser("~")
    pairs = sorted(((os.path.abspath(p), ph) for p, ph in roots if p), key=lambda x: -len(x[0]))
    if home not in ("/", "") and os.path.isabs(home):
        pairs.append((home, "~"))
    for path, placeholder in pairs:
        for spelled in {path, html.escape(path), html.escape(path, quote=False)}:
            pattern = _SEP.join(re.escape(part) for part in spelled.split("/")) + _AFTER
            text = re.sub(pattern, placeholder.replace("\\", "\\\\"), text)
    return _cut_roots(text, pairs)


_CUT = "..."  # where `trajectory.model.cap` cut a text
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.~/-")


def _cut_roots(text: str, pairs: list[tuple[str, str]]) -> str:
    """`text` with each absolute path cut short (ending in `_CUT`) that is the start of one of `pairs`' paths,
    past its first folder, replaced by that path's placeholder (the cut kept)."""
    spellings = [(s, ph) for p, ph in pairs for s in {p, html.escape(p), html.escape(p, quote=False)}]
    longest = max((len(s) for s, _ in spellings), default=0)
    out: list[str] = []
    done = 0
    at = text.find(_CUT)
    while at >= 0 and longest:
        lo = max(done, at - longest)
        slash = text.find("/", lo, at)
        while slash >= 0:
            cut = text[slash:at]
            bounded = slash == 0 or text[slash - 1] not in _PATH_CHARS
            hit = next((ph for s, ph in spellings if s.startswith(cut)), None) if bounded else None
            if hit is not None and "/" in cut[1:-1]:
                out += [text[done:slash], hit]
                done = at
                break
            slash = text.find("/", slash + 1, at)
        at = text.find(_CUT, at + len(_CUT))
    return "".join(out) + text[done:]
