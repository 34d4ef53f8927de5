"""The report tools on hdbench_profile's reports: no benchmarks, a `profile` section.

The fixture (tests/python/fixtures/profile/synthetic-train.json) is synthetic: made up
for these tests, marked `"synthetic": true`, shaped as docs/report-format.md describes the
section. The summary and the page open with the answer (the findings that save >= 2% of
the span, ranked, or "nothing worth fixing"; the reason when nothing was recorded), the
copy-class table shows the classes that make up most of the copy time, the figure keeps
the rules of every figure, and a hostile profile (a field of another type, a field
missing, a number at the ends of the range) ends in exit code 2 with one line naming the
file, or is drawn and summarized without an error. A report without a profile renders
as before (test_report_golden.py checks that byte for byte).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from conftest import run_report_tool
from json_paths import get, kind, paths, shape_of, with_change
from hdreport import figures as report_figures
from hdreport import page as report_page
from hdreport import summary as report_summary
from hdreport.core import schema as report_schema

FIXTURE = Path(__file__).parent.parent / "fixtures" / "profile" / "synthetic-train.json"
H100 = Path(__file__).parent.parent / "fixtures" / "h100-2026-11-22" / "transfer.json"
REPORT = json.loads(FIXTURE.read_text())
QUESTION = "## Does `python3 train.py --epochs 2` move data well on this machine?"


def fresh() -> dict:
    return copy.deepcopy(REPORT)


def summarize(report: dict, name: str = "profile.json") -> str:
    return report_summary.summarize_reports([(name, report_schema.validate(report, name))])


def answer_of(text: str) -> str:
    """The first section's text: the answer."""
    start = text.index("\n## ") + 1
    end = text.find("\n## ", start)
    return text[start:end if end > 0 else None]


def klass(direction="h2d", src="pageable", dst="device", time_s=0.01, ceiling=10.0, **extra) -> dict:
    nbytes = 1 << 20
    achieved = nbytes / time_s / 1e9
    return {"direction": direction, "src": src, "dst": dst, "blocking": True, "size_bucket": "64 KiB-1 MiB",
            "count": 1, "bytes": nbytes, "time_s": time_s, "achieved_GB/s": achieved, "ceiling_GB/s": ceiling,
            "ceiling_source": "" if ceiling is None else "transfer/h2d/pageable/copy at 1 MiB in base.json",
            "fraction_of_ceiling": None if ceiling is None else achieved / ceiling, "overlapped_s": 0.0, **extra}


def test_the_fixture_is_a_valid_synthetic_profile_without_benchmarks():
    report = report_schema.validate(fresh(), "profile.json")
    assert report["benchmarks"] == [] and report["profile"]["synthetic"] is True
    assert [c["time_s"] for c in report["profile"]["copy_classes"]] == \
        sorted((c["time_s"] for c in report["profile"]["copy_classes"]), reverse=True)


def test_a_long_command_is_named_by_its_files_in_the_titles_and_whole_below():
    """The H100's bundle ran /tmp/bundle/examples/fashion_mnist/tutorial_style.py: the titles
    name tutorial_style.py and its options, the section on how it was profiled the whole line."""
    report = fresh()
    report["profile"]["command"] = ["python3", "/tmp/bundle/examples/fashion_mnist/tutorial_style.py", "--steps",
                                    "1000", "--data-dir=/srv/fm/"]
    text = summarize(report)
    assert text.startswith("# hdbench_profile: `python3 tutorial_style.py --steps 1000 --data-dir=/srv/fm/` ")
    assert "## Does `python3 tutorial_style.py --steps 1000 --data-dir=/srv/fm/` move data well" in text
    assert "`python3 /tmp/bundle/examples/fashion_mnist/tutorial_style.py --steps 1000 --data-dir=/srv/fm/`" \
        in text
    report["profile"]["command"] = ["python3", "/a/train.py", *(f"--option-{i}=value" for i in range(9))]
    title = summarize(report).splitlines()[0]  # still too long with its file names: cut
    assert title.startswith("# hdbench_profile: `python3 train.py --option-0=value") and "…` on " in title


