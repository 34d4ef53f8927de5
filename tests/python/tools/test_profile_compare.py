"""tools/hdbench_report.py compare on two hdbench_profile reports: before and after, side by side.

The synthetic reports are made as hdbench_profile makes them (profile_fixtures.py's tutorial_h200 and
well-written loops through hdreport/profile/report.py, against its round-number baseline), or are
hand-edited copies of one; the real ones are the H200's of 2026-11-26 (examples/fashion_mnist's
tutorial_style.py and well_written.py, 3000 steps each), copied from its run folder into
tests/python/fixtures/profile/. Each finding is resolved, new, better, worse or the same; the
realized saving (BEFORE's span minus AFTER's) is attributed to a finding only when it was the one
resolved; AFTER's span longer by more than --threshold exits 1; a profile report against a
benchmark report, or a malformed profile, exits 2 with one line.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import profile_fixtures as fixtures
from conftest import run_report_tool
from hdreport.profile.compare import CLASS_KEY, classify, duration, price
from hdreport.profile.compare_text import sig3

FIXTURES = Path(__file__).parent.parent / "fixtures"
ROOT = Path(__file__).resolve().parents[3]
TUT = FIXTURES / "profile" / "h200-2026-11-26-prof-tut.json"
WELL = FIXTURES / "profile" / "h200-2026-11-26-prof-well.json"
BENCHMARKS = FIXTURES / "h100-2026-11-22" / "transfer.json"


made = fixtures.made_report


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory) -> dict:
    return made(fixtures.tutorial_h200(), tmp_path_factory.mktemp("p") / "tut", ["python3", "tutorial.py"], 1.5)


@pytest.fixture(scope="module")
def well(tmp_path_factory) -> dict:
    return made(fixtures.well_written_h200(), tmp_path_factory.mktemp("p") / "well", ["python3", "well.py"], 0.9)


def write(tmp_path: Path, name: str, report: dict) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(report))
    return path


def compare(tmp_path: Path, before: dict, after: dict, *args: str):
    return run_report_tool("compare", write(tmp_path, "before.json", before), write(tmp_path, "after.json", after),
                           *args)


def row(text: str, first_cell: str) -> list[str]:
    """The cells of the table row whose first cell starts with `first_cell`."""
    line = next(line for line in text.splitlines() if line.startswith(f"| {first_cell}"))
    return [c.strip() for c in line.strip("|").split(" | ")]


def savings(report: dict) -> dict[str, float]:
    return {f["id"]: f["saving_s"] for f in report["profile"]["findings"]}


def test_the_synthetic_pair_is_what_the_tests_assume(tutorial, well):
    assert len(savings(tutorial)) >= 3 and savings(well) == {}
    assert tutorial["profile"]["totals"]["span_s"] > well["profile"]["totals"]["span_s"]


def test_several_findings_resolved_at_once_are_not_separated(tmp_path, tutorial, well):
    result = compare(tmp_path, tutorial, well)
    out = result.stdout
    assert result.returncode == 0 and result.stderr == "", result.stderr
    b, a = tutorial["profile"], well["profile"]
    assert out.startswith("# Profile comparison: `python3 tutorial.py` -> `python3 well.py`")
    span_b, span_a = b["totals"]["span_s"], a["totals"]["span_s"]
    pct = 100 * (span_a - span_b) / span_b
    assert f"**Realized change:** span {duration(span_b)} -> {duration(span_a)} " \
           f"(-{(span_b - span_a) * 1e3:.1f} ms, {pct:+.1f}%); wall 1.50 s -> 900 ms (-600 ms, -40.0%)." in out
    for fid in savings(tutorial):
        cells = row(out, f"`{fid}`")
        assert cells[1] == "**resolved**" and cells[3] == "–" and cells[5] == "not separable", cells
    predicted = sum(savings(tutorial).values())
    n = len(savings(tutorial))
    assert f"{n} findings were resolved at once, so what each saved cannot be separated" in out
    assert f"sum to {predicted * 1e3:.1f} ms, {100 * predicted / span_b:.1f}% of its span" in out
    assert f"the span fell {(span_b - span_a) * 1e3:.1f} ms, a saving of {(span_b - span_a) * 1e3:.1f} ms in all " \
           f"({100 * (span_b - span_a) / predicted:.0f}% of the prediction)" in out
    assert "**Synthetic:** BEFORE and AFTER" in out
    assert out.rstrip().endswith("(threshold 5%).") and "No regression" in out


def finding(fid: str, saving_s: float, **extra) -> dict:
    return {"id": fid, "saving_s": saving_s, "saving_fraction_of_span": 0.0, "what": "seen", "advice": "do",
            "evidence": "numbers", **extra}


def test_findings_are_resolved_new_better_worse_or_the_same(tmp_path, tutorial):
    before, after = copy.deepcopy(tutorial), copy.deepcopy(tutorial)
    span_b = before["profile"]["totals"]["span_s"]
    before["profile"]["findings"] = [finding("pageable_to_pinned", 0.030), finding("drop_blocking_reads", 0.020),
                                     finding("overlap_copies", 0.010), finding("pack_small_copies", 0.005)]
    after["profile"]["findings"] = [finding("drop_blocking_reads", 0.022),  # +10%: worse
                                    finding("overlap_copies", 0.005),  # -50%: better
                                    finding("pack_small_copies", 0.0052),  # +4%, within 5%: the same
                                    finding("move_once", 0.002)]  # new
    statuses = {f.id: f.status for f in classify(before["profile"], after["profile"], 0.05)}
    assert statuses == {"pageable_to_pinned": "resolved", "drop_blocking_reads": "worse",
                        "overlap_copies": "better", "pack_small_copies": "same", "move_once": "new"}
    # A 3% threshold makes the 4% rise worse; 15% makes the 10% rise the same.
    assert {f.id: f.status for f in classify(before["profile"], after["profile"],
                                                             0.03)}["pack_small_copies"] == "worse"
    assert {f.id: f.status for f in classify(before["profile"], after["profile"],
                                                             0.15)}["drop_blocking_reads"] == "same"
    # Exactly one resolved: the span's whole change is attributed to it. (The loop's steps are the
    # same recording's on both sides: nothing realized there.)
    after["profile"]["totals"]["span_s"] = span_b - 0.010
    result = compare(tmp_path, before, after)
    out = result.stdout
    assert result.returncode == 0, result.stderr
    assert row(out, "`pageable_to_pinned`")[1:] == ["**resolved**", f"30.0 ms ({100 * 0.030 / span_b:.1f}%)", "–",
                                                    "–", "0 s on the loop's steps; 10.0 ms on the span"]
    assert (f"one finding was resolved, `pageable_to_pinned`: BEFORE predicted it would save 30.0 ms, "
            f"{100 * 0.030 / span_b:.1f}% of its span; the span fell 10.0 ms, a realized saving of 10.0 ms "
            "(33% of the prediction), attributed to it.") in out
    assert "Other findings changed too (`drop_blocking_reads` worse, `move_once` new, `overlap_copies` better)" in out
    assert row(out, "`drop_blocking_reads`")[1:5] == ["**worse**", f"20.0 ms ({100 * 0.020 / span_b:.1f}%)",
                                                      f"22.0 ms ({100 * 0.022 / (span_b - 0.010):.1f}%)",
                                                      "+2.00 ms (+10.0%)"]
    assert row(out, "`overlap_copies`")[1] == "**better**" and row(out, "`overlap_copies`")[4] == "-5.00 ms (-50.0%)"
    assert row(out, "`pack_small_copies`")[1] == "same"
    assert row(out, "`move_once`")[1:4] == ["**new**", "–", f"2.00 ms ({100 * 0.002 / (span_b - 0.010):.1f}%)"]
    assert "1 resolved, 1 worse, 1 new, 1 better, 1 same." in out
    # Rows by status: resolved, worse, new, better, same.
    order = [line.split("`")[1] for line in out[:out.index("## Totals")].splitlines() if line.startswith("| `")]
    assert order == ["pageable_to_pinned", "drop_blocking_reads", "move_once", "overlap_copies", "pack_small_copies"]


def test_the_realized_saving_on_the_loops_steps_is_set_beside_the_spans():
    """The H200's plain tutorial against every habit fixed (model-v2): the span fell 800 ms,
    but the all-fixed program's span also holds its workers' start; its steps took 1.90 ms a
    batch against 3.02 ms, 1.12 s over the plain run's 999 batches: 78% of the 1.43 s predicted
    for per_sample_batches, where the span gives 56%."""
    folder = ROOT / "reports" / "reference" / "h200-2026-11-26" / "profiles" / "model-v2"
    result = run_report_tool("compare", folder / "prof-tutorial.json", folder / "prof-tutorial-all.json")
    out = result.stdout
    assert row(out, "the loop's steps, a batch") == ["the loop's steps, a batch", "3.02 ms", "1.90 ms",
                                                     "-1.12 ms (-37.1%)"]
    assert row(out, "`per_sample_batches`")[-1] == "1.12 s on the loop's steps; 800 ms on the span"
    assert "a batch took 3.02 ms before and 1.90 ms after: 1.12 s over BEFORE's 999 batches (78% of the " \
           "prediction)." in out


def test_no_loop_steps_are_compared_where_a_profile_is_one_stretch(tmp_path, tutorial, well):
    """well_written_h200 has no per-step read: its one stretch holds set-up, not the loop alone."""
    result = compare(tmp_path, tutorial, well)
    assert "the loop's steps" not in result.stdout


def test_a_saving_alone_prices_a_finding_where_the_profile_has_one(tmp_path, tutorial):
    """Schema 2: `saving_s` is what a fix adds to those ranked above it (it moves when another finding goes);
    `saving_alone_s`, what it saves alone, is the finding's price. Several resolved: their `saving_s` add up."""
    before, after = copy.deepcopy(tutorial), copy.deepcopy(tutorial)
    span_b = before["profile"]["totals"]["span_s"]
    before["profile"]["findings"] = [finding("input_pipeline", 0.040, saving_alone_s=0.040),
                                     finding("pageable_to_pinned", 0.010, saving_alone_s=0.025),
                                     finding("drop_blocking_reads", 0.005, saving_alone_s=0.020,
                                             assumption="the host runs ahead into the next step")]
    after["profile"]["findings"] = [finding("drop_blocking_reads", 0.020, saving_alone_s=0.020,
                                            assumption="the host runs ahead into the next step")]
    after["profile"]["totals"]["span_s"] = span_b - 0.045
    out = compare(tmp_path, before, after).stdout
    assert row(out, "`drop_blocking_reads`")[1] == "same"  # its saving_s quadrupled, its price did not change
    assert row(out, "`pageable_to_pinned`")[2] == f"25.0 ms ({100 * 0.025 / span_b:.1f}%)"
    assert row(out, "`pageable_to_pinned`")[5] == row(out, "`input_pipeline`")[5] == "not separable"
    assert (f"2 findings were resolved at once, so what each saved cannot be separated. Their predicted savings sum "
            f"to 50.0 ms, {100 * 0.050 / span_b:.1f}% of its span (`saving_s`: each counts what its fix adds to "
            "those ranked above it); realized: the span fell 45.0 ms, a saving of 45.0 ms in all (90% of the "
            "prediction).") in out
    assert "- `drop_blocking_reads` (both): the host runs ahead into the next step" in out


