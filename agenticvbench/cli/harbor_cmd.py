"""`avb harbor reward`: turn an `avb score` result into Harbor's `reward.json` and its details sidecar.

Exported Harbor tasks call it from `tests/test.sh`; see `docs/harbor.md`.
"""

from __future__ import annotations

import argparse
import sys

from agenticvbench.tasks import FAMILIES


def _reward(args: argparse.Namespace) -> int:
    from agenticvbench.harbor.reward import write_reward

    reward = write_reward(args.family, args.result, args.out, args.details)
    print(f"reward {reward['reward']:.6f} written to {args.out}", file=sys.stderr)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `harbor reward`."""
    p = sub.add_parser("harbor", help="helpers used inside exported Harbor tasks")
    inner = p.add_subparsers(dest="harbor_command", metavar="COMMAND", required=True)
    r = inner.add_parser("reward", help="write Harbor's reward.json ({\"reward\": headline}) and reward-details.json "
                                        "from an `avb score` result")
    r.add_argument("--family", required=True, choices=FAMILIES)
    r.add_argument("--result", required=True, help="the JSON printed by `avb score <family>`")
    r.add_argument("--out", required=True, help="reward.json to write")
    r.add_argument("--details", help="details sidecar to write (default: reward-details.json beside --out)")
    r.set_defaults(func=_reward)
