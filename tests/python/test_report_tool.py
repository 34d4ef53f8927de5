"""tools/hdbench_report.py on real reports from the binary and on bad input."""

from __future__ import annotations

import json

import pytest

import hdbench_report
from conftest import run_report_tool


def test_plot_draws_host_memcpy_series_from_a_real_report(quick_report, tmp_path):
    _, report = quick_report
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    series, left_out, _ = hdbench_report.collect([(str(path), report)])
    assert set(series["host_memcpy"]) == {"threads=1", "threads=2"}
    assert sorted(x for x, _ in series["host_memcpy"]["threads=1"]) == [4096, 65536]
    if not report["context"]["hdbench"]["system"]["gpu_usable"]:
        assert "transfer" not in series and left_out  # skipped runs are listed, not drawn
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


def test_streams_figures_split_by_size_and_compute_ratio(tmp_path):
    """Synthetic report (made up here, not measured): two compute ratios, sync and pipelined."""
    def entry(name, ratio, variant, chunks, streams, fraction, status="ok"):
        return {"name": name, "run_type": "iteration", "status": status,
                "params": {"family": "streams", "variant": variant, "memory": "pinned", "bytes": 1024,
                           "compute_ratio": ratio, "chunks": chunks, "streams": streams, "issue_order": "by_chunk"},
                "counters": {"fraction_of_ideal": fraction}}
    report = {"context": {"host_name": "synthetic", "hdbench": {"started_at": "2026-11-20", "system": {"gpus": []}}},
              "benchmarks": [entry("a", 1.0, "sync", 1, 1, 0.99), entry("b", 1.0, "pipelined", 4, 2, 0.8),
                             entry("c", 1.0, "pipelined", 16, 2, 0.9), entry("d", 2.0, "pipelined", 4, 2, 0.85),
                             entry("e", 2.0, "pipelined", 64, 2, 0.0, status="skipped"),
                             {"name": "h", "run_type": "iteration", "status": "ok",
                              "params": {"family": "streams", "variant": "host_cost"}, "counters": {"per_call_us": 2.0}}]}
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(report))
    series, left_out, _ = hdbench_report.collect([(str(path), report)])
    one = series["streams--bytes-1024_compute_ratio-1.0"]
    assert one == {"variant=sync memory=pinned streams=1 issue_order=by_chunk": [(1, 0.99)],
                   "variant=pipelined memory=pinned streams=2 issue_order=by_chunk": [(4, 0.8), (16, 0.9)]}
    assert series["streams--bytes-1024_compute_ratio-2.0"] == {
        "variant=pipelined memory=pinned streams=2 issue_order=by_chunk": [(4, 0.85)]}
    assert any(line.startswith("e:") for line in left_out)
    written = hdbench_report.plot([str(path)], str(tmp_path / "fig"))
    assert tmp_path / "fig" / "streams--bytes-1024_compute_ratio-1.0.png" in written


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
                {"bytes": 4096, "direction": "h2d", "method": "malloc_host", "transfers_to_break_even": 40.0},
                {"bytes": 1 << 20, "direction": "h2d", "method": "malloc_host", "transfers_to_break_even": 3.0},
                {"bytes": 1 << 20, "direction": "d2h", "method": "register", "transfers_to_break_even": None}]}}


def test_figures_carry_the_expected_series_and_two_machines_are_told_apart():
    reports = [("a.json", _synthetic_transfer_report("box-a", 50.0)),
               ("b.json", _synthetic_transfer_report("box-b", 25.0))]
    figures, left_out = hdbench_report.build_figures(reports)
    assert set(figures) == {"transfer", "pinning_break_even"} and not left_out
    ax = figures["transfer"].axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    a_pinned = next(label for label in lines if label.startswith("box-a") and "memory=pinned" in label)
    assert list(lines[a_pinned].get_xdata()) == [4096, 1 << 20]
    assert list(lines[a_pinned].get_ydata()) == [5.0, 50.0]
    assert any(label.startswith("box-b") and "memory=pageable" in label for label in lines)
    assert "PCIe link 63.0 GB/s" in lines  # the link's theoretical rate is drawn in
    assert ax.get_yscale() == "log" and ax.get_xscale() == "log"
    assert "box-a" in ax.get_title() and "2026-11-20" in ax.get_title()
    # Break-even: null (never pays off) is left out, not drawn as zero.
    be = {line.get_label(): line for line in figures["pinning_break_even"].axes[0].get_lines()}
    key = next(label for label in be if label.startswith("box-a") and "method=malloc_host" in label)
    assert list(be[key].get_ydata()) == [40.0, 3.0]
    assert not any("method=register" in label for label in be)
    for fig in figures.values():
        fig.clf()


def test_before_and_after_on_one_machine_are_told_apart_by_file_name():
    reports = [("runs/before.json", _synthetic_transfer_report("box-a", 50.0)),
               ("runs/after.json", _synthetic_transfer_report("box-a", 25.0))]
    figures, _ = hdbench_report.build_figures(reports)
    lines = {line.get_label(): line for line in figures["transfer"].axes[0].get_lines()}
    pinned = "direction=h2d memory=pinned engine=copy variant=per_copy"
    assert list(lines[f"before: {pinned}"].get_ydata()) == [5.0, 50.0]
    assert list(lines[f"after: {pinned}"].get_ydata()) == [2.5, 25.0]
    # Same file name in two folders: the whole path tells them apart.
    series, _, _ = hdbench_report.collect([("x/r.json", reports[0][1]), ("y/r.json", reports[1][1])])
    assert {label.split(": ")[0] for label in series["transfer"]} == {"x/r.json", "y/r.json"}
    for fig in figures.values():
        fig.clf()


def test_a_family_without_data_draws_no_figure(quick_report):
    _, report = quick_report
    figures, _ = hdbench_report.build_figures([("r.json", report)])
    for name, fig in figures.items():
        if name.startswith("loader_heatmap--"):
            assert fig.axes[0].images and fig.axes[0].texts, name  # a heat map has cells, each annotated
        else:
            assert fig.axes[0].get_lines(), name  # every figure drawn has at least one series
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
    assert labels == ["threads=2", "threads=16", "threads=128"]
    for fig in figures.values():
        fig.clf()


def test_plotting_the_same_report_twice_writes_the_same_files(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_synthetic_transfer_report("box-a", 50.0)))
    first = hdbench_report.plot([str(path)], str(tmp_path / "one"))
    second = hdbench_report.plot([str(path)], str(tmp_path / "two"))
    assert [p.name for p in first] == [p.name for p in second] and first
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name
