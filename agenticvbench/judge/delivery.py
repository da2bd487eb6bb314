"""From an item's modality to the parts actually sent: the candidates, and the first one the judge can receive.

`candidates(modality)` lists what may be sent, best first (`routing.MODALITY_PARTS`; `video` adds
`routing.VIDEO_FALLBACK`, frames and audio). `plan(modality, capability)` asks `capability(part)` (a capability
probe) for every part of each candidate in turn and returns the first candidate whose parts are all accepted, or
`Unreceivable` naming the missing capability: such an item is `unscored`, never graded blind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agenticvbench.judge.probe import Capability
from agenticvbench.judge.routing import MODALITY_PARTS, VIDEO_FALLBACK, Modality, PartKind


@dataclass(frozen=True)
class Delivery:
    """The parts one request carries for an item of `modality` (`audio_style` when it carries audio)."""

    modality: str
    parts: tuple[PartKind, ...]
    audio_style: str | None = None
    note: str = ""  # why a fallback was taken


@dataclass(frozen=True)
class Unreceivable:
    """The judge cannot receive what `modality` needs: `reason` names the missing part kinds."""

    modality: str
    reason: str


def candidates(modality: Modality) -> list[tuple[PartKind, ...]]:
    """What an item of `modality` may send, best first."""
    first = MODALITY_PARTS[modality]
    return [first, VIDEO_FALLBACK] if modality == "video" else [first]


def plan(
    modality: Modality, capability: Callable[[PartKind], Capability], *, who: str
) -> Delivery | Unreceivable:
    """The first candidate whose parts `capability` accepts (may raise `CallFailed` for an inconclusive probe);
    `who` names the judge (model at host) in the reason."""
    refused: list[Capability] = []
    for parts in candidates(modality):
        caps = {}
        for part in parts:
            caps[part] = capability(part)
            if not caps[part].supported:
                refused.append(caps[part])
                break
        else:
            note = ""
            if parts != MODALITY_PARTS[modality]:
                note = f"{MODALITY_PARTS[modality][0]} parts refused: sent {' + '.join(parts)} instead"
            audio = caps.get("audio")
            return Delivery(modality, parts, audio.style if audio is not None else None, note)
    missing = ", ".join(f"{c.part} (HTTP {c.status})" for c in refused)
    return Unreceivable(
        modality,
        f"judge cannot receive {modality.replace('_', '-')} input: {who} refused {missing} parts; "
        f"configure a judge that accepts them (--judge-audio-model, --judge-config)",
    )