def test_the_summary_opens_with_the_answer():
    text = summarize(fresh())
    assert text.startswith("# hdbench_profile: `python3 train.py --epochs 2` on NVIDIA H100 80GB HBM3 + ")
    assert text.split("\n")[2] == QUESTION  # the first section is the question
    answer = answer_of(text)
    assert "**Synthetic**" in answer and "test generator" in answer  # a synthetic profile says so
    verdict = next(line for line in answer.splitlines() if line.startswith("**No"))
    assert "3 changes would each save at least 2%" in verdict and "950 ms (7.9%)" in verdict
    # The advice in the tutorials' words, with the saving in ms and as a share of the span.
    assert "saves **950 ms, 7.9% of the span**" in answer and "pin_memory=True" in answer
    assert answer.index("pin_memory=True") < text.index("## Where the copy time goes")
    assert "Copies took 1.64 s (13.7% of the span)" in answer and "exit code 0" in answer
    # Every part is there, in order.
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert [h.split(" (")[0] for h in headings] == [QUESTION, "## Where the copy time goes", "## What the copies cost",
                                                    "## How it was profiled", "## Glossary"]  # its span, ceiling
    assert "cannot answer" not in text and "Not measured" not in text  # no benchmark questions asked of a profile


def test_findings_are_ranked_by_saving_and_small_ones_are_not_recommended():
    report = fresh()
    report["profile"]["findings"].reverse()
    answer = answer_of(summarize(report))
    ranked = re.findall(r"^- \*\*(\d)\. [^*]+\*\* \(`(\w+)`\)", answer, re.M)
    assert ranked == [("1", "pageable_to_pinned"), ("2", "drop_blocking_reads"), ("3", "pack_small_copies")]
    minor = next(line for line in answer.splitlines() if line.startswith("Under 2% of the span"))
    assert "`overlap_copies` (120 ms, 1.0%)" in minor and "`move_once` (50 ms, 0.4%)" in minor


@pytest.mark.parametrize("findings", [[], "small"])
def test_no_finding_worth_fixing_says_so(findings):
    report = fresh()
    p = report["profile"]
    p["findings"] = [] if findings == [] else [f for f in p["findings"] if f["saving_fraction_of_span"] < 0.02]
    answer = answer_of(summarize(report))
    assert "**Yes: nothing worth fixing** (no finding saves ≥ 2% of the 12.00 s span)." in answer
    assert "**No" not in answer and ("Under 2% of the span" in answer) == (findings == "small")


def test_the_copy_table_shows_the_classes_that_make_up_most_of_the_time():
    text = summarize(fresh())
    section = text[text.index("## Where the copy time goes"):text.index("## What the copies cost")]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| direction")]
    assert len(rows) == 3  # 1.10 + 0.36 + 0.09 s of 1.64 s: past 90%
    assert rows[0].strip("| ").split(" | ") == ["H2D", "pageable → device", "blocking", "1-16 MiB", "2,400",
                                                "1,100 ms", "7.01 GB/s", "7.7 GB/s", "91%"]
    assert "the 3 that took the most time (94.5% of it)" in section
    assert "6 more classes (5.5% of the copy time) left out" in section


def test_a_tiny_copy_s_rates_read_in_mb_per_s():
    """1,000 4-byte reads (an H100 tutorial's .item(), 2026-11-28) at 0.000233 GB/s against
    0.00124: the table writes each rate with its unit, MB/s below 0.01 GB/s."""
    report = fresh()
    tiny = klass(direction="d2h", src="device", dst="pinned", time_s=0.0172, ceiling=0.00124)
    tiny.update({"bytes": 4000, "count": 1000, "size_bucket": "≤ 4 KiB", "achieved_GB/s": 4000 / 0.0172 / 1e9,
                 "fraction_of_ceiling": 4000 / 0.0172 / 1e9 / 0.00124})
    report["profile"]["copy_classes"] = [tiny]
    text = summarize(report)
    row = next(line for line in text.splitlines() if line.startswith("| D2H"))
    assert row.strip("| ").split(" | ")[6:] == ["0.233 MB/s", "1.24 MB/s", "19%"]


