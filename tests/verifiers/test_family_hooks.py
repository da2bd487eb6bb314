"""Per-family hooks: each family is declared once, in the verifier registry (and, for the viewer's rendering, in
one table of `view/evidence.py`); no layer above `verifiers/` branches on a family's name."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from agenticvbench import verifiers
from agenticvbench.analysis.explain import Explanation
from agenticvbench.results.model import Result
from agenticvbench.verifiers import ScreenSpec

PACKAGE = Path(verifiers.__file__).resolve().parents[1]
FAMILY_NAMES = frozenset(verifiers.FAMILY_SPECS)
#: Where naming a family is the point: the families themselves, the dataset's task classes, the demo generator,
#: the per-family baseline strategies, the per-family `avb score <family>` commands and their descriptions.
ALLOWED = ("verifiers/", "demo/", "dataset/", "cli/score/", "cli/descriptions.py", "baselines/strategies.py")
TASK_CLASSES = frozenset({"SequencingTask", "AssemblyTask", "RepairTask", "RecapTask"})
#: Files outside `verifiers/` and `dataset/` that may still check a task against a family's class, and why.
#: Each entry must still hold such a check (the test fails once it is gone, so the list only shrinks).
ISINSTANCE_ALLOWED = {
    "baselines/strategies.py": "each per-family baseline strategy narrows its task to that family's class",
    "interop/openvibe.py": "`task_expected` (the OpenVibe expected answer per family) is not a registry hook yet",
    "integrity/screen.py": "the sequencing given-order check is not a `screen_spec` entry yet",
}


def _names_a_family(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in FAMILY_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_family(e) for e in node.elts)
    return False


def family_branches(source: str) -> list[int]:
    """Line numbers of comparisons (`==`, `!=`, `in`, `not in`) against a family-name literal or a literal
    collection holding one, and of `match` cases on one: the if/elif/filter chains the registry replaces."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops
        ):
            if any(_names_a_family(x) for x in [node.left, *node.comparators]):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _names_a_family(node.value):
            lines.append(node.lineno)
    return sorted(lines)


