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


def test_a_removed_builtin_entry_is_rebuilt_not_a_keyerror(monkeypatch) -> None:
    """A test that swapped a registry entry and removed it left `get_verifier` raising KeyError for a built-in
    family whose module was already imported (importing it again registers nothing), so later tests failed or
    passed depending on their order."""
    real = verifiers.get_verifier("assembly")
    monkeypatch.delitem(verifiers._REGISTRY, "assembly")
    rebuilt = verifiers.get_verifier("assembly")
    assert type(rebuilt) is type(real) and rebuilt.family == "assembly"
