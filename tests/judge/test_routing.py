"""Routing of judged items to a modality: the table-driven rule and the time range an item names."""

from __future__ import annotations

import pytest

from agenticvbench.judge.routing import ROUTING_RULES, item_time_range, route_item


@pytest.mark.parametrize(
    "dispatch, kinds, text, modality, rule",
    [
        ("llm", (), "Does the video open on a title card that reads 'THE END'?", "visual", "picture"),
        ("llm", (), "Is background music audible throughout?", "audio", "sound"),
        ("llm", (), "Is the narration intelligible?", "audio", "sound"),
        ("llm", (), "Does the voice-over name the hero?", "audio", "sound"),
        ("llm", (), "Is the DIALOGUE clear?", "audio", "sound"),
        ("llm", (), "Does the music swell when the title card appears?", "audio_visual", "sound-and-picture"),
        ("llm", (), "Do the cuts land on the beat of the music?", "video", "sync"),
        ("llm", (), "Is the lip-sync of the speech right?", "video", "sync"),
        (
            "llm",
            (),
            "Cuts land on motion; the soundness of the arc holds.",
            "visual",
            "picture",
        ),  # whole words
        ("llm", (), "The rhythm of the edit feels right.", "visual", "picture"),  # sync word, no sound
        ("compound", ("librosa_silence_max_run",), "Does the pacing feel right?", "audio", "sound"),
        ("compound", ("scenedetect_median_shot_duration",), "Shots: {shots}. Brisk?", "visual", "picture"),
        (
            "llm",
            ("librosa_silence_max_run",),
            "Does the pacing feel right?",
            "visual",
            "picture",
        ),  # llm: no kinds
    ],
)
def test_routing_table(dispatch: str, kinds: tuple, text: str, modality: str, rule: str) -> None:
    route = route_item(dispatch, kinds, text)
    assert (route.modality, route.rule) == (modality, rule)
    assert route.to_dict()["modality"] == modality


def test_every_rule_is_reachable_and_the_last_always_matches() -> None:
    assert [r.name for r in ROUTING_RULES] == ["sync", "sound-and-picture", "sound", "picture"]
    assert route_item("llm", (), "").modality == "visual"
    assert "music" in route_item("llm", (), "Music plays.").because


@pytest.mark.parametrize(
    "text, duration, span",
    [
        ("Between 0:05 and 0:12 the music fades.", 30.0, (5.0, 12.0)),
        ("From 3 s to 8 s the narrator speaks.", 30.0, (3.0, 8.0)),
        ("In the first 10 seconds a voice is heard.", 30.0, (0.0, 10.0)),
        ("The last 5 s are silent.", 30.0, (25.0, 30.0)),
        ("between 20 and 90 seconds", 30.0, (20.0, 30.0)),  # clamped to the video
        ("Music is audible.", 30.0, None),
        ("between 40 and 50 s", 30.0, None),  # outside the video
    ],
)
def test_item_time_range(text: str, duration: float, span: tuple | None) -> None:
    assert item_time_range(text, duration) == span