@pytest.mark.parametrize("grow, args, code", [(1.04, (), 0), (1.06, (), 1), (1.06, ("--threshold", "10"), 0),
                                              (0.5, (), 0)])
def test_a_longer_span_beyond_the_threshold_is_a_regression(tmp_path, tutorial, grow, args, code):
    after = copy.deepcopy(tutorial)
    after["profile"]["totals"]["span_s"] *= grow
    result = compare(tmp_path, tutorial, after, *args)
    assert result.returncode == code, result.stdout + result.stderr
    assert ("**REGRESSION:** AFTER's span is +6.0% against BEFORE's, beyond the 5% threshold." in result.stdout) == \
        (code == 1)


def test_the_reverse_pair_is_all_new_and_a_regression(tmp_path, tutorial, well):
    result = compare(tmp_path, well, tutorial)
    assert result.returncode == 1, result.stdout + result.stderr
    assert all(row(result.stdout, f"`{fid}`")[1] == "**new**" for fid in savings(tutorial))
    assert "no finding was resolved; the span grew" in result.stdout
    assert compare(tmp_path, well, tutorial, "--threshold", "1000").returncode == 0


def test_totals_copy_classes_and_idle_side_by_side(tmp_path, tutorial, well):
    before, after = copy.deepcopy(tutorial), copy.deepcopy(well)
    before["profile"]["totals"]["memset_s"] = 0.004  # a total a newer profiler adds: shown when both have it
    after["profile"]["totals"]["memset_s"] = 0.001
    before["profile"]["totals"]["launches"] = 9  # in one report only: named, not compared
    before["profile"]["idle"] = {"gpu_idle_s": 0.0168, "gaps": 12, "by_cause_s": {"blocking_reads": 0.0148,
                                                                                  "host_launch": 0.002}}
    after["profile"]["idle"] = {"gpu_idle_s": 0.01, "gaps": 7, "unattributed_s": 0.0002,  # profile/host.py's shape
                                "by_cause_s": {"host_launch": 0.00001, "data_loading": 0.0001}}
    before["profile"]["findings"][0]["assumption"] = "the reads can move to every 100th step"
    before["profile"]["unknown_section"] = {"x": [1, 2]}
    out = compare(tmp_path, before, after).stdout
    tb, ta = before["profile"]["totals"], after["profile"]["totals"]
    assert row(out, "span_s")[1:] == [duration(tb["span_s"]), duration(ta["span_s"]),
                                      f"-{(tb['span_s'] - ta['span_s']) * 1e3:.1f} ms "
                                      f"({100 * (ta['span_s'] - tb['span_s']) / tb['span_s']:+.1f}%)"]
    keys = [line.split(" | ")[0].strip("| ") for line in out[out.index("## Totals"):out.index("## Copy classes")]
            .splitlines() if line.startswith("| ") and not line.startswith("| total")]
    assert keys[:6] == ["span_s", "gpu_busy_s", "gpu_idle_s", "kernel_s", "copy_s", "host_blocked_s"]
    assert "memset_s" in keys and "launches" not in keys and "In one report only (not compared): `launches`." in out
    assert row(out, "memset_s")[1:] == ["4.00 ms", "1.00 ms", "-3.00 ms (-75.0%)"]
    assert row(out, "copies")[1:] == [f"{tb['copies']:,}", f"{ta['copies']:,}",
                                      f"{ta['copies'] - tb['copies']:+,} "
                                      f"({100 * (ta['copies'] - tb['copies']) / tb['copies']:+.1f}%)"]
    # Copy classes: keyed by direction, src, dst, blocking, size; those in one report only marked.
    section = out[out.index("## Copy classes"):out.index("## GPU idle by cause")]
    rows = [line for line in section.splitlines() if line.startswith("| H2D") or line.startswith("| D2H")]
    keys_b = {tuple(c[k] for k in CLASS_KEY) for c in before["profile"]["copy_classes"]}
    keys_a = {tuple(c[k] for k in CLASS_KEY) for c in after["profile"]["copy_classes"]}
    assert len(rows) == len(keys_b | keys_a)
    assert sum("**before only**" in r for r in rows) == len(keys_b - keys_a)
    assert sum("**after only**" in r for r in rows) == len(keys_a - keys_b)
    pinned = next(c for c in after["profile"]["copy_classes"] if c["src"] == "pinned")
    cells = next(r for r in rows if "pinned → device" in r).strip("|").split(" | ")
    assert [c.strip() for c in cells[4:]] == ["**after only**", "–", f"{pinned['count']:,}", "–",
                                              f"{pinned['bytes'] / 2**20:.3g} MiB", "–",
                                              duration(pinned["time_s"]), "–",
                                              f"{sig3(pinned['achieved_GB/s'])} GB/s"]  # each rate with its unit
    # The idle section: causes of both, side by side; a value that is not a number ignored.
    assert row(out, "`blocking_reads`")[1:] == ["14.8 ms", "–", "–"]
    assert row(out, "`host_launch`")[1:] == ["2.00 ms", "10.0 µs", "-1.99 ms (-99.5%)"]
    assert row(out, "`data_loading`")[1:] == ["–", "100 µs", "–"]
    assert row(out, "`unattributed`")[1:] == ["–", "200 µs", "–"] and "`gaps`" not in out
    assert "`note`" not in out and "unknown_section" not in out
    fid = before["profile"]["findings"][0]["id"]
    assert f"- `{fid}` (before): the reads can move to every 100th step" in out
    # One report only with the idle section: said, not compared.
    del after["profile"]["idle"]
    assert "Only BEFORE attributes the GPU's idle time by cause" in compare(tmp_path, before, after).stdout


