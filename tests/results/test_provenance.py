"""The host facts every result records: the CPU's vector level, by which the scoring libraries pick kernels."""

from __future__ import annotations

import pytest

from agenticvbench.results.provenance import base_provenance, host_facts, simd_level

AVX2_HOST = {
    f: True
    for f in ("SSSE3", "SSE41", "SSE42", "POPCNT", "AVX", "AVX2", "FMA3", "BMI", "BMI2", "F16C", "MOVBE")
}


@pytest.mark.parametrize(
    ("features", "machine", "level"),
    [
        (
            AVX2_HOST | {f: True for f in ("AVX512F", "AVX512BW", "AVX512CD", "AVX512DQ", "AVX512VL")},
            "x86_64",
            "x86-64-v4",
        ),
        (AVX2_HOST | {"AVX512F": True}, "x86_64", "x86-64-v3"),  # AVX-512 foundation alone is not level 4
        (AVX2_HOST | {"FMA3": False}, "AMD64", "x86-64-v2"),  # AVX2 without FMA (as under an emulated CPU)
        ({"SSE2": True}, "x86_64", "x86-64"),
        ({"NEON": True, "ASIMD": True}, "aarch64", "ASIMD+NEON"),
        ({}, "riscv64", "unknown"),
    ],
)
def test_simd_level_names_the_level_the_features_reach(
    features: dict[str, bool], machine: str, level: str
) -> None:
    """AVX2 and AVX-512 hosts give the same scores, hosts without AVX or x86 differ in last digits
    (docs/performance/repair-exactness.md): the level must be read off the features, highest level whose features are all there."""
    assert simd_level(features, machine) == level


def test_every_result_records_the_host() -> None:
    """The shared provenance block carries the machine and a level this process actually detected."""
    host = base_provenance({"dataset": "d"}, "v1")["host"]
    assert host == host_facts()
    assert host["machine"] and host["simd"] != "unknown"
