"""tools/hdbench_report.py on real reports from the binary and on bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import hdbench_report
from conftest import ROOT, run_report_tool
from report_figure_checks import check_figure, close, panels, references, series


def test_plot_draws_host_memcpy_series_from_a_real_report(quick_report, tmp_path):
    _, report = quick_report
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    figures, left_out = hdbench_report.build_figures([(str(path), report)])
    lines = series(panels(figures["host_memcpy"])[""])
    assert set(lines) == {"1 thread", "2 threads"}
    assert [x for x, _ in lines["1 thread"]] == [4096, 65536]
    if not report["context"]["hdbench"]["system"]["gpu_usable"]:
        assert "transfer" not in figures and left_out  # skipped runs are listed, not drawn
    written = hdbench_report.plot([str(path)], str(tmp_path / "fig"))
    assert tmp_path / "fig" / "host_memcpy.png" in written
    assert (tmp_path / "fig" / "host_memcpy.svg").stat().st_size > 0


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    ("", "empty"),
    ('{"benchmarks": [', "not valid JSON"),
    ("[1, 2]", "not an hdbench report"),
    ('{"context": {}, "benchmarks": []}', "not an hdbench report"),
])
def test_bad_reports_exit_2_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    result = run_report_tool("plot", path, "-o", tmp_path / "o")
    assert result.returncode == 2
    assert str(path) in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr


def test_streams_bars_show_each_variants_time_per_buffer(tmp_path):
    """Synthetic derived rows (made up here, not measured): two compute ratios."""
    def row(ratio, sync, pipelined):
        return {"bytes": 1024, "compute_ratio": ratio, "memory": "pinned",
                "sync": {"benchmark": f"s{ratio}", "latency_us": sync},
                "pipelined": {"benchmark": f"p{ratio}", "latency_us": pipelined, "streams": 2, "chunks": 4},
                "pipelined_saving_vs_sync_percent": 100 * (1 - pipelined / sync)}
    report = {"context": {"host_name": "synthetic", "hdbench": {"started_at": "2026-11-20", "system": {"gpus": []}}},
              "benchmarks": [], "derived": {"stream_overlap": [row(1.0, 2000.0, 1000.0), row(2.0, 3000.0, 2400.0)]}}
    figures, _ = hdbench_report.build_figures([("r.json", report)])
    fig = figures["streams_overlap--bytes-1024"]
    check_figure("streams_overlap", fig)
    bars = {(panel[1], s): (value, names) for panel, group, s, value, names in fig.hdbench["bars"]}
    assert bars[("kernel 1× the copy", "sync")] == (2.0, ["s1.0"])  # milliseconds
    assert bars[("kernel 2× the copy", "pipelined")] == (2.4, ["p2.0"])
    texts = sorted(t.get_text() for ax in fig.axes for t in ax.texts if t.get_gid() == "ratio")
    assert texts == ["−20%", "−50%"]
    (tmp_path / "r.json").write_text(json.dumps(report))
    written = hdbench_report.plot([str(tmp_path / "r.json")], str(tmp_path / "fig"))
    assert tmp_path / "fig" / "streams_overlap--bytes-1024.png" in written


def _synthetic_transfer_report(host: str, pinned_gbps: float) -> dict:
    """Made up for the test (not measured)."""
    def run(memory, size, gbps):
        return {"name": f"t/{memory}/{size}", "run_type": "iteration", "status": "ok",
                "params": {"family": "transfer", "direction": "h2d", "memory": memory, "engine": "copy",
                           "variant": "per_copy", "bytes": size},
                "counters": {"bandwidth_GB/s": gbps}}
    return {"context": {"host_name": host, "hdbench": {"started_at": "2026-11-20T00:00:00",
                                                       "system": {"gpus": [{"name": "GPU", "pcie_link_max_gbps": 63.0}]}}},
            "benchmarks": [run("pinned", 4096, pinned_gbps / 10), run("pinned", 1 << 20, pinned_gbps),
                           run("pageable", 1 << 20, pinned_gbps / 3)],
            "derived": {"pinning_break_even": [
                {"bytes": 4096, "direction": "h2d", "method": "malloc_host", "pin_unpin_us": 800.0,
                 "transfers_to_break_even": 40.0},
                {"bytes": 1 << 20, "direction": "h2d", "method": "malloc_host", "pin_unpin_us": 900.0,
                 "transfers_to_break_even": 3.0},
                {"bytes": 1 << 20, "direction": "d2h", "method": "register", "pin_unpin_us": 700.0,
                 "transfers_to_break_even": None}]}}


def test_figures_carry_the_expected_series_and_two_machines_are_told_apart():
    reports = [("a.json", _synthetic_transfer_report("box-a", 50.0)),
               ("b.json", _synthetic_transfer_report("box-b", 25.0))]
    figures, left_out = hdbench_report.build_figures(reports)
    assert set(figures) == {"transfer", "pinning_break_even"} and not left_out
    ax = panels(figures["transfer"])["copy engine, host → device"]
    lines = series(ax)
    assert lines["pinned, a"] == [(4096, 5.0), (1 << 20, 50.0)]
    assert lines["pageable, b"] == [(1 << 20, 25.0 / 3)]
    assert references(ax) == {"PCIe link 63.0 GB/s": 63.0}  # the link's theoretical rate is drawn in
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    title = figures["transfer"]._suptitle.get_text()
    assert "box-a" in title and "box-b" in title and "2026-11-20" in title
    # Break-even: null (never pays off) is noted at the foot of its panel, not drawn as zero.
    be = panels(figures["pinning_break_even"])
    assert series(be["host → device"])["cudaMallocHost, a"] == [(4096, 40.0), (1 << 20, 3.0)]
    assert "cudaHostRegister, a" not in series(be["device → host"])
    notes = [t.get_text() for t in be["device → host"].texts if t.get_gid() == "null_note"]
    # One note at an x: two there printed over each other (an H100's 4 KiB H2D, 2026-11-22).
    assert notes == ["cudaHostRegister, a; cudaHostRegister, b: never pays off"]
    for name, fig in figures.items():
        check_figure(name, fig)
        close(fig)


def test_one_pinning_method_is_named_in_the_title_where_no_legend_says_it():
    """The default preset pins with cudaMallocHost alone: its break-even figure had one line, no
    legend, and nowhere said which method it was."""
    report = _synthetic_transfer_report("box-a", 50.0)
    report["derived"]["pinning_break_even"] = report["derived"]["pinning_break_even"][:2]  # malloc_host only
    figures, _ = hdbench_report.build_figures([("a.json", report)])
    assert figures["pinning_break_even"]._suptitle.get_text().endswith("· cudaMallocHost")
    for fig in figures.values():
        close(fig)


def test_the_bidirectional_panel_is_read_against_twice_the_link():
    report = _synthetic_transfer_report("box-a", 50.0)
    report["benchmarks"].append({"name": "t/bidir", "run_type": "iteration", "status": "ok",
                                 "params": {"family": "transfer", "direction": "bidir", "memory": "pinned",
                                            "engine": "copy", "variant": "per_copy", "bytes": 1 << 20},
                                 "counters": {"bandwidth_GB/s": 100.0}})
    figures, _ = hdbench_report.build_figures([("r.json", report)])
    ax = panels(figures["transfer"])["copy engine, both directions"]
    assert references(ax) == {"PCIe link ×2 (both directions) 126.0 GB/s": 126.0}
    assert ax.get_ylim()[1] > 126.0
    for fig in figures.values():
        close(fig)


def test_before_and_after_on_one_machine_are_told_apart_by_file_name():
    reports = [("runs/before.json", _synthetic_transfer_report("box-a", 50.0)),
               ("runs/after.json", _synthetic_transfer_report("box-a", 25.0))]
    figures, _ = hdbench_report.build_figures(reports)
    lines = series(panels(figures["transfer"])["copy engine, host → device"])
    assert lines["pinned, before"] == [(4096, 5.0), (1 << 20, 50.0)]
    assert lines["pinned, after"] == [(4096, 2.5), (1 << 20, 25.0)]
    for fig in figures.values():
        close(fig)


def test_a_family_without_data_draws_no_figure(quick_report):
    _, report = quick_report
    figures, _ = hdbench_report.build_figures([("r.json", report)])
    for name, fig in figures.items():
        if name.startswith("loader_heatmap--"):
            assert all(ax.images and ax.texts for ax in panels(fig).values()), name  # cells, each annotated
        else:
            check_figure(name, fig)  # every figure drawn has at least one series
    if not report["context"]["hdbench"]["system"]["gpu_usable"]:
        assert "transfer" not in figures and not any(name.startswith("streams") for name in figures)
        # Host loader runs need no GPU; the GPU consumer's are skipped, so no pinning figure.
        assert "loader_pinning" not in figures
        assert not any(name.startswith("loader_heatmap--consumer-gpu") for name in figures)


def test_legend_lists_numbers_in_numeric_order():
    """Made up for the test (not measured): three thread counts of host_memcpy."""
    def run(threads):
        return {"name": f"h/{threads}", "run_type": "iteration", "status": "ok",
                "params": {"family": "host_memcpy", "threads": threads, "bytes": 4096},
                "counters": {"bandwidth_GB/s": float(threads)}}
    report = _synthetic_transfer_report("box-a", 50.0)
    report["benchmarks"] = [run(16), run(2), run(128)]
    figures, _ = hdbench_report.build_figures([("r.json", report)])
    labels = [line.get_label() for line in figures["host_memcpy"].axes[0].get_lines()]
    assert labels == ["2 threads", "16 threads", "128 threads"]
    for fig in figures.values():
        close(fig)


def test_plotting_the_same_report_twice_writes_the_same_files(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_synthetic_transfer_report("box-a", 50.0)))
    first = hdbench_report.plot([str(path)], str(tmp_path / "one"))
    second = hdbench_report.plot([str(path)], str(tmp_path / "two"))
    assert [p.name for p in first] == [p.name for p in second] and first
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_a_bar_grid_cell_no_report_ran_is_said_not_drawn_empty():
    """Two runs of different matrix sizes make a 2 x 2 grid with two cells nothing ran in
    (the H200's quick and newfam strided runs): those say "not measured", with no empty axes."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hdreport.core import bars

    panels = {("quick", "1024x1024"): {"rows": {"a": (1.0, "", ["b1"])}},
              ("newfam", "4096x4096"): {"rows": {"a": (2.0, "", ["b2"])}}}
    fig = bars.draw(plt, "title", "machine", panels, ["a"], {"a": "#123456"}, "GB/s")
    drawn = [ax for ax in fig.axes if ax.axison]
    assert len(fig.axes) == 4 and len(drawn) == 2
    empty_texts = [t.get_text() for ax in fig.axes if not ax.axison for t in ax.texts]
    assert sorted(empty_texts) == ["newfam · 1024x1024\nnot measured", "quick · 4096x4096\nnot measured"]
    assert all(ax.get_ylabel() == "GB/s" for ax in drawn)  # each row's first drawn panel is labelled
    assert [b[3] for b in fig.hdbench["bars"]] == [2.0, 1.0]
    plt.close(fig)


PROFILES = ROOT / "reports" / "reference" / "h100-2026-11-28b" / "profiles"


@pytest.mark.parametrize("command", ["summarize", "html", "reanalyse", "plot"])
@pytest.mark.parametrize("out", ["-", ""])
def test_an_output_of_dash_or_nothing_is_bad_usage_not_a_file_named_dash(tmp_path, command, out):
    extra = [PROFILES / "records" / "tutorial"] if command == "reanalyse" else []
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "hdbench_report.py"), command,
                             PROFILES / "prof-tutorial.json", *extra, "-o", out], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "give a path" in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["summarize", "html", "reanalyse"])