def test_the_copy_table_stops_at_twelve_rows():
    report = fresh()
    report["profile"]["copy_classes"] = [klass(time_s=0.01) for _ in range(20)]
    text = summarize(report)
    section = text[text.index("## Where the copy time goes"):text.index("## What the copies cost")]
    assert len(re.findall(r"^\| H2D", section, re.M)) == 12 and "8 more classes (40.0% of the copy time)" in section


def test_an_unknown_ceiling_says_why():
    report = fresh()
    p = report["profile"]
    p["copy_classes"] = [klass("h2d", "managed", "device", 0.5, None), klass(time_s=0.4, ceiling=None),
                         klass(time_s=0.1)]
    text = summarize(report)
    assert "| – (managed memory) | – |" in text and "| – (none in the baseline) | – |" in text
    assert ("- H2D managed → device, blocking, 64 KiB-1 MiB: managed memory has no copy ceiling in the baseline."
            in text)
    assert "- H2D pageable → device, blocking, 64 KiB-1 MiB: the baseline has no copy of this kind." in text
    # The profiler's own reason, where it gives one, is quoted.
    p["copy_classes"][1]["ceiling_source"] = "the baseline has no pageable H2D copies"
    assert "64 KiB-1 MiB: the baseline has no pageable H2D copies." in summarize(report)
    p["baseline"].update(how="none", path=None)
    text = summarize(report)
    assert text.count("– (no baseline)") == 2  # the one class with a ceiling keeps it
    assert "Baseline: none (no report of this machine was given or found, and none was measured)" in text


def test_a_profile_that_recorded_nothing_says_why_first():
    report = fresh()
    p = report["profile"]
    p.update(recorded=False, not_recorded_reason="CUPTI could not start: another profiler (Nsight Systems?) is "
             "attached", exit={"code": 137, "signal": "SIGKILL"})
    for key in ("totals", "copy_classes", "costs", "findings"):
        del p[key]
    text = summarize(report)
    answer = answer_of(text)
    assert "**Cannot tell: nothing was recorded.** CUPTI could not start: another profiler" in answer
    assert "killed by SIGKILL, exit code 137" in answer
    assert "## Where the copy time goes" not in text and "## How it was profiled" in text
    # a CPU-only program: the reason starts its sentence, and no baseline is wanted, not missing
    p.update(not_recorded_reason="the command made no CUDA calls (no process loaded the CUDA runtime)")
    p["baseline"].update(how="none", path="", note="no copies were recorded: no baseline needed")
    text = summarize(report)
    assert ("**Cannot tell: nothing was recorded.** The command made no CUDA calls (no process loaded the CUDA "
            "runtime).") in text
    assert "- Baseline: none. No copies were recorded: no baseline needed.\n" in text
    built, _ = report_figures.build_figures([("p.json", report)])
    assert built == {}  # nothing to draw


def test_a_profile_that_recorded_has_its_results():
    report = fresh()
    del report["profile"]["costs"]
    with pytest.raises(report_schema.ReportError, match=r'^r.json: profile: missing field "costs" \(a profile that '
                                                        r'recorded has it\)$'):
        report_schema.validate(report, "r.json")


def test_the_run_section_names_the_baseline_trace_processes_and_exit():
    report = fresh()
    report["profile"]["trace"] = None
    text = summarize(report)
    run = text[text.index("## How it was profiled"):]
    assert ("Baseline: `reports/synthetic-h100-2026-11-23.json` (the newest report under `reports/` with transfer "
            "copies), NVIDIA H100 80GB HBM3 + Intel(R) Xeon(R) Processor, run 2026-11-23T10:00:00+0000.") in run
    assert "Trace: none written" in run
    assert "**1 of 2 processes did not finish recording**" in run
    assert re.search(r"^\| 4311 \| `python3 eval.py --checkpoint last.pt` \|.*\| \*\*no\*\* \|", run, re.M)


