"""The small rules of publish/pull: run names, unsafe paths, caps, the digest's canonical numbers, strict settings."""

from __future__ import annotations

import math

import pytest

from agenticvbench.errors import ConfigError
from agenticvbench.hub.board import BoardSettings, digest, numbers_from_json
from agenticvbench.hub.layout import cap_for, run_name, unique_names, unsafe_path
from agenticvbench.hub.pull import split_spec


def test_run_names_are_safe_and_unique() -> None:
    assert run_name("my agent/../x") == "my-agent-..-x"  # one segment: no slash survives
    assert run_name("...") == "run" and run_name(".hidden") == "hidden"
    assert unique_names(["perfect", "perfect", "p e"]) == ["perfect", "perfect-2", "p-e"]


@pytest.mark.parametrize("path", ["/etc/passwd", "runs/../x", "a//b", "a\\b", "a/./b", "x\x00y", ""])
def test_unsafe_paths(path: str) -> None:
    assert unsafe_path(path)


def test_caps_only_for_the_layout() -> None:
    assert cap_for("runs/a/avb-results/12.json") and cap_for("data/results.parquet") and cap_for("README.md")
    assert cap_for("runs/a/12/solution.json") is None and cap_for("data/x.csv") is None


def test_spec() -> None:
    assert split_spec("org/name@refs/pr/1") == ("org/name", "refs/pr/1")
    assert split_spec("org/name") == ("org/name", "main")
    with pytest.raises(ConfigError):
        split_spec("../x")


def _doc(mean: float) -> dict:
    row = {
        "harness": "h",
        "model": "m",
        "runs": [{}],
        "families": {"repair": {"mean": mean, "ci_low": 0.1, "ci_high": None}},
        "macro": mean,
        "macro_ci": [0.1, 0.9],
        "micro": mean,
        "micro_ci": [0.1, 0.9],
    }
    return {"rows": [row]}


def test_digest_rounds_to_9_decimals_and_refuses_nan() -> None:
    assert digest(numbers_from_json(_doc(0.5))) == digest(numbers_from_json(_doc(0.5 + 1e-13)))
    assert digest(numbers_from_json(_doc(0.5))) != digest(numbers_from_json(_doc(0.5 + 1e-6)))
    with pytest.raises(ValueError):
        numbers_from_json(_doc(math.nan))


@pytest.mark.parametrize(
    "change",
    [
        {"resamples": -1},
        {"resamples": True},
        {"level": 1.5},
        {"universe": {"repair": ["65"]}},
        {"clusters": {"repair-65": "x"}},
        {"clusters": {"repair/65": 3}},
    ],
)
def test_settings_from_a_card_are_strict(change: dict) -> None:
    good = BoardSettings(universe={"repair": [65]}, clusters={"repair/65": "k"}).to_dict()
    assert BoardSettings.from_dict(good).clusters == {"repair/65": "k"}
    with pytest.raises(ValueError):
        BoardSettings.from_dict({**good, **change})
