"""The upstream defect ids a result's warnings start with (`D-S2: ...`), each with a one-line meaning.

The full text of each, with the official scorer's code it comes from, is docs/upstream-defects.md of the package's
source; `tests/view` checks that every id that page defines has a line here.
"""

from __future__ import annotations

import re
from typing import Any

DEFECTS_DOC = "docs/upstream-defects.md"

#: id -> what it means, in one line.
DEFECTS: dict[str, str] = {
    "D-S1": "a manifest that is a JSON list, or a segment that is not an object, crashes the official scorer: malformed, 0",
    "D-S2": 'clip ids are compared as spelled ("6.mp4" is not "6"; 3.MP4 becomes 3.MP4.mp4): credit lost to spelling',
    "D-S3": "the official scorer never opens solution.mp4: the manifest alone is scored",
    "D-S4": "assembly's chance floor is applied in the code's division form, not the documented one",
    "D-R1": "a missing metric library made every repair chunk fail silently upstream; here it is an error",
    "D-R3": "v07 (audio/video desync) uses the whole video as the scene: any parseable window hits it",
    "D-R4": "v03 (scene swap) has an empty in-window upstream: only the out-of-window weight applies",
    "D-R6": "SSIM samples only the first ~8 s of each 10-s chunk at 24/25 fps: a defect in a chunk's tail is unseen",
    "D-R7": "a fixed.mp4 shorter than the source is not penalised by edit (only the format duration item notices)",
    "D-R8": "a fixed.mp4 without an audio (or video) stream makes every chunk fail: edit is 0",
    "D-R9": "report.md timestamps are read with the official fixed grammar: units, negatives and later blocks ignored",
    "D-R11": "v01/v06 windows are in the broken video's timeline but applied to fixed vs source (shifted window)",
    "D-R13": "format tolerances are looked up by the source file's stem",
    "D-R14": "audio correlation is computed with the AVX2 kernel's rounding on every machine",
    "D-C1": 'a judge verdict counts only as a JSON boolean; anything else is unscored (upstream, "false" passed)',
    "D-C2": "compound prompts are filled without str.format (a literal brace crashed the public runner)",
    "D-C4": "a rubric item with an unknown dispatch makes the rubric malformed (upstream it silently failed)",
    "D-C6": "a negative-weight item deducts when its check fails (lineage A) unless it says otherwise",
}
_CODE = re.compile(r"(D-[SRC][0-9]{1,3})\b")


def warning_row(text: str) -> dict[str, Any]:
    """A warning as a page shows it: its defect id (when it starts with one), the rest of its text, and the id's
    one-line meaning ('' for an id this table does not know, or no id)."""
    m = _CODE.match(text.strip())
    if m is None:
        return {"code": "", "text": text, "meaning": ""}
    code = m.group(1)
    rest = text.strip()[m.end() :].lstrip(":").strip()
    return {"code": code, "text": rest, "meaning": DEFECTS.get(code, "")}
