"""The text of an exported task's scripts and Dockerfiles (`test.sh`, `solve.sh`, both `Dockerfile`s).

Every path in the scripts is prefixed with `$AVB_HARBOR_ROOT` (empty inside a container), so the same script
can be run against a temporary folder laid out like the sandbox, which is how the tests check them.
"""

from __future__ import annotations

import shlex

from agenticvbench.harbor.contract import MATERIALS_DIR, OUTPUT_DIR

#: Default base image of both containers: Debian bookworm with Python 3.12, pinned to a point release.
#: Pass `--base-image name@sha256:<digest>` to pin by digest (`harbor lint --extend-select unpinned-image`).
DEFAULT_BASE_IMAGE = "python:3.12.7-slim-bookworm"
AGENT_USER = "agent"
RESULT_NAME = "avb-result.json"

_PREAMBLE = """\
#!/usr/bin/env bash
# {what}
# Paths are prefixed with $AVB_HARBOR_ROOT (unset in the container) so the script can run in a scratch root.
set -uo pipefail
ROOT="${{AVB_HARBOR_ROOT:-}}"
OUT="$ROOT{out}"
"""


def q(value: str) -> str:
    """Shell-quote one argument."""
    return shlex.quote(value)


def test_sh(family: str, score_args: list[str]) -> str:
    """`tests/test.sh`: score with `avb score <family>`, keep the full result, write the flat reward."""
    args = " ".join(score_args)
    return (
        _PREAMBLE.format(
            what="Scores this task's outputs with `avb score` (package agenticvbench).", out=OUTPUT_DIR
        )
        + f"""\
TESTS="$ROOT/tests"
LOGS="$ROOT/logs/verifier"
mkdir -p "$LOGS"
# Runners that grade in the agent's container (inspect-harbor) have no `avb` there: install the baked wheel.
if ! command -v avb >/dev/null 2>&1; then
  for wheel in "$TESTS"/agenticvbench-*.whl; do
    [ -f "$wheel" ] && python3 -m pip install -q --no-cache-dir "$wheel"
  done
fi
# `avb score` prints the official JSON and exits 1 when its `error` field is set (a missing or unreadable
# output scores 0 that way); anything else (no JSON at all) leaves no reward file, and Harbor reports it.
avb score {family} {args} > "$LOGS/{RESULT_NAME}"
status=$?
echo "avb score {family} exited with $status"
avb harbor reward --family {family} --result "$LOGS/{RESULT_NAME}" --out "$LOGS/reward.json"
"""
    )


def solve_sh(files: list[str], reason: str = "") -> str:
    """`solution/solve.sh`: copy the gold outputs from `/solution/gold/` (or explain why there are none)."""
    head = (
        _PREAMBLE.format(what="Writes the gold (oracle) outputs of this task.", out=OUTPUT_DIR)
        + 'mkdir -p "$OUT"\n'
    )
    if not files:
        return head + f"echo {q('no gold output: ' + reason)}\n"
    return head + "".join(f'cp "$ROOT/solution/gold/{name}" "$OUT/{name}"\n' for name in files)


def agent_dockerfile(base_image: str) -> str:
    """`environment/Dockerfile`: the agent's sandbox, ffmpeg and the materials, a non-root user."""
    return f"""\
FROM {base_image}
RUN apt-get update \\
 && apt-get install -y --no-install-recommends ffmpeg \\
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 1000 {AGENT_USER} \\
 && mkdir -p {OUTPUT_DIR} \\
 && chown {AGENT_USER}:{AGENT_USER} {OUTPUT_DIR}
COPY materials/ {MATERIALS_DIR}/
WORKDIR /workspace
"""


def verifier_dockerfile(base_image: str, package_spec: str) -> str:
    """`tests/Dockerfile`: the separate verifier image with the tests baked in and this package installed (the
    wheel copied in with them, `/tests/agenticvbench-*.whl`, or a pip requirement such as a git URL)."""
    return f"""\
FROM {base_image}
COPY . /tests/
RUN python -m pip install --no-cache-dir {q(package_spec)}
RUN chmod +x /tests/test.sh
"""