def test_a_profile_that_recorded_nothing_compares_what_exists(tmp_path, tutorial):
    after = copy.deepcopy(tutorial)
    p = after["profile"]
    p.update(recorded=False, not_recorded_reason="CUPTI could not start: another profiler is attached", wall_s=9.0)
    for key in ("totals", "copy_classes", "costs", "findings"):
        del p[key]
    for before, after_ in ((tutorial, after), (after, tutorial)):
        result = compare(tmp_path, before, after_)
        assert result.returncode == 0 and result.stderr == "", result.stdout + result.stderr
        side = "AFTER" if after_ is after else "BEFORE"
        assert f"- {side} (`{side.lower()}.json`) recorded nothing: CUPTI could not start: another profiler is " \
               "attached. Only what both reports have is compared." in result.stdout
        assert "| wall |" in result.stdout and "the span cannot be compared" in result.stdout
        assert "**resolved**" not in result.stdout and "**new**" not in result.stdout
        assert f"No span to compare ({side} recorded nothing)" in result.stdout


@pytest.mark.parametrize("order", ["profile first", "benchmarks first"])
def test_a_profile_against_a_benchmark_report_is_bad_usage(tmp_path, order):
    pair = (WELL, BENCHMARKS) if order == "profile first" else (BENCHMARKS, WELL)
    result = run_report_tool("compare", *pair)
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and result.stdout == "" and len(lines) == 1, result.stderr
    assert f"{WELL} is a profile report (hdbench_profile) and {BENCHMARKS} is a benchmark report" in lines[0]