def _scan() -> dict[str, list[int]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(ALLOWED):
            continue
        if lines := family_branches(path.read_text(encoding="utf-8")):
            found[rel] = lines
    return found


def test_the_guard_sees_the_branches_it_forbids() -> None:
    """The scan must recognise every shape of family branch the code used to have, or the guard below would pass
    vacuously."""
    src = (
        'if job.task.family == "recap":\n    pass\n'
        'elif "sequencing" != fam:\n    pass\n'
        'x = task.family in ("repair", "recap") and y\n'
        'ys = [r for r in rs if r.family not in {"assembly"}]\n'
        'match fam:\n    case "repair":\n        pass\n'
        'ok = fam == "somethingelse" or FAMILIES[fam]\n'
    )
    assert family_branches(src) == [1, 3, 5, 6, 8]


def test_no_layer_outside_the_verifiers_branches_on_a_family_name() -> None:
    """What differs between families is a registry hook (or the viewer's table); an if/elif on a family's name in
    an upper layer is a second place to update when a family changes or is added."""
    assert _scan() == {}


def _names_a_task_class(node: ast.AST) -> bool:
    if isinstance(node, ast.Tuple):
        return any(_names_a_task_class(e) for e in node.elts)
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    return name in TASK_CLASSES


def family_isinstance(source: str) -> list[int]:
    """Line numbers of `isinstance(x, C)` calls whose class (or tuple of classes) names a family's Task class."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and len(node.args) == 2
        and _names_a_task_class(node.args[1])
    )


def test_the_isinstance_guard_sees_the_checks_it_forbids() -> None:
    src = (
        "if isinstance(task, SequencingTask):\n    pass\n"
        "ok = isinstance(task, (AssemblyTask, tasks.RepairTask))\n"
        "assert isinstance(t, tasks.RecapTask)\n"
        "fine = isinstance(task, Task) or isinstance(x, dict)\n"
    )
    assert family_isinstance(src) == [1, 3, 4]


def test_no_layer_outside_the_verifiers_checks_a_family_task_class() -> None:
    """`isinstance(task, RepairTask)` outside `verifiers/` and `dataset/` is a family branch under another name:
    what differs per family is a registry hook (e.g. the Harbor export's `HarborParts`). Exceptions are listed with
    their reason in `ISINSTANCE_ALLOWED`."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("verifiers/", "dataset/")):
            continue
        if lines := family_isinstance(path.read_text(encoding="utf-8")):
            found[rel] = lines
    allowed = tuple(ISINSTANCE_ALLOWED)
    assert {f: ls for f, ls in found.items() if not f.startswith(allowed)} == {}
    stale = [a for a in allowed if not any(f.startswith(a) for f in found)]
    assert not stale, f"no isinstance check left in {stale}: drop them from ISINSTANCE_ALLOWED"


def test_the_engine_builds_results_in_one_place() -> None:
    """Every result the engine writes (its own statuses and a verifier's outcome) comes from one constructor, so
    a field added to results is filled in one place."""
    calls = [
        (path.name, node.lineno)
        for path in sorted((PACKAGE / "scoring").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Result"
    ]
    assert len(calls) == 1 and calls[0][0] == "engine.py", calls


@pytest.mark.parametrize("family", sorted(FAMILY_NAMES))
def test_judge_hooks(family: str) -> None:
    """Only recap is judged, and the judge watches its final.mp4: the engine puts the judge's identity into its
    fingerprint, judge agreement hashes that file, the Harbor export passes the judge settings."""
    expected = "final.mp4" if family == "recap" else None
    assert verifiers.judged_output(family) == expected
    assert verifiers.uses_judge(family) is (expected is not None)


def test_unscored_items_is_the_recap_count_and_zero_elsewhere() -> None:
    """The one reader of "items left unscored": recap's `components["unscored"]`, 0 when absent or null, and 0 for
    a family that has no such items even when a planted file carries the key."""
    assert (
        verifiers.unscored_items(
            Result(task_id=1, family="recap", status="scored", components={"unscored": 3})
        )
        == 3
    )
    assert (
        verifiers.unscored_items(
            Result(task_id=1, family="recap", status="scored", components={"unscored": None})
        )
        == 0
    )
    assert verifiers.unscored_items(Result(task_id=1, family="recap", status="missing")) == 0
    assert (
        verifiers.unscored_items(
            Result(task_id=37, family="sequencing", status="scored", components={"unscored": 3})
        )
        == 0
    )


def test_screen_specs_keep_the_limits_and_checks_of_each_family() -> None:
    """Screening's per-family settings moved from `integrity/screen.py` into the registry unchanged: recap may run
    four hours and is compared with its input film (also nearly), repair's fixed.mp4 is checked for too few
    frames and compared byte for byte, the manifest families get the plain defaults."""
    recap, repair = verifiers.screen_spec("recap"), verifiers.screen_spec("repair")
    assert recap == ScreenSpec(max_output_s=14400.0, identical_to_input=True, near_copy_of_input=True)
    assert repair == ScreenSpec(identical_to_input=True, sparse_video=("fixed.mp4",))
    assert verifiers.screen_spec("sequencing") == verifiers.screen_spec("assembly") == ScreenSpec()
    assert verifiers.screen_spec("no-such-family").max_output_s == 3600.0


def test_a_plugin_family_answers_through_its_verifier(monkeypatch) -> None:
    """A family registered at run time (not in `FAMILY_SPECS`) declares its hooks as attributes of its verifier;
    the registry must ask it rather than treat it as a family without a judge or limits."""
    plugin = SimpleNamespace(
        judged_output="out.mp4",
        unscored_items=lambda r: 7,
        screen=ScreenSpec(max_output_s=10.0),
        leads_with_arithmetic=True,
        cluster=lambda task: "film:x",
        harbor="parts",
    )
    monkeypatch.setitem(verifiers._REGISTRY, "plugin-x", plugin)
    assert (
        verifiers.cluster_hook("plugin-x")(None) == "film:x" and verifiers.harbor_parts("plugin-x") == "parts"
    )
    assert verifiers.uses_judge("plugin-x") and verifiers.judged_output("plugin-x") == "out.mp4"
    assert verifiers.unscored_items(Result(task_id=1, family="plugin-x", status="scored")) == 7
    assert verifiers.screen_spec("plugin-x").max_output_s == 10.0
    assert verifiers.explanation_leads_with_arithmetic("plugin-x")


@pytest.mark.parametrize(("family", "shown"), [("sequencing", "misplaced: 3"), ("assembly", "arithmetic")])
def test_one_line_skips_the_arithmetic_line_of_the_family_that_leads_with_it(family: str, shown: str) -> None:
    """`avb verify -v` shows what lost points: sequencing's first lost line restates the headline arithmetic, so
    its one-liner starts after it; other families' first line is a real loss."""
    exp = Explanation(
        run="r",
        task_id=1,
        family=family,
        status="scored",
        headline=0.5,
        headline_field="final_score",
        computation="c",
        reason="",
        lost=["arithmetic", "misplaced: 3"],
    )
    assert exp.one_line().split(": ", 1)[1].startswith(shown)


def test_hooks_load_no_decoder() -> None:
    """Asking the registry about a family (reports, comparability, the run summary) must not import PyAV or
    OpenCV, which the verifiers themselves need; the hooks are light "module:function" strings."""
    code = (
        "import sys\n"
        "from agenticvbench import verifiers\n"
        "from agenticvbench.results.model import Result\n"
        "r = Result(task_id=1, family='recap', status='scored', components={'unscored': 2})\n"
        "assert verifiers.unscored_items(r) == 2 and verifiers.uses_judge('recap')\n"
        "assert verifiers.screen_spec('repair').sparse_video\n"
        "assert verifiers.cluster_hook('repair') and [verifiers.harbor_parts(f) for f in verifiers.families()]\n"
        "print(sorted(m for m in ('av', 'cv2') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cluster_and_harbor_hooks() -> None:
    """Only repair keys its clusters by its own hook (its source video; the others by film), every family has its
    part of the Harbor export, and only recap has no gold output (with the reason the export prints)."""
    from agenticvbench.verifiers.repair.profiles import source_cluster

    assert {f: verifiers.cluster_hook(f) for f in FAMILY_NAMES} == {
        **dict.fromkeys(FAMILY_NAMES),
        "repair": source_cluster,
    }
    no_gold = {f for f in FAMILY_NAMES if verifiers.harbor_parts(f).gold is None}
    assert no_gold == {"recap"} and verifiers.harbor_parts("recap").no_gold.startswith("recap has no gold")
    with pytest.raises(KeyError, match="no Harbor export"):
        verifiers.harbor_parts("no-such-family")


def test_the_viewer_table_covers_every_family() -> None:
    """Each family has exactly one entry in the viewer's table, whose builder draws that family's evidence; only
    repair's output videos are withheld from bundles, and only recap's lost lines are public."""
    from agenticvbench.view import evidence

    assert set(evidence.FAMILY_VIEWS) == FAMILY_NAMES
    assert {f for f, v in evidence.FAMILY_VIEWS.items() if v.withheld} == {"repair"}
    assert {f for f, v in evidence.FAMILY_VIEWS.items() if v.public_lost} == {"recap"}
    assert evidence.task_page_evidence("no-such-family", None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("family", ["recap", "repair"])
def test_task_page_evidence_dispatches_to_the_familys_builder(family: str, tmp_path: Path) -> None:
    """The task page asks the table, not an if/elif: a result of each family gets that family's evidence."""
    from agenticvbench.view import evidence
    from agenticvbench.view.disclosure import published
    from agenticvbench.view.thumbs import Thumbnailer

    given = evidence.EvidenceInput(
        Result(task_id=1, family=family, status="scored"),
        None,  # type: ignore[arg-type]
        Thumbnailer(tmp_path, progress=False),
        published(),
        None,
    )
    ev = evidence.task_page_evidence(family, given)
    assert ev is not None and ev.kind == family


def test_harbor_settings_cover_exactly_the_registrys_families() -> None:
    """The Harbor resources are a shipped data file keyed by family; a family the registry knows must have an entry
    (an export would fail with a bare KeyError) and the file must not name a family that does not exist."""
    from agenticvbench.harbor.export import SETTINGS_PATH, family_settings

    assert set(family_settings()) == FAMILY_NAMES
    assert "_about" in json.loads(SETTINGS_PATH.read_text(encoding="utf-8"))


def test_sequencing_order_that_is_not_a_permutation_is_named_as_such() -> None:
    """Two clips submitted for a six-clip task (the run-directory page's example): the line `avb verify -v` shows
    says the order is not a permutation (the official `slot set mismatch`, every score 0) and what is missing, not
    that clip 3 is misplaced."""
    from agenticvbench.verifiers.sequencing import explain_sequencing

    result = Result(
        task_id=37,
        family="sequencing",
        status="scored",
        final_score=0.0,
        adjusted_final_score=0.0,
        components={"nd_score": 0.0, "lis_score": 0.0, "adj_score": 0.0},
        detail={"pred_order": ["3", "7"], "correct_order": ["4", "1", "6", "2", "5", "3"]},
    )
    lost = explain_sequencing(result).lost
    assert len(lost) == 2 and not any("misplaced" in line for line in lost)
    assert lost[1].startswith("slot set mismatch (not every clip exactly once), so every score is 0: ")
    assert (
        "2 id(s) for 6 clip(s); missing: 4, 1, 6, 2, 5; not ids of this task (check the id format): 7"
        in lost[1]
    )
    repeated = Result(
        **{**result.__dict__, "detail": {"pred_order": ["1", "1"], "correct_order": ["1", "2"]}}
    )
    assert explain_sequencing(repeated).lost[1].endswith("missing: 2; repeated: 1")