def test_the_figure_keeps_the_rules_and_names_the_command_and_machine():
    from report_figure_checks import check_figure, close

    built, left_out = report_figures.build_figures([("profile.json", fresh())])
    assert list(built) == ["profile_copy_classes"] and left_out == []
    fig = built["profile_copy_classes"]
    check_figure("profile_copy_classes", fig)
    title = fig._suptitle.get_text()
    assert "“python3 train.py --epochs 2”" in title and "NVIDIA H100 80GB HBM3" in title and "synthetic" in title
    drawn = fig.hdbench["bars"]
    assert len(drawn) == 7 and drawn[-1][0] == "other (3 classes)"  # the top 6, then the rest together
    assert [round(t, 3) for _, t, _, _ in drawn[:6]] == [1.1, 0.36, 0.09, 0.045, 0.03, 0.006]
    assert drawn[-1][1] == pytest.approx(0.009)
    close(fig)


def test_a_class_above_its_ceiling_is_drawn_without_a_fraction():
    """The H200's first (schema 1) profile: its pageable copies timed by their DMA records alone read 405% of
    the ceiling; the figure says a figure is off instead of a fraction (or of "no ceiling")."""
    from report_figure_checks import close

    path = Path(__file__).resolve().parents[3] / "reports/reference/h200-2026-11-26/profiles/prof-tut-h200.json"
    built, _ = report_figures.build_figures([(str(path), json.loads(path.read_text()))])
    fig = built["profile_copy_classes"]
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "46.8 GB/s, above 11.6 GB/s: a figure is off" in texts, texts
    assert all(float(x) <= 100 for t in texts for x in re.findall(r"([0-9.]+)% of", t)), texts
    close(fig)


