"""Interop with the two sibling formats of the original design documents.

- StudioBench (`agenticvbench.interop.studiobench`): task-file validation, the model's view of a task, and
  run-directory validation (`submitted`, `valid_for_bench`, limits, secrets in `mcp.json`).
- OpenVibe `bench.benchmark@1` (`agenticvbench.interop.openvibe`): the JSON Schema, `validate()`, and the
  AgenticVBench export.
- `agenticvbench.interop.ulid`: ULIDs for OpenVibe ids.

See docs/interop.md for every choice made where the design documents are silent.
"""
