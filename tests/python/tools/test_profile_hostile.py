"""Every field of a real profile report changed to each other JSON type, or deleted, then
read by the commands that read profiles (summarize, compare, verify): the check at load
(hdreport/core/schema.py) refuses it in one line naming the field, or every reader copes.
Never a traceback, and never the last-resort guard in hdbench_report.main(), whose line
says only that "a field has a value the tools do not expect" (the idle causes, the step
model and the findings left out ended there before they were typed).

The profile is the H100's of 2026-11-28 (the tutorial's, with a probe, a pin thread, timed
collections and a finding left out), so every kind of field the model writes is in it.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

import hdbench_report
from hdreport.core import schema as report_schema
from json_paths import get, kind, paths, shape_of, with_change

LEASE = Path(__file__).resolve().parents[3] / "reports/reference/h100-2026-11-28b/profiles"
PROFILE = json.loads((LEASE / "prof-tutorial.json").read_text())
TEXT = json.dumps(PROFILE)
OTHER_VALUES = [None, True, 7, -2.5, "text", [], [1, "a"], {}, {"x": 1}]
BACKSTOP = "a field has a value the tools do not expect"  # hdbench_report.unexpected()


def one_path_a_shape() -> list[tuple]:
    """A path of each field of the profile (list indices as the first one's)."""
    shapes: dict[tuple, tuple] = {}
    for path in paths(PROFILE):
        if path[:1] == ("profile",):
            shapes.setdefault(shape_of(path), path)
    return list(shapes.values())


def changes() -> list[tuple[str, tuple, object]]:
    out = []
    for path in one_path_a_shape():
        old = get(PROFILE, path)
        out += [("retype", path, new) for new in OTHER_VALUES if kind(new) != kind(old)]
        if isinstance(path[-1], str):
            out.append(("delete", path, None))
    return out


def run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = hdbench_report.main(argv)
    return rc, err.getvalue()


def test_the_profile_has_the_fields_this_test_is_for():
    shapes = {shape_of(p) for p in one_path_a_shape()}
    for field in [("profile", "idle", "by_cause_s", "input_pipeline"), ("profile", "model", "step_spread", "gc_s"),
                  ("profile", "model", "handover", "pin_thread_batch_s"),
                  ("profile", "findings_left_out", None, "saving_added_s"), ("profile", "totals", "copy_cost_s")]:
        assert field in shapes, field
    assert len(changes()) > 3000


def test_every_field_changed_or_deleted_is_refused_at_load_or_read(tmp_path):
    base = tmp_path / "base.json"
    base.write_text(TEXT)
    changed = tmp_path / "r.json"
    commands = {"summarize": ["summarize", str(changed), "-o", str(tmp_path / "s.md")],
                "compare": ["compare", str(base), str(changed)],
                "verify": ["verify", str(changed), str(LEASE / "ablation.json")]}
    problems = []
    for how, path, new in changes():
        report = with_change(json.loads(TEXT), path, new, delete=how == "delete")
        try:
            report_schema.validate(report, "r.json")
        except report_schema.ReportError as e:
            if not str(e).startswith("r.json: ") or "\n" in str(e):
                problems.append(f"{how} {path} to {new!r}: {e}")
            continue
        changed.write_text(json.dumps(report))
        for command, argv in commands.items():
            try:
                rc, err = run(argv)
            except Exception as e:  # noqa: BLE001  any exception out of main() is a problem
                problems.append(f"{command}, {how} {path} to {new!r}: {type(e).__name__} {e}")
                continue
            if BACKSTOP in err or "Traceback" in err or (rc == 2 and len(err.splitlines()) != 1):
                problems.append(f"{command}, {how} {path} to {new!r}: exit {rc}: {err.strip()}")
    assert not problems, f"{len(problems)} problems, the first: " + "\n".join(problems[:10])


@pytest.mark.parametrize("path, new, message", [
    (("profile", "idle", "by_cause_s", "host"), "x", "profile.idle.by_cause_s.host: expected a number >= 0"),
    (("profile", "idle", "gaps"), -3, "profile.idle.gaps: expected an integer >= 0"),
    (("profile", "model", "batches"), None, "profile.model.batches: expected an integer >= 0"),
    (("profile", "model", "step_spread", "max_ms"), {}, "profile.model.step_spread.max_ms: expected a number >= 0"),
    (("profile", "findings_left_out", 0, "fix"), 1, "profile.findings_left_out[0].fix: expected a string"),
    (("profile", "totals", "copy_cost_s"), -1.0, "profile.totals.copy_cost_s: expected a number >= 0"),
    (("profile", "model", "handover", "pin_thread_batch_s"), "1 ms",
     "profile.model.handover.pin_thread_batch_s: expected a number >= 0 or null"),
    (("profile", "model", "handover", "batch_s"), None,
     'profile.model.handover: missing field "batch_s" (a measured hand-over has it)'),
])
def test_a_wrong_value_is_named_with_its_path(path, new, message):
    with pytest.raises(report_schema.ReportError, match=re.escape(message)):
        report_schema.validate(with_change(json.loads(TEXT), path, new), "r.json")


@pytest.mark.parametrize("path, message", [
    (("profile", "model", "seconds", "T"), 'profile.model.seconds: missing field "T"'),
    (("profile", "model", "saving_together_s"), 'profile.model: missing field "saving_together_s"'),
    (("profile", "model", "step_spread", "gc_s"), 'profile.model.step_spread: missing field "gc_s" '
                                                  '(it has "stalls_with_gc")'),
    (("profile", "idle", "by_cause_s"), 'profile.idle: missing field "by_cause_s"'),
    (("profile", "findings_left_out", 0, "saving_alone_s"), 'missing field "saving_alone_s"'),
])
def test_a_missing_field_is_named(path, message):
    with pytest.raises(report_schema.ReportError, match=re.escape(message)):
        report_schema.validate(with_change(json.loads(TEXT), path, delete=True), "r.json")


def test_a_spread_of_no_steps_is_empty_and_valid():
    report = with_change(json.loads(TEXT), ("profile", "model", "step_spread"), {})
    assert report_schema.validate(report, "r.json") is not None


def test_verify_prices_a_left_out_fix_from_its_own_price_where_the_model_has_none(tmp_path):
    """The model's price of a fix alone is the one verify holds; where a report lacks it (the
    model deleted, or older), the finding left out still carries it."""
    report = json.loads(TEXT)
    del report["profile"]["model"]["saving_alone_s"]["workers"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = hdbench_report.main(["verify", str(path), str(LEASE / "ablation.json")])
    assert rc in (0, 1)
    row = next(line for line in out.getvalue().splitlines() if "`--fix workers` alone" in line)
    assert "not advised beside the findings; alone it saves" in row