def test_an_output_that_is_an_input_or_a_folder_is_refused_before_any_work(tmp_path, command):
    """Writing a page over the report it reads would lose the report; a folder would leave a
    temporary file beside it."""
    report = tmp_path / "p.json"
    report.write_bytes((PROFILES / "prof-tutorial.json").read_bytes())
    extra = [PROFILES / "records" / "tutorial"] if command == "reanalyse" else []
    result = run_report_tool(command, report, *extra, "-o", report)
    assert result.returncode == 2 and "is also an input" in result.stderr, result.stderr
    assert report.read_bytes() == (PROFILES / "prof-tutorial.json").read_bytes()
    (tmp_path / "folder").mkdir()
    result = run_report_tool(command, report, *extra, "-o", tmp_path / "folder")
    assert result.returncode == 2 and "is a folder" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "p.json"]


@pytest.mark.parametrize("command", ["summarize", "html", "reanalyse", "plot"])
def test_an_output_in_missing_folders_makes_them_only_when_it_is_written(tmp_path, command):
    """`-o new/deeper/out` made both folders while checking it, before the input was read: a run
    refused for a bad input left them behind. Where the input is good they are made."""
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    extra = [PROFILES / "records" / "tutorial"] if command == "reanalyse" else []
    out = tmp_path / "new" / "deeper" / ("figures" if command == "plot" else "out")
    result = run_report_tool(command, bad, *extra, "-o", out)
    assert result.returncode == 2 and "not valid JSON" in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
    result = run_report_tool(command, PROFILES / "prof-tutorial.json", *extra, "-o", out)
    assert result.returncode == 0, result.stderr
    assert out.exists()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run_report_tool(command, PROFILES / "prof-tutorial.json", *extra, "-o", blocker / "out")
    assert result.returncode == 2 and "a-file" in result.stderr and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize("args", [["compare", "A", "B", "--threshold", "5", "--threshold", "50"],
                                  ["summarize", "A", "-o", "a.md", "--out", "b.md"],
                                  ["verify", "A", "B", "--well", "C", "--well", "D"]])