def test_a_malformed_profile_exits_2_with_one_line(tmp_path, well):
    no_section = copy.deepcopy(well)
    del no_section["profile"]  # still hdbench_profile's by its context
    retyped = copy.deepcopy(well)
    retyped["profile"]["totals"]["span_s"] = "9.3"
    listed = copy.deepcopy(well)
    listed["profile"] = [well["profile"]]
    negative = copy.deepcopy(well)
    negative["profile"]["totals"]["span_s"] = -5.0
    cases = {"no-section.json": (no_section, "without a `profile` section"),
             "retyped.json": (retyped, "profile.totals.span_s: expected a number >= 0, got a string"),
             "negative.json": (negative, "profile.totals.span_s: expected a number >= 0"),
             "list.json": (listed, "profile")}
    for name, (report, says) in cases.items():
        path = write(tmp_path, name, report)
        for pair in ((path, WELL), (WELL, path)):
            result = run_report_tool("compare", *pair)
            lines = result.stderr.splitlines()
            assert result.returncode == 2 and len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
            assert str(path) in lines[0] and says in lines[0], lines[0]
    missing = run_report_tool("compare", tmp_path / "absent.json", WELL)
    assert missing.returncode == 2 and "absent.json: cannot read" in missing.stderr


def test_the_h200_profiles_tutorial_to_well_written():
    result = run_report_tool("compare", TUT, WELL)
    out = result.stdout
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert out.startswith("# Profile comparison: `python3 BUNDLE/examples/fashion_mnist/tutorial_style.py --steps "
                          "3000` -> `python3 BUNDLE/examples/fashion_mnist/well_written.py --steps 3000`")
    assert row(out, "wall")[1:] == ["21.06 s", "14.12 s", "-6.93 s (-32.9%)"]
    assert row(out, "span")[1:] == ["16.82 s", "9.34 s", "-7.48 s (-44.5%)"]
    assert "**Realized change:** span 16.82 s -> 9.34 s (-7.48 s, -44.5%); " \
           "wall 21.06 s -> 14.12 s (-6.93 s, -32.9%)." in out
    assert row(out, "`drop_blocking_reads`")[1:] == ["**resolved**", "6.78 s (40.3%)", "–", "–",
                                                     "7.48 s (the whole span's change)"]
    assert ("one finding was resolved, `drop_blocking_reads`: BEFORE predicted it would save 6.78 s, 40.3% of its "
            "span; the span fell 7.48 s, a realized saving of 7.48 s (110% of the prediction), attributed to it."
            in out)
    assert row(out, "host_blocked_s")[1:] == ["116 ms", "19.7 ms", "-96.2 ms (-83.0%)"]
    assert "| H2D | pinned → device | async | 64 KiB-1 MiB | **after only** |" in out
    assert "| H2D | pageable → device | blocking | 64 KiB-1 MiB | **before only** | 2,987 |" in out
    assert "Synthetic" not in out and "different machines" not in out and "GPU idle by cause" not in out
    assert out.rstrip().endswith("No regression: AFTER's span is -44.5% against BEFORE's (threshold 5%).")


