"""The recap family's part of the Harbor export (`verifiers.HarborParts`): the `final.mp4` contract and the
rubric as the verifier-only reference. Recap has no gold output. Importing it loads no decoder."""

from __future__ import annotations

from agenticvbench.verifiers import HarborParts

NO_GOLD = "recap has no gold output: its rubric is judged against the brief and there is no reference video"

HARBOR = HarborParts(
    contract=lambda task, out: [
        f"- `{out}/final.mp4`: the finished recap video (H.264/AAC in MP4 is safest). It is "
        "checked against the brief above by measurements and by a judge that watches sampled frames."
    ],
    score_args=lambda task: (
        ['--final-mp4 "$OUT/final.mp4"', '--rubric "$TESTS/reference/rubric.json"'],
        {"rubric.json": task.items},
    ),
    no_gold=NO_GOLD,
)
