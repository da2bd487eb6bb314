"""The prompt template: the sound-item keyword rule and the audio description."""

from __future__ import annotations

import pytest

from agenticvbench.judge import prompts


@pytest.mark.parametrize(
    "text, about_sound",
    [
        ("Background music swells at the climax.", True),
        ("Dialogue is intelligible throughout.", True),
        ("There is no dead SILENCE longer than 2 s.", True),
        ("The voice-over names the hero.", True),
        ("The loudness is broadcast-safe.", True),
        ("The opening title card is legible.", False),
        ("Cuts land on motion; the soundness of the story arc holds.", False),  # whole words only
    ],
)
def test_sound_keyword_rule(text: str, about_sound: bool) -> None:
    assert prompts.is_about_sound(text) is about_sound


def test_describe_audio() -> None:
    text = prompts.describe_audio(
        {
            "has_audio": True,
            "integrated_lufs": -16.04,
            "mean_volume_db": -20.0,
            "max_volume_db": None,
            "longest_silence_s": 1.5,
        },
        "hello there",
    )
    assert text.splitlines() == [
        prompts.AUDIO_HEADER,
        "- integrated loudness: -16.04 LUFS",
        "- mean volume: -20.00 dB",
        "- longest silence: 1.50 s",
        prompts.TRANSCRIPT_HEADER,
        "hello there",
    ]
    assert prompts.describe_audio({"has_audio": False}, None) == prompts.NO_AUDIO
    assert "unavailable" in prompts.describe_audio(None, None)
