"""Run folders as agents and harnesses write them: discovery, task folders, run.json, pinned inputs, run identity."""
