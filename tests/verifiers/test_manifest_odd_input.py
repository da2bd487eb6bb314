"""Odd but legal manifests are accepted exactly as the official scorer accepts them, with a warning, never a
changed score: repeated keys (the last wins) and non-finite or overflowing numbers in ignored fields."""

from __future__ import annotations

import json

from adversarial import by_id

from agenticvbench.verifiers.manifest import read_manifest


def _segments(run, task_id):
    return json.loads((run.folder(task_id) / "solution.json").read_text())["segments"]


def test_repeated_keys_last_wins_with_a_warning(hostile_run, score_run):
    """A segment that says `"source"` twice was read silently (Python's json keeps the last, as the official
    scorer does). The score must stay the one of the last-wins manifest, and a warning says which object repeats
    which key and that the last value is used."""
    run = hostile_run()
    plain = by_id(score_run(run.root, [37]))[37]
    segs = _segments(run, 37)
    parts = [json.dumps(seg)[1:-1] for seg in segs]
    parts[0] = '"source": "wrong", ' + parts[0]  # the genuine "source" comes after: it wins
    text = '{"segments": [' + ", ".join("{" + part + "}" for part in parts) + "]}"
    run.write(37, "solution.json", text)
    assert read_manifest(run.folder(37) / "solution.json").segments == segs
    r = by_id(score_run(run.root, [37]))[37]
    assert (r.status, r.final_score, r.adjusted_final_score) == (
        plain.status,
        plain.final_score,
        plain.adjusted_final_score,
    )
    assert any("segments[0] repeats key(s) 'source'" in w and "the last value" in w for w in r.warnings), (
        r.warnings
    )
    assert not any("repeats" in w for w in plain.warnings)


def test_non_finite_and_overflowing_numbers_in_ignored_fields_warn(hostile_run, score_run):
    """`NaN`, `Infinity`, `1e999` and a 400-digit integer in `output`/`source_range` are legal to Python's json and
    ignored by the official assembly scorer: same official score, one warning per field naming it."""
    run = hostile_run()
    plain = by_id(score_run(run.root, [83]))[83]
    segs = _segments(run, 83)
    odd = [json.dumps(s) for s in segs]
    odd[0] = odd[0].replace(json.dumps(segs[0]["source_range"]), "[NaN, Infinity]")
    odd[1] = odd[1].replace(json.dumps(segs[1]["output"]), "[1e999, " + "9" * 400 + "]")
    assert odd[0] != json.dumps(segs[0]) and odd[1] != json.dumps(segs[1])
    run.write(83, "solution.json", '{"segments": [' + ", ".join(odd) + "]}")
    r = by_id(score_run(run.root, [83]))[83]
    assert r.status == "scored" and (r.final_score, r.adjusted_final_score) == (
        plain.final_score,
        plain.adjusted_final_score,
    )
    assert any("segments[0].source_range holds nan, inf" in w for w in r.warnings), r.warnings
    assert any("segments[1].output holds inf, an integer of 400 digits" in w for w in r.warnings), r.warnings
