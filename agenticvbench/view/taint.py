"""The steps of a log a bundle withholds beyond the flagged ones, whatever the audit said of them (`view.timeline`
draws them; `steps.row` empties their texts and shows the reason).

The audit judges a step's call and the paths and URLs it names; it never judges the text an agent wrote or a
result the log does not pair with a call. So a bundle without `--show-answers` fails closed in two cases:

- after an answer read: once a log has an `answer_access` or `foreign_task` finding at step N, the agent holds
  what it read, and any later step can repeat it (a message quoting the rubric, a result without its call):
  every step after N loses its texts, and so does every result without its call in that log, wherever the log
  put it;
- another task's folder: a step whose call or result names another task's folder of the same run
  (`37/output/...`, `../37`, the run folder's path followed by `/37`) can print that task's submission, which for
  a solved task is its answer, and the audit can miss it: that step and every later one of the log lose their
  texts.

The search is bounded: each step's texts are already capped by the reader (`trajectory.model.cap`), and the
patterns are linear (no nested repetition).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from agenticvbench.trajectory.model import Step

#: The rules whose finding means the agent read answer material (or another task's) at that step.
ANSWER_RULES = frozenset({"answer_access", "foreign_task"})
_TASK_DIGITS = r"([0-9]{1,9})(?![\w.-])"
#: `37/output` as a whole path segment, and a sibling folder `../37`.
_FOLDER = re.compile(r"(?<![\w.-])([0-9]{1,9})/output(?![\w.-])|\.\./" + _TASK_DIGITS)


@dataclass(frozen=True, kw_only=True)
class Taint:
    """What a page withholds beyond the flagged steps (module docstring): after an answer read (`answers`), and
    from a step naming another task's folder of the run (`others`: those tasks' ids, with the run folder's
    spellings `roots`). The defaults withhold nothing (a local page, or a bundle with `--show-answers`)."""

    answers: bool = False
    others: frozenset[int] = frozenset()
    roots: tuple[str, ...] = ()

    @cached_property
    def _roots(self) -> re.Pattern[str] | None:
        """The run folder's spellings followed by a task id (`/w/run//37`), None without them."""
        roots = [re.escape(r.rstrip("/")) + "/+" + _TASK_DIGITS for r in self.roots if r.rstrip("/")]
        return re.compile("|".join(roots)) if roots else None

    def foreign(self, texts: Iterable[str]) -> int | None:
        """The id of another task of the run whose folder one of `texts` names, None when none does."""
        if not self.others:
            return None
        for text in texts:
            for found in (_FOLDER, self._roots):
                for m in found.finditer(text) if found is not None else ():
                    tid = int(next(g for g in m.groups() if g is not None))
                    if tid in self.others:
                        return tid
        return None

    def reasons(self, steps: list[Step], answer_reads: Iterable[int]) -> dict[int, str]:
        """{step index: why its texts are withheld} for the `steps` of one log, the audit having found an
        answer read at the steps `answer_reads` of it."""
        out: dict[int, str] = {}
        read = min(answer_reads, default=None) if self.answers else None
        if read is not None:
            after = f"withheld from this bundle: it comes after step {read}'s flagged answer read, and can quote it"
            orphan = (
                f"withheld from this bundle: a result without its call, in a log with a flagged answer read "
                f"(step {read})"
            )
            for s in steps:
                if s.index > read:
                    out[s.index] = after
                elif s.role == "tool" and s.tool is None:
                    out[s.index] = orphan
        for s in steps if self.others else ():
            tid = self.foreign((s.arguments, s.result, s.error or ""))
            if tid is None:
                continue
            out[s.index] = (
                f"withheld from this bundle: it names task {tid}'s folder of this run, which can hold its answer"
            )
            later = (
                f"withheld from this bundle: it comes after step {s.index}, which named task {tid}'s folder of "
                "this run"
            )
            for t in steps:
                if t.index > s.index:
                    out.setdefault(t.index, later)
            break
        return out