def test_an_option_given_twice_is_bad_usage(tmp_path, args):
    """The last of two thresholds won silently: a CI gate at 5% could be run at 50%."""
    profile = str(PROFILES / "prof-tutorial.json")
    result = run_report_tool(*[profile if a in "ABCD" else a for a in args])
    assert result.returncode == 2 and "given twice; give it once" in result.stderr, result.stderr
    assert not (ROOT / "a.md").exists() and not (ROOT / "b.md").exists()


def test_a_terminal_that_cannot_show_the_summary_gets_escapes_and_a_file_is_utf8_whatever_the_locale(tmp_path):
    """With an ASCII standard output the summary's first "–" ended it as "a field has a value
    the tools do not expect"; a file written there is UTF-8 all the same."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    report = str(PROFILES / "prof-tutorial.json")
    shown = subprocess.run([sys.executable, str(ROOT / "tools" / "hdbench_report.py"), "summarize", report],
                           capture_output=True, env=env, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.isascii() and (b"\\u2013" in shown.stdout or b"\\xb5" in shown.stdout)
    written = subprocess.run([sys.executable, str(ROOT / "tools" / "hdbench_report.py"), "summarize", report, "-o",
                              str(tmp_path / "s.md")], capture_output=True, env=env, timeout=120)
    assert written.returncode == 0, written.stderr
    assert (tmp_path / "s.md").read_bytes().decode("utf-8") == subprocess.run(
        [sys.executable, str(ROOT / "tools" / "hdbench_report.py"), "summarize", report],
        capture_output=True, text=True, encoding="utf-8", timeout=120).stdout.rstrip("\n") + "\n"


@pytest.mark.parametrize("threshold", ["nan", "inf", "-1"])
def test_a_threshold_that_would_switch_the_regression_check_off_is_bad_usage(threshold):
    result = run_report_tool("compare", PROFILES / "prof-tutorial-all.json", PROFILES / "prof-tutorial.json",
                             "--threshold", threshold)
    assert result.returncode == 2 and "--threshold must be a finite number" in result.stderr


def test_reanalysing_records_no_file_of_which_can_be_read_is_an_error(tmp_path):
    """Noise in a records file is no recording: not a report of "nothing worth fixing"."""
    records = tmp_path / "records"
    records.mkdir()
    (records / "records-1106.jsonl.gz").write_bytes(bytes(range(100)))
    (records / "records-1107.jsonl").mkdir()
    result = run_report_tool("reanalyse", PROFILES / "prof-tutorial.json", records, "-o", tmp_path / "out.json")
    assert result.returncode == 2, result.stderr
    assert "no records file could be read" in result.stderr and "records-1106.jsonl.gz" in result.stderr
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("tool, args", [
    ("hdbench_report.py", ["summarize", PROFILES / "prof-tutorial.json"]),
    ("hdbench_report.py", ["plot", ROOT / "reports/reference/h100-2026-11-23b/dataparallel-h100.json", "-o", "FIGS"]),
    ("profile_overhead.py", ["--judge", ROOT / "reports/reference/h100-2026-11-28b/overhead/overhead-well.json"]),
    ("lease_digest.py", [PROFILES]),
])
def test_a_full_standard_output_is_said_as_such_not_blamed_on_the_report(tmp_path, tool, args):
    """plot's list of figures, the overhead table and the digest ended in a traceback."""
    args = [str(tmp_path / "figs") if a == "FIGS" else str(a) for a in args]
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, str(ROOT / "tools" / tool), *args], stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=300)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "No space left on device" in result.stderr, result.stderr


