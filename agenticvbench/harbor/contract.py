"""The output contract of each family, as written into an exported task's `instruction.md`.

An agent that follows it produces exactly what `avb verify` and `avb score` read: the file names, the folder,
and the family's own part (`HarborParts.contract` in the verifier registry): the `solution.json` manifest schema
(sequencing, assembly, `verifiers.manifest.manifest_harbor`), the `report.md` line grammar (repair).
"""

from __future__ import annotations

from agenticvbench.dataset.tasks import OUTPUT_FILES, Task
from agenticvbench.verifiers import harbor_parts

MATERIALS_DIR = "/workspace/materials"
OUTPUT_DIR = "/workspace/output"


def contract(task: Task) -> str:
    """The markdown section stating where materials are and exactly which outputs are scored."""
    files = ", ".join(f"`{f}`" for f in OUTPUT_FILES[task.family])
    head = [
        "## Where things are",
        "",
        f"- Your input materials are in `{MATERIALS_DIR}/`.",
        f"- Write every output into `{OUTPUT_DIR}/` (it exists and is empty). Only this folder is kept and "
        f"scored; the files read are {files}.",
        "",
        "## Output contract",
        "",
    ]
    return "\n".join(head + harbor_parts(task.family).contract(task, OUTPUT_DIR)) + "\n"


def instruction(task: Task) -> str:
    """The whole `instruction.md`: the task's own prompt, then the contract."""
    return f"{task.prompt.rstrip()}\n\n{contract(task)}"
