"""The LLM judge for recap rubric items: any OpenAI-compatible endpoint, an on-disk verdict cache, cost accounting.

- `settings.JudgeSettings`: endpoint, model, mode (cache | replay | off), sampling, retries, prices, profile, a
  model per modality and media caps (resolved by `JudgeSettings.from_env` from defaults, a `config` file, the
  environment and `options`, the command-line options);
- `routing.route_item`: each item's modality (visual | audio | audio_visual | video) from one rule table;
  `probe.CapabilityProbe`: can the (endpoint, model) receive image, audio, video parts (cached);
  `delivery.plan`: the parts actually sent; `av_parts`: bounded audio and video parts;
- `profiles`: the prompt contracts (`legacy`, `violation`);
- `client.VideoJudge`: the one entry point, `judge(request) -> calls.JudgeCall`; one class per mode in `modes`
  (off | human | replay | cache), the endpoint and its retries in `endpoint`, the video's frames and audio
  block in `media`;
- `human_store`: people's verdicts (mode `human`; written by the grading UI);
- `cache.JudgeCache`: verdicts keyed by (model, the profile's template version, item prompt, media digest);
- `verdict.parse_verdict`: strict JSON verdicts (D-C1 fixed), anything unreadable is `unscored`;
- `prompts`: the template, its version and `prompt_hash()`.

`VideoJudge` (and the `openai` SDK, slow to import) loads on first use, so the CLI parser and `JudgeSettings`
stay cheap to import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agenticvbench.judge.cache import JudgeCache
from agenticvbench.judge.calls import JudgeCall, JudgeRequest, JudgeStats
from agenticvbench.judge.prompts import PROMPT_TEMPLATE_VERSION, prompt_hash
from agenticvbench.judge.settings import JUDGE_MODES, JudgeSettings
from agenticvbench.judge.verdict import Verdict, parse_verdict
from agenticvbench.lazy import lazy_exports

if TYPE_CHECKING:
    from agenticvbench.judge.client import VideoJudge

_LAZY = {"VideoJudge": "agenticvbench.judge.client"}

__all__ = [
    "JUDGE_MODES",
    "PROMPT_TEMPLATE_VERSION",
    "JudgeCache",
    "JudgeCall",
    "JudgeRequest",
    "JudgeSettings",
    "JudgeStats",
    "Verdict",
    "VideoJudge",
    "parse_verdict",
    "prompt_hash",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