@pytest.mark.parametrize("make, message", [
    (lambda tmp: "/dev/zero", "not a file or a pipe (a device?)"),
    (lambda tmp: os.mkfifo(tmp / "fifo") or tmp / "fifo", "fifo: "),  # no writer: read as empty, no wait
    (lambda tmp: tmp, "Is a directory"),
])
@pytest.mark.parametrize("command", ["summarize", "verify"])
def test_an_input_that_is_not_a_file_is_refused_without_waiting(tmp_path, make, message, command):
    """/dev/zero was read until the memory ran out; a named pipe with no writer waited forever."""
    given = str(make(tmp_path))
    args = [given] if command == "summarize" else [PROFILES / "prof-tutorial.json", given]
    result = run_report_tool(command, *args)
    assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_a_report_given_through_a_pipe_is_read(tmp_path):
    """`summarize <(zcat report.json.gz)`: a pipe with a writer is read to its end."""
    report = ROOT / "reports/reference/h100-2026-11-23b/dataparallel-h100.json"
    result = subprocess.run(f"{sys.executable} {ROOT / 'tools/hdbench_report.py'} summarize <(cat {report})",
                            shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("# hdbench"), result.stderr


def test_ablation_json_nested_beyond_pythons_limit_is_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result = run_report_tool("verify", PROFILES / "prof-tutorial.json", deep)
    assert result.returncode == 2 and "not the JSON of tools/fashion_mnist_ablation.sh" in result.stderr
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "profile_overhead.py"), "--judge", str(deep)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "RecursionError" in result.stderr and "Traceback" not in result.stderr


def test_a_figure_that_fails_leaves_the_folder_as_it_was(tmp_path):
    """plot saved each figure straight into the folder: one that failed left half a new set
    among the old one."""
    import matplotlib

    matplotlib.use("Agg")
    from hdreport import figures as report_figures

    report = ROOT / "reports/reference/h100-2026-11-23b/dataparallel-h100.json"
    out = tmp_path / "figs"
    out.mkdir()
    (out / "old.png").write_bytes(b"an earlier figure")
    drawn, _ = hdbench_report.build_figures([(str(report), hdbench_report.load_report(str(report)))])
    assert len(drawn) >= 2
    last = list(drawn.values())[-1]

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device", str(args[0]))

    last.savefig = full_disk
    with pytest.raises(hdbench_report.ReportError, match="No space left on device"):
        report_figures.write(drawn, str(out))
    assert sorted(p.name for p in out.iterdir()) == ["old.png"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no drawing folder left
    written = report_figures.write(hdbench_report.build_figures(
        [(str(report), hdbench_report.load_report(str(report)))])[0], str(out))
    assert {p.name for p in out.iterdir()} == {"old.png", *(p.name for p in written)}