def test_the_h200_profiles_well_written_to_tutorial():
    result = run_report_tool("compare", WELL, TUT)
    out = result.stdout
    assert result.returncode == 1, result.stdout + result.stderr
    assert row(out, "`drop_blocking_reads`")[1:4] == ["**new**", "–", "6.78 s (40.3%)"]
    assert row(out, "span")[1:] == ["9.34 s", "16.82 s", "+7.48 s (+80.1%)"]
    assert "no finding was resolved; the span grew 7.48 s." in out
    assert "**REGRESSION:** AFTER's span is +80.1% against BEFORE's, beyond the 5% threshold." in out
    assert run_report_tool("compare", WELL, TUT, "--threshold", "81").returncode == 0


def test_benchmark_reports_still_compare_per_benchmark(tmp_path):
    result = run_report_tool("compare", BENCHMARKS, BENCHMARKS)
    assert result.returncode == 0, result.stderr
    assert "geometric mean of new/base" in result.stdout and "Profile comparison" not in result.stdout


def test_profiles_priced_by_different_models_say_so(tmp_path, tutorial, well):
    """A profile made again by `reanalyse` (or recorded by another revision) against one that was
    not: a finding may be resolved because the model changed, and the comparison says so."""
    same = run_report_tool("compare", write(tmp_path, "b.json", tutorial), write(tmp_path, "a.json", well))
    assert "priced by different models" not in same.stdout
    remade = copy.deepcopy(tutorial)
    remade["context"]["hdbench"]["reanalysed"] = {"git_revision": "abc1234", "at": "2026-11-26T21:00:00+0000"}
    result = run_report_tool("compare", write(tmp_path, "b.json", remade), write(tmp_path, "a.json", well))
    assert result.returncode == 0, result.stderr
    assert "priced by different models (BEFORE by abc1234, AFTER by " in result.stdout
    assert "BEFORE made again by `reanalyse`" in result.stdout


