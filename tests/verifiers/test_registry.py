"""The verifier registry keeps a verifier set explicitly when the built-in module is imported later."""

from __future__ import annotations

import importlib
import sys

from agenticvbench import verifiers


def test_late_import_of_the_builtin_module_keeps_an_explicit_verifier(monkeypatch) -> None:
    """The integrity screen imports `verifiers.sequencing` mid-run; its decorator used to replace a verifier set
    earlier in the registry (a test's fake, a plug-in's), so every task after the first ran the wrong verifier."""
    verifiers.get_verifier("sequencing")  # registered before, so the teardown restores the real one
    explicit = object()
    monkeypatch.setitem(verifiers._REGISTRY, "sequencing", explicit)
    monkeypatch.delitem(sys.modules, "agenticvbench.verifiers.sequencing", raising=False)
    importlib.import_module("agenticvbench.verifiers.sequencing")
    assert verifiers.get_verifier("sequencing") is explicit


def test_builtin_verifier_registers_when_nothing_else_did() -> None:
    """With no explicit registration the family's module provides the verifier (the normal path)."""
    assert type(verifiers.get_verifier("sequencing")).__name__ == "SequencingVerifier"
