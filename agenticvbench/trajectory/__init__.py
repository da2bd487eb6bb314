"""Trajectory audit: how an agent worked, read from its logs (docs/guide/audit.md).

- `model`: the one shape every log is read into (`Trajectory` of `Step`s);
- `formats`: one strict reader per format (ATIF, Claude Code stream-json, codex exec --json, OpenCode's store,
  OpenClaw's sessions, Inspect AI's eval logs) and the registry that sniffs which one a file is;
- `source`, `locate`: bounded reading of a log, and where a run's logs are found;
- `extract`, `context`, `rules`: the files and URLs a call names, what the benchmark's answer material is, and
  the rules (`answer_access`, `web_access`, `foreign_task`);
- `audit`, `render`: the findings per (run, task), as Markdown or JSON (`avb audit`);
- `check`: the audit as `avb verify` records it (integrity flags, warnings, provenance, the logs' SHA-256 for
  the fingerprint).

Hooks for what builds on it: `audit.audit_task` judges one task folder of an open run (for scoring to record
its `Finding`s beside a result's integrity flags, each already one line: `Finding.to_text`); `RunAudit.findings`
lists the flagged tasks (to leave them out of a table); `locate.candidates` and `locate.read_log` give a task's
steps with their times, tools and tokens (a timeline; a log of several tasks, Inspect's, is read for the one
named); `locate.LOG_NAMES` and the `agent/` folder are where an
importer copies a trial's logs so that the audit finds them.
"""

from __future__ import annotations

from agenticvbench.trajectory.audit import Finding, RunAudit, TaskAudit, audit_run
from agenticvbench.trajectory.context import AuditContext
from agenticvbench.trajectory.model import Step, Trajectory

__all__ = ["AuditContext", "Finding", "RunAudit", "Step", "TaskAudit", "Trajectory", "audit_run"]