def test_a_finding_fixed_in_part_is_held_against_what_its_price_fell(tmp_path, tutorial):
    """The H100's tutorial of 2026-11-28 against it with every habit fixed: its one finding got
    better (2.41 s to 212 ms), none went away, and the page said only "no finding was resolved"
    beside a span 2.83 s shorter. Made up here: the finding's price falls to a tenth and the
    span by 90% of what it fell."""
    after = copy.deepcopy(tutorial)
    first = after["profile"]["findings"][0]
    fell = 0.9 * price(first)
    for key in ("saving_s", "saving_alone_s"):
        if key in first:
            first[key] *= 0.1
    after["profile"]["totals"]["span_s"] -= 0.9 * fell
    out = compare(tmp_path, tutorial, after).stdout
    assert (f"no finding was resolved outright; 1 got better, `{first['id']}` "
            f"({duration(price(tutorial['profile']['findings'][0]))} → {duration(price(first))}): their prices fell "
            f"{duration(fell)}, what the change was predicted to save; the span fell {duration(0.9 * fell)}, a "
            f"realized saving of {duration(0.9 * fell)} (90% of it).") in out


def test_a_finding_fixed_in_part_is_held_against_the_loops_steps_too():
    """The same comparison on the committed H100 profiles of 2026-11-28: the span fell 2.83 s,
    810 ms of it start-up and what follows the loop, which no fix touches. As for a resolved
    finding, the line sets the loop's steps beside the prediction: a batch 4.14 ms before,
    2.34 ms after, over 999 batches."""
    folder = ROOT / "reports" / "reference" / "h100-2026-11-28b" / "profiles"
    result = run_report_tool("compare", folder / "prof-tutorial.json", folder / "prof-tutorial-all.json")
    assert result.returncode == 0, result.stderr
    assert ("their prices fell 2.20 s, what the change was predicted to save; the span fell 2.83 s, a realized "
            "saving of 2.83 s (129% of it). On the loop's steps, where the prices are made (the span also holds "
            "start-up, workers starting, and what follows the loop), a batch took 4.14 ms before and 2.34 ms after: "
            "1.80 s over BEFORE's 999 batches (82% of the prediction).") in result.stdout