def test_plot_writes_the_figure(tmp_path):
    pytest.importorskip("matplotlib")
    result = run_report_tool("plot", FIXTURE, "-o", tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["profile_copy_classes.png", "profile_copy_classes.svg"]


def test_the_page_opens_with_the_answer_and_inlines_the_figure():
    text = report_page.page([("profile.json", fresh())])
    assert "<h1>hdbench_profile: <code>python3 train.py --epochs 2</code> on NVIDIA H100" in text
    first = text.index("<section id='q-profile'>")
    assert first < text.index("No, not as well as it could") < text.index("id=machine")
    assert "<figure id='fig-profile_copy_classes'>" in text and "Failures and skips" not in text
    assert "a profile of <code>python3 train.py --epochs 2</code>" in text  # the machine table, not "0 benchmarks"
    assert "<script" not in text
    for target in re.findall(r"href='#([^']+)'", text):
        assert f"id='{target}'" in text, target


def test_a_profile_beside_benchmark_reports_comes_first_and_the_rest_is_as_before():
    report = fresh()
    transfer = report_schema.validate(json.loads(H100.read_text()), "transfer.json")
    text = report_summary.summarize_reports([("transfer.json", transfer), ("profile.json", report)])
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[0] == QUESTION and "## How much faster is pinned memory than pageable, and when does pinning " \
        "pay off?" in headings
    assert text.startswith("# hdbench: NVIDIA H100 80GB HBM3")  # the benchmark reports' page, the profile first


def test_several_profiles_are_told_apart():
    a, b = fresh(), fresh()
    b["profile"]["command"] = ["python3", "eval.py"]
    reports = [("a.json", a), ("b.json", b)]
    names = sorted(report_figures.build_figures(reports)[0])
    assert names == ["profile_copy_classes--1-a", "profile_copy_classes--2-b"]
    text = report_summary.summarize_reports(reports)
    assert "move data well on this machine? (`a.json`)" in text and "`python3 eval.py`" in text


def test_reports_without_a_profile_have_no_section():
    transfer = json.loads(H100.read_text())
    assert report_summary.sections([("t.json", transfer)]) == []
    assert report_summary.sections_only_title([("t.json", transfer)]) == ""
    # An empty report without a profile is read as before: every question says it cannot answer.
    empty = {"context": transfer["context"], "benchmarks": []}
    assert "cannot answer" in report_summary.summarize_reports([("e.json", report_schema.validate(empty, "e.json"))])
    with pytest.raises(report_schema.ReportError, match="not an hdbench report"):
        report_schema.validate({"context": transfer["context"], "profile": REPORT["profile"]}, "p.json")


# --- hostile profiles -------------------------------------------------------------


def shapes(value) -> dict[tuple, tuple]:
    """One path of each shape (list indices as None) under `profile`."""
    out = {}
    for p in paths(value["profile"], ("profile",)):
        out.setdefault(shape_of(p), p)
    return out


SHAPES = shapes(REPORT)
OTHER_VALUES = [None, True, 7, -2.5, "", "text", [], [1, "a"], {}, {"x": 1}]
NUMBERS = [0, -1, 1e308, -1e308, 5e-324, 2 ** 63 - 1]


def changed(path, new=None, delete=False) -> dict:
    return with_change(fresh(), path, new, delete)


def read_everywhere(report: dict, page: bool = False, figure: bool = True) -> None:
    """The summary and the figures (and the page) of a report the check at load let through."""
    import matplotlib.pyplot as plt

    report_summary.summarize_reports([("r.json", report)])
    built, _ = report_figures.build_figures([("r.json", report)]) if figure else ({}, [])
    for fig in built.values():
        fig.canvas.draw()
    plt.close("all")
    if page:
        report_page.page([("r.json", report)])


def caught_or_harmless(report: dict, how: str, page: bool = False, figure: bool = True) -> bool:
    """True when the check at load refused it (one line naming the file), False when the tools read it."""
    try:
        report_schema.validate(report, "r.json")
    except report_schema.ReportError as e:
        assert str(e).startswith("r.json: profile") and "\n" not in str(e), (how, str(e))
        return True
    try:
        read_everywhere(report, page, figure)
    except Exception as e:  # noqa: BLE001  any error out of a reader is a hole in the schema
        pytest.fail(f"{how}: {type(e).__name__}: {e}")
    return False


def test_every_profile_field_of_another_type_is_caught_at_load_or_harmless():
    caught = 0
    for path in SHAPES.values():
        old = get(REPORT, path)
        for new in [v for v in OTHER_VALUES if kind(v) != kind(old)]:
            caught += caught_or_harmless(changed(path, new), f"{path} to {new!r}")
    assert caught > 300  # most are refused at load


def test_every_profile_field_deleted_is_caught_at_load_or_harmless():
    for path in SHAPES.values():
        if not isinstance(path[-1], int):
            caught_or_harmless(changed(path, delete=True), f"delete {path}", page=len(path) <= 2)


def test_numbers_at_the_ends_of_the_range_are_caught_or_drawn():
    for path in SHAPES.values():
        if kind(get(REPORT, path)) == "number":
            for new in NUMBERS:  # the figure reads the copy classes' numbers only
                caught_or_harmless(changed(path, new), f"{path} to {new!r}", figure="copy_classes" in path)


def test_a_would_cost_entry_of_another_type_or_missing_a_field_is_caught_at_load_or_harmless():
    """The fixture predates `would_cost`: one entry (a fix that would lengthen the steps) is
    added, and each of its fields retyped or deleted."""
    entry = {"id": "launch_bound", "fix": "launch", "cost_s": 0.5, "cost_fraction_of_span": 0.04, "why": "a reason"}

    def costly() -> dict:
        report = fresh()
        report["profile"]["would_cost"] = [dict(entry)]
        return report

    caught_or_harmless(costly(), "a valid entry", page=True)
    assert "Would cost, not save: `launch_bound` would make the steps 500 ms longer (4.0% of the span): a reason." \
        in summarize(costly())
    for key, old in entry.items():
        for new in [v for v in OTHER_VALUES if kind(v) != kind(old)]:
            caught_or_harmless(with_change(costly(), ("profile", "would_cost", 0, key), new), f"{key} to {new!r}",
                               figure=False)
        caught_or_harmless(with_change(costly(), ("profile", "would_cost", 0, key), delete=True), f"delete {key}",
                           figure=False)
    for new in OTHER_VALUES:
        caught_or_harmless(with_change(costly(), ("profile", "would_cost"), new), f"would_cost to {new!r}",
                           figure=False)


@pytest.mark.parametrize("command", ["summarize", "html", "plot"])
def test_a_hostile_profile_exits_2_with_one_line_naming_the_file(tmp_path, command):
    cases = {"retyped.json": changed(("profile", "copy_classes", 0, "time_s"), "1.1"),
             "missing.json": changed(("profile", "recorded"), delete=True),
             "list.json": changed(("profile",), [REPORT["profile"]])}
    for name, report in cases.items():
        if command != "summarize" and name != "retyped.json":
            continue  # each start imports matplotlib: one case suffices
        path = tmp_path / name
        path.write_text(json.dumps(report))
        out = tmp_path / ("out.md" if command == "summarize" else "out.html" if command == "html" else "figures")
        result = run_report_tool(command, path, "-o", out)
        lines = result.stderr.splitlines()
        assert result.returncode == 2 and len(lines) == 1 and str(path) in lines[0], (name, result.stderr)
        assert "profile" in lines[0] and "Traceback" not in result.stderr


def test_a_profile_from_the_analysis_reads_as_the_fixture_does(tmp_path):
    """The report hdbench_profile writes (hdreport/profile/report.py over profile_fixtures.py's synthetic
    tutorial loop, with and without a baseline) passes the check at load, and its summary, figure and page
    open with the answer."""
    from report_figure_checks import check_figure, close

    records = pytest.importorskip("hdreport.profile.records")
    profile = pytest.importorskip("hdreport.profile.report")
    fixtures = pytest.importorskip("profile_fixtures")
    baseline_report, tutorial = fixtures.baseline_report, fixtures.tutorial

    for base in (baseline_report(), None):
        folder = tmp_path / ("with" if base else "without")
        folder.mkdir()
        tutorial().write(folder)
        recording = records.read_recording(folder)
        baseline = profile.baseline_section("b.json" if base else None, "given" if base else "none", base, "",
                                            "synthetic")
        section = profile.profile_section(["python3", "train.py"], 0, None, 1.5, recording, baseline, base, None)
        path = folder / "profile.json"
        profile.write(str(path), profile.report(section, base, [], "2026-11-20T10:00:00+0000", "x"))
        report = report_schema.load(str(path))
        text = report_summary.summarize_reports([(str(path), report)])
        answer = answer_of(text)
        assert answer.startswith("## Does `python3 train.py` move data well on this machine?")
        assert "**No, not as well as it could**" in answer and "pin_memory=True" in answer
        assert ("– (no baseline)" in text) == (base is None)
        built, _ = report_figures.build_figures([(str(path), report)])
        check_figure("profile_copy_classes", built["profile_copy_classes"])
        close(built["profile_copy_classes"])
        assert "<section id='q-profile'>" in report_page.page([(str(path), report)])


@pytest.mark.parametrize("profile, label", [
    ("h100-2026-11-26b/profiles/prof-tutorial.json", "8.21 GB/s, 66% of 12.5 GB/s"),
    ("h200-2026-11-26/profiles/prof-tut-h200.json", "46.8 GB/s, above 11.6 GB/s: a figure is off"),
])
def test_every_rate_label_ends_inside_its_panel(profile, label):
    """The H100's tutorial profile (rates from 0.25 MB/s to 12.5 GB/s) cut a label "3.06 GB/s,
    24% of 12.5 GB/s" at the figure's edge (its class is gone since every read counts as
    one: the fastest bar's is held now); the H200's ran "… a figure is off" past the panel."""
    from report_figure_checks import check_figure, close, texts_off_the_figure

    path = Path(__file__).resolve().parents[3] / "reports/reference" / profile
    built, _ = report_figures.build_figures([(str(path), json.loads(path.read_text()))])
    fig = built["profile_copy_classes"]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    rates = fig.axes[1]
    assert label in [t.get_text() for t in rates.texts]
    right_edge = rates.get_window_extent(renderer).x1
    assert all(t.get_window_extent(renderer).x1 <= right_edge + 1 for t in rates.texts)
    assert texts_off_the_figure(fig) == []
    check_figure("profile_copy_classes", fig)
    close(fig)


def test_the_summary_names_a_fix_left_out_beside_the_findings():
    """The H100's tutorial profile, made again with the gather fix: workers save 1.4 s alone, but
    beside gathering batches whole they would send them through the worker queue again."""
    path = Path(__file__).resolve().parents[3] / "reports/reference/h100-2026-11-26b/profiles/prof-tutorial.json"
    text = summarize(json.loads(path.read_text()))
    assert "the largest alone, “Gather each batch whole, not sample by sample”" in text
    assert ("Not advised beside these, though worth it alone: `input_pipeline` saves 1,377 ms alone, but made with "
            "them it would give back 2,629 ms of what they save.") in text


def test_the_summary_says_which_fix_would_cost_not_save_and_why(tmp_path):
    """The H200 tutorial's recording with a probe that pinned a batch on one thread in 2 ms
    (an H100 host's pinning alone cost 0.3-0.9 ms a batch): pin_memory=True with num_workers=0
    would make the steps longer, and the summary says by how much and why."""
    from hdreport.profile.handover import Handover
    from profile_fixtures import made_report, tutorial_h200

    slow_pinning = Handover(1500e-6, 1200e-6, 250e-6, (3211264, 8192, 4096), "the probe", pin_here_batch_s=2e-3)
    report = made_report(tutorial_h200(20), tmp_path / "rec", ["python3", "train.py"], 0.06, slow_pinning)
    # 2000 us of pinning a step where the staging call and wait took 408 (the small copies' waits 10 less)
    (costly,) = report["profile"]["would_cost"]
    assert costly["fix"] == "pin" and costly["cost_s"] == pytest.approx(19 * (2000 - 408 - 10) * 1e-6)
    text = summarize(report)
    line = next(line for line in text.splitlines() if line.startswith("Would cost, not save: "))
    assert line.startswith("Would cost, not save: `pageable_to_pinned` would make the steps 30.1 ms longer (")
    assert "pins each batch on the training thread, 2.0 ms a batch (measured here by tools/handover_probe.py)" \
        in line and line.endswith("the pin thread pins instead (input_pipeline).")
    del report["profile"]["would_cost"]  # a report made before it
    assert "Would cost" not in summarize(report)


def test_the_answer_gives_the_saving_as_a_share_of_the_loop_too():
    """The H100's 1000-step tutorial of 2026-11-28b spent 5.7 s of its 9.86 s span before its
    loop (loading data): the saving is 24.5% of the span but 58.3% of the loop's steps, the
    share a run of more steps comes near. Where the loop is not known, the span's share alone."""
    path = Path(__file__).resolve().parents[3] / "reports/reference/h100-2026-11-28b/profiles/prof-tutorial.json"
    report = json.loads(path.read_text())
    answer = answer_of(summarize(report))
    assert ("would save **2,414 ms (24.5%)** of the program's 9.86 s span (58.3% of its 999 steps' 4.14 s, the "
            "share a longer run would save); the largest alone") in answer
    # the same program with every habit fixed reads every 100 turns: 11 stretches, not 11 steps
    fixed = json.loads((path.parent / "prof-tutorial-all.json").read_text())
    assert "(10.1% of its 11 stretches' 2.11 s, the share a longer run would save)" in answer_of(summarize(fixed))
    report["profile"]["model"].update(per_step_reads=False, steps_cut_at="")  # one stretch: no loop
    assert "would save **2,414 ms (24.5%)** of the program's 9.86 s span; the largest alone" in \
        answer_of(summarize(report))


def test_a_profile_without_its_version_says_so_and_names_its_reanalysis():
    # The H100/H200 profiles were recorded from a bundle, where the tools found neither the
    # version nor the revision: their summary read "hdbench_profile  ()".
    report = fresh()
    report["context"]["hdbench"].update(program="hdbench_profile", version="", git_revision="")
    text = summarize(report)
    assert "hdbench_profile (version not recorded)" in text
    assert "hdbench_profile  (" not in text and " ()" not in text
    report["context"]["hdbench"]["reanalysed"] = {"git_revision": "154d3b4", "at": "2026-11-27T01:42:49+0000"}
    assert "analysed again by revision 154d3b4 at 2026-11-27T01:42:49+0000" in summarize(report)
    report["context"]["hdbench"].update(version="0.1.0", git_revision="ffb40a0b4fba")
    assert "hdbench_profile 0.1.0 (ffb40a0b4fba)" in summarize(report)


def test_small_copies_and_the_copy_total_say_each_part_beside_its_whole():
    """An H100 tutorial's profile (2026-11-28) read "3,003 took 3.11 ms of DMA, 10.9 ms of it the
    fixed cost": the part larger than the whole, the fixed cost being the calls', not the DMA's;
    and "20.7 ms of DMA, 142 ms timed from their calls (0.2% of the span)", the share of the
    first number set after the second."""
    report = fresh()
    p = report["profile"]
    p["costs"]["small_copies"] = {"count": 3003, "time_s": 3.11e-3, "overhead_s": 10.9e-3}
    p["totals"].update({"copy_s": 20.7e-3, "copy_cost_s": 0.142})
    text = summarize(report)
    assert ("3,003 took 3.11 ms of DMA; their calls' fixed cost, about 10.9 ms (3.63 µs a copy), comes on top."
            in text)
    assert "Copies took 20.7 ms of DMA (0.2% of the span), 142 ms timed from their calls:" in text
    # With the calls' time recorded, the fixed cost is a part of it.
    p["costs"]["small_copies"]["cost_s"] = 35.7e-3
    assert "3,003 took 35.7 ms from their calls (3.11 ms of DMA), 10.9 ms of it the fixed cost of a copy." in \
        summarize(report)
    p["costs"]["small_copies"]["overhead_s"] = None  # no baseline
    assert "the fixed cost of a copy unknown (no baseline to price it)" in summarize(report)


def test_the_prices_say_whose_seconds_they_are():
    """An H100 tutorial's page priced the workers at 604 ms where verify, in a run without the
    recording, priced them at 219 ms and measured 138.5: the page says its prices are the recorded
    run's, and less without the recording. A page with nothing worth fixing has no prices to qualify."""
    text = answer_of(summarize(fresh()))
    assert "The prices are in this recorded run's seconds." in text and "`hdbench_report.py verify`" in text
    report = fresh()
    report["profile"]["findings"] = []
    assert "recorded run's seconds" not in summarize(report)


def test_each_rate_is_drawn_as_its_share_of_the_ceiling_on_a_linear_axis():
    """The H100 tutorial of 2026-11-28: the rates were bars on a log axis from an arbitrary
    0.0001 GB/s, so a bar's length meant nothing. Each is now its share of its ceiling, to 100%."""
    from report_figure_checks import check_figure, close

    path = Path(__file__).resolve().parents[3] / "reports/reference/h100-2026-11-28b/profiles/prof-tutorial.json"
    report = json.loads(path.read_text())
    built, _ = report_figures.build_figures([(str(path), report)])
    fig = built["profile_copy_classes"]
    check_figure("profile_copy_classes", fig)
    rates = fig.axes[1]
    assert rates.get_xscale() == "linear" and rates.get_xlim() == (0, 100)
    from hdreport.profile.figures import TOP

    drawn = sorted(report["profile"]["copy_classes"], key=lambda c: -c["time_s"])[:TOP]  # the classes drawn
    shares = [round(100 * c["fraction_of_ceiling"], 6) for c in drawn
              if c["fraction_of_ceiling"] is not None and c["ceiling_GB/s"] is not None]
    assert sorted(round(p.get_width(), 6) for p in rates.patches) == sorted(shares) and len(shares) >= 4
    close(fig)
