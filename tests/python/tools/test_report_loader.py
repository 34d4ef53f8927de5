"""The loader family's figures in tools/hdbench_report.py: samples/s against workers,
the batch x workers heat maps and the direct-over-pin-thread figure, on synthetic
reports (made up here, not measured)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import hdbench_report
from hdreport.families import loader
from conftest import run_report_tool
from report_figure_checks import check_figure, panels, references, series

LINES = "loader--consumer-{consumer}_prefetch_depth-{depth}_shuffle-True_augment-none"
HEATMAP = "loader_heatmap--consumer-{consumer}_prefetch_depth-{depth}_shuffle-True_augment-none"
PANEL = "5 µs/sample"

# (consumer, pinning, batch, workers, depth) -> samples/s; made up, distinct so a mix-up shows.
RATES = {
    ("host", "pageable", 32, 0, 2): 10_000.0,
    ("host", "pageable", 32, 2, 2): 18_000.0,
    ("host", "pageable", 32, 4, 2): 31_500.0,
    ("host", "pageable", 32, 2, 4): 19_000.0,  # a second depth: the 0-worker run counts there too
    ("host", "pageable", 256, 0, 2): 12_000.0,
    ("host", "pageable", 256, 2, 2): 23_000.0,  # no 4-worker run at batch 256: a blank cell
    ("gpu", "direct", 256, 0, 2): 11_000.0,
    ("gpu", "direct", 256, 2, 2): 40_000.0,
    ("gpu", "pin_thread", 256, 0, 2): 10_000.0,
    ("gpu", "pin_thread", 256, 2, 2): 32_000.0,
}


def loader_run(consumer, pinning, batch, workers, depth, rate, status="ok"):
    name = (f"loader/{consumer}/{pinning}/batch:{batch}/workers:{workers}/depth:{depth}/cost_us:5/shuffle/none/"
            "manual_time")
    params = {"family": "loader", "consumer": consumer, "pinning": pinning, "batch": batch, "workers": workers,
              "prefetch_depth": depth, "sample_cost_us": 5.0, "shuffle": True, "augment": "none",
              "dataset": "synthetic", "samples": 600}
    if consumer == "gpu":
        params["device"] = 0
    entry = {"name": name, "run_type": "iteration", "status": status, "params": params,
             "counters": {"samples/s": rate, "epoch_ms": 600 / rate * 1e3} if status == "ok" else {}}
    if status == "skipped":
        entry["skip_reason"] = "no usable GPU"
    return entry


def pinning_row(batch, workers, depth, direct, pin_thread, pageable=None):
    row = {"consumer": "gpu", "batch": batch, "sample_cost_us": 5.0, "shuffle": True, "augment": "none",
           "workers": workers, "prefetch_depth": depth, "direct_samples/s": direct,
           "pin_thread_samples/s": pin_thread, "direct_over_pin_thread": direct / pin_thread}
    if pageable is not None:
        row["pageable_samples/s"] = pageable
    return row


def loader_report(host="synthetic") -> dict:
    runs = [loader_run(*key, rate) for key, rate in RATES.items()]
    runs.append(loader_run("gpu", "pageable", 256, 2, 2, 0.0, status="skipped"))
    runs.append({"name": "loader/aggregate", "run_type": "aggregate", "status": "ok",
                 "params": {**runs[0]["params"]}, "counters": {"samples/s": 1.0}})  # aggregates are not drawn
    return {"context": {"host_name": host, "hdbench": {"started_at": "2026-11-20T10:00:00", "system": {"gpus": []}}},
            "benchmarks": runs,
            "derived": {"loader_pinning": [pinning_row(256, 0, 2, 11_000.0, 10_000.0, pageable=9_000.0),
                                           pinning_row(256, 2, 2, 40_000.0, 32_000.0)]}}


def close(figs: dict) -> None:
    import matplotlib.pyplot as plt

    for fig in figs.values():
        plt.close(fig)


def lines_of(fig, panel=PANEL) -> dict:
    return series(panels(fig)[panel])


@pytest.fixture
def figures():
    figs, left_out = hdbench_report.build_figures([("r.json", loader_report())])
    yield figs, left_out
    close(figs)


def test_lines_are_the_samples_per_second_against_workers(figures):
    figs, _ = figures
    for name, fig in figs.items():
        check_figure(name, fig)
    # One figure per consumer, a panel per sample cost; the host consumer has one pinning mode,
    # so its lines are told apart by batch alone.
    host = lines_of(figs[LINES.format(consumer="host", depth=2)])
    assert host == {"batch 32": [(0, 10_000.0), (2, 18_000.0), (4, 31_500.0)],
                    "batch 256": [(0, 12_000.0), (2, 23_000.0)]}
    gpu = lines_of(figs[LINES.format(consumer="gpu", depth=2)])
    assert gpu == {"pin thread": [(0, RATES[("gpu", "pin_thread", 256, 0, 2)]), (2, RATES[("gpu", "pin_thread", 256, 2, 2)])],
                   "direct": [(0, RATES[("gpu", "direct", 256, 0, 2)]), (2, RATES[("gpu", "direct", 256, 2, 2)])]}


def test_the_worker_axis_shows_zero_workers(figures):
    figs, _ = figures
    fig = figs[LINES.format(consumer="host", depth=2)]
    ax = panels(fig)[PANEL]
    assert ax.get_xscale() == "symlog" and ax.get_yscale() == "log"
    assert list(ax.get_xticks()) == [0, 2, 4]
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "2", "4"]
    assert ax.get_xlim()[0] < 0 < ax.get_xlim()[1]  # the 0-worker points are inside the axes
    assert "no GPU + unknown CPU" in fig._suptitle.get_text() and "host consumer" in fig._suptitle.get_text()


def test_the_zero_worker_run_counts_at_every_depth_of_its_grid_point(figures):
    figs, _ = figures
    # Depth 4 was run with 2 workers at batch 32 only; 0 workers (run at depth 2) starts its line.
    lines = lines_of(figs[LINES.format(consumer="host", depth=4)])
    assert lines == {"Loader samples/s against worker threads": [(0, RATES[("host", "pageable", 32, 0, 2)]),
                                                                 (2, RATES[("host", "pageable", 32, 2, 4)])]}


def test_skipped_loader_runs_are_left_out_and_listed(figures):
    figs, left_out = figures
    assert left_out == ["loader/gpu/pageable/batch:256/workers:2/depth:2/cost_us:5/shuffle/none/manual_time: "
                        "skipped (no usable GPU)"]
    assert "pageable" not in lines_of(figs[LINES.format(consumer="gpu", depth=2)])


def heatmap_cells(fig, panel) -> dict:
    """{(batch label, workers label): (value or None, annotation or None)} of a heat map panel."""
    ax = panels(fig)[panel]
    grid = ax.images[0].get_array()
    batches = [t.get_text() for t in ax.get_yticklabels()]
    workers = [t.get_text() for t in ax.get_xticklabels()]
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts
             if t.get_gid() != "empty_panel"}
    return {(batches[i], workers[j]): (None if np.ma.is_masked(grid[i, j]) else float(grid[i, j]), texts.get((i, j)))
            for i in range(len(batches)) for j in range(len(workers))}


def test_heat_map_cells_are_the_samples_per_second_and_say_so(figures):
    figs, _ = figures
    fig = figs[HEATMAP.format(consumer="host", depth=2)]
    ax = panels(fig)["pageable, 5 µs/sample"]
    assert ax.get_xlabel() == "workers" and ax.get_ylabel() == "batch"
    assert heatmap_cells(fig, "pageable, 5 µs/sample") == {
        ("32", "0"): (10_000.0, "10k"), ("32", "2"): (18_000.0, "18k"), ("32", "4"): (31_500.0, "31.5k"),
        ("256", "0"): (12_000.0, "12k"), ("256", "2"): (23_000.0, "23k"),
        ("256", "4"): (None, None)}  # not run: blank, no annotation
    assert fig.axes[-1].get_ylabel() == "samples/s"  # the colour bar
    # The GPU consumer ran one batch, depth 4 one too: no heat map of one row (the lines say it).
    assert HEATMAP.format(consumer="gpu", depth=2) not in figs and HEATMAP.format(consumer="host", depth=4) not in figs
    # Drawn, a panel per pinning mode, on one colour scale.
    import matplotlib.pyplot as plt

    from hdreport.families.loader.figures import draw_heatmaps

    gpu = draw_heatmaps(plt, {(5.0, "direct"): {(256, 0): 11_000.0, (256, 2): 40_000.0},
                              (5.0, "pin_thread"): {(256, 0): 10_000.0, (32, 2): 32_000.0}}, "t")
    assert set(panels(gpu)) == {"pin thread, 5 µs/sample", "direct, 5 µs/sample"}
    assert heatmap_cells(gpu, "direct, 5 µs/sample") == {("256", "0"): (11_000.0, "11k"), ("256", "2"): (40_000.0, "40k"),
                                                         ("32", "0"): (None, None), ("32", "2"): (None, None)}
    norms = {id(ax.images[0].norm) for ax in panels(gpu).values()}
    assert len({(ax.images[0].norm.vmin, ax.images[0].norm.vmax) for ax in panels(gpu).values()}) == 1 and norms
    plt.close(gpu)


def test_heat_maps_come_from_the_first_report_only():
    slow = loader_report("box-b")
    for b in slow["benchmarks"]:
        if b["status"] == "ok":
            b["counters"]["samples/s"] /= 2
    figs, _ = hdbench_report.build_figures([("a.json", loader_report("box-a")), ("b.json", slow)])
    heatmaps = {name: fig for name, fig in figs.items() if name.startswith("loader_heatmap--")}
    assert len(heatmaps) == 1  # host at depth 2; depth 4 and the gpu consumer ran one batch each
    fig = heatmaps[HEATMAP.format(consumer="host", depth=2)]
    assert "box-a" in fig._suptitle.get_text() and "box-b" not in fig._suptitle.get_text()
    assert heatmap_cells(fig, "pageable, 5 µs/sample")[("32", "4")] == (31_500.0, "31.5k")
    # The line figures hold both reports, told apart by file.
    lines = lines_of(figs[LINES.format(consumer="host", depth=2)])
    assert lines["batch 32, a"][2] == (4, 31_500.0) and lines["batch 32, b"][2] == (4, 31_500.0 / 2)
    close(figs)


def test_pinning_figure_draws_direct_over_pin_thread_against_workers(figures):
    figs, _ = figures
    ax = panels(figs["loader_pinning"])[PANEL]
    assert series(ax) == {"Direct collation into pinned slots over a pin thread's extra copy (>1: the pin thread "
                          "costs throughput)": [(0, 1.1), (2, 1.25)]}
    assert references(ax) == {"no difference": 1.0}
    assert ax.get_yscale() == "linear" and ax.get_xscale() == "symlog" and 0 in ax.get_xticks()
    assert ax.get_ylabel() == "direct ÷ pin thread (samples/s)"


def test_pinning_rows_of_several_depths_get_a_line_each():
    report = loader_report()
    report["derived"]["loader_pinning"].append(pinning_row(256, 2, 4, 30_000.0, 20_000.0))
    figs, _ = hdbench_report.build_figures([("r.json", report)])
    lines = series(panels(figs["loader_pinning"])[PANEL])
    assert lines == {"depth 2": [(0, 1.1), (2, 1.25)], "depth 4": [(2, 1.5)]}
    close(figs)


def test_a_report_without_loader_runs_draws_no_loader_figure():
    report = loader_report()
    report["benchmarks"] = [b for b in report["benchmarks"] if b["status"] != "ok"]
    del report["derived"]["loader_pinning"]
    figs, left_out = hdbench_report.build_figures([("r.json", report)])
    assert figs == {} and len(left_out) == 1


def test_plot_writes_the_loaders_figures_and_names_the_heat_maps_source(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(loader_report("box-a")))
    b.write_text(json.dumps(loader_report("box-b")))
    result = run_report_tool("plot", a, b, "-o", tmp_path / "fig")
    assert result.returncode == 0, result.stderr
    for name in (LINES.format(consumer="host", depth=2), HEATMAP.format(consumer="host", depth=2), "loader_pinning"):
        assert (tmp_path / "fig" / f"{name}.png").stat().st_size > 0
        assert (tmp_path / "fig" / f"{name}.svg").stat().st_size > 0
    assert f"loader heat maps drawn from the first report with loader runs only ({a})" in result.stderr
    assert "skipped (no usable GPU)" in result.stderr


@pytest.mark.parametrize("value, text", [(0.5, "0.5"), (950.0, "950"), (12_345.0, "12.3k"), (123_456.0, "123k"),
                                         (1_234_567.0, "1.23M"), (2.5e9, "2.5G"), (999.6, "1k"),
                                         (999_700.0, "1M")])
def test_short_numbers(value, text):
    assert loader.figures.short_number(value) == text


@pytest.mark.parametrize("value, text", [(0.05123, "0.0512"), (45.34, "45.3"), (999.4, "999"), (999.6, "1,000"),
                                         (1023.4, "1,023"), (3012.2, "3,012"), (-1023.4, "-1,023"),
                                         (1e12, "1e+12")])
def test_three_digits_never_in_exponent_form(value, text):
    """A device copy's 3,012 GB/s and a change of 1,023 KiB read so, not 3.01e+03 and 1e+03."""
    from hdreport.core.units import digits3
    assert digits3(value) == text


def test_summary_names_whose_loader_each_row_measured(tmp_path):
    """hdbench's and the PyTorch baseline's loaders in one table (the H100 reports of
    2026-11-23): a column says whose each row is, so equal batch and pinning rows do not
    read as one configuration measured twice."""
    from pathlib import Path
    folder = Path(__file__).resolve().parents[3] / "reports" / "reference" / "h100-2026-11-23"
    out = tmp_path / "summary.md"
    result = run_report_tool("summarize", folder / "runs" / "quick-h100.json", folder / "pytorch-h100.json", "-o", out)
    assert result.returncode == 0, result.stderr
    lines = out.read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| batch | loader | pinning |"))
    rows = [line.split("|")[2].strip() for line in lines[header + 2:] if line.startswith("|")]
    assert {"hdbench", "pytorch"} <= set(rows)
    # One report alone has one loader: no column.
    result = run_report_tool("summarize", folder / "pytorch-h100.json", "-o", out)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    assert "| batch | pinning |" in text and "| batch | loader |" not in text
    assert "best batch" in text and "(pytorch's loader, " in text  # the answer says whose loader it measured


def build_run(build, workers, rate, first_batch_us):
    """A host loader run at batch 1024 built whole or split (made up)."""
    run = loader_run("host", "pageable", 1024, workers, 2, rate)
    if build == "split":
        run["name"] = run["name"].replace("/none/", "/none/split/")
    run["params"]["build"] = build
    run["counters"]["first_batch_us"] = first_batch_us
    return run


def build_report() -> dict:
    """Whole and split builds of one grid point, with the binary's derived rows for them."""
    runs = [build_run("whole", 0, 10_000.0, 900.0), build_run("whole", 2, 18_000.0, 800.0),
            build_run("whole", 4, 30_000.0, 800.0), build_run("split", 2, 19_000.0, 450.0),
            build_run("split", 4, 33_000.0, 250.0)]
    point = {"consumer": "host", "pinning": "pageable", "batch": 1024, "sample_cost_us": 5.0, "shuffle": True,
             "augment": "none", "prefetch_depth": 2}
    scaling = [{**point, "build": build, "by_workers": {"0": {"samples/s": 10_000.0}, **cells},
                "best_workers": 4, "best_samples/s": cells["4"]["samples/s"]}
               for build, cells in (("whole", {"2": {"samples/s": 18_000.0}, "4": {"samples/s": 30_000.0}}),
                                    ("split", {"2": {"samples/s": 19_000.0}, "4": {"samples/s": 33_000.0}}))]
    builds = [{**point, "workers": w, "split_samples/s": s, "whole_samples/s": h, "split_over_whole": s / h}
              for w, s, h in ((2, 19_000.0, 18_000.0), (4, 33_000.0, 30_000.0))]
    return {"context": {"host_name": "synthetic", "hdbench": {"started_at": "2026-11-25T10:00:00",
                                                              "system": {"gpus": []}}},
            "benchmarks": runs, "derived": {"loader_scaling": scaling, "loader_build": builds}}


def test_the_zero_worker_run_starts_the_lines_of_both_builds():
    """A batch is built whole with no workers to share it: that run is the first point of
    the whole line and of the split line, as the derived rows count it."""
    report = build_report()
    expanded = loader.figures.expand(report["benchmarks"])
    zero = [b["params"]["build"] for b in expanded if b["params"]["workers"] == 0]
    assert sorted(zero) == ["split", "whole"]
    # A report with split builds only (the default preset) draws no whole line of one point.
    split_only = [b for b in report["benchmarks"] if b["params"]["build"] == "split" or b["params"]["workers"] == 0]
    assert [b["params"]["build"] for b in loader.figures.expand(split_only)
            if b["params"]["workers"] == 0] == ["split"]
    figs, _ = hdbench_report.build_figures([("r.json", report)])
    try:
        lines = lines_of(figs[LINES.format(consumer="host", depth=2)])
        assert lines == {"whole": [(0, 10_000.0), (2, 18_000.0), (4, 30_000.0)],
                         "split": [(0, 10_000.0), (2, 19_000.0), (4, 33_000.0)]}
        # one batch: no heat map of either build (the lines say it)
        assert not [n for n in figs if n.startswith("loader_heatmap--")]
        ratio = series(panels(figs["loader_build"])[PANEL])
        assert ratio == {"Workers sharing each batch in parts over a worker a batch (>1: splitting helps)":
                         [(2, 19_000.0 / 18_000.0), (4, 1.1)]}
    finally:
        close(figs)


def test_the_summary_says_what_splitting_bought_and_the_fill_it_cut(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(build_report()))
    out = tmp_path / "summary.md"
    result = run_report_tool("summarize", path, "-o", out)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    split = next(line for line in text.splitlines() if "split over whole batches" in line)
    assert "median **1.08×** over 2 grid points (splitting helps)" in split
    assert "best **1.10×** at batch 1024, pageable, 4 workers" in split
    assert "33.0 k vs 30.0 k samples/s; first batch of an epoch after 250 vs 800 µs" in split
    # batch and pinning, one on every row, are said once above the table
    assert "On every row: batch = 1024; pinning = pageable." in text
    assert "| build | 0 workers | 2 workers | 4 workers |" in text
    assert "| split | 10.0 k | 19.0 k | **33.0 k** |" in text


def test_a_heat_map_panel_not_run_says_so():
    """The default preset runs the GPU consumer at 20 µs/sample with the pin thread only: its
    pageable and direct panels at that cost were blank, as if drawing had failed."""
    import matplotlib.pyplot as plt

    from hdreport.families.loader.figures import draw_heatmaps

    fig = draw_heatmaps(plt, {(0.0, "direct"): {(128, 0): 1e6, (128, 8): 4e6}, (0.0, "pin_thread"): {(128, 0): 9e5},
                              (20.0, "pin_thread"): {(128, 0): 5e4}}, "t")
    said = {ax.get_title(): [t.get_text() for t in ax.texts if t.get_gid() == "empty_panel"] for ax in fig.axes[:-1]}
    assert said == {"direct, 0 µs/sample": [], "pin thread, 0 µs/sample": [], "direct, 20 µs/sample": ["not run"],
                    "pin thread, 20 µs/sample": []}
    plt.close(fig)


def test_a_heat_map_of_one_batch_is_left_to_the_line_figure():
    """The H200's quick preset ran batch 128 alone, at 0 and 2 workers: its heat map was one row
    of two cells, the line figure beside it in colours. A grid of two batches and two worker
    counts is drawn; one row or one column is not. The line figure's lone series is drawn in
    its pinning's colour (the pin thread's), not direct pinning's blue."""
    pytest.importorskip("matplotlib")
    from matplotlib.colors import to_hex

    from hdreport.core import style
    from hdreport.families.loader.figures import is_grid

    assert not is_grid({(0.0, "pin_thread"): {(128, 0): 1.31e6, (128, 2): 2.37e6}})
    assert not is_grid({(0.0, "pin_thread"): {(128, 2): 1e6, (1024, 2): 2e6}})
    assert is_grid({(0.0, "pin_thread"): {(128, 0): 1e6, (128, 2): 2e6}, (0.0, "direct"): {(1024, 2): 3e6}})
    path = Path(__file__).resolve().parents[3].parent / "shared/gpu-runs/2026-11-26-h200/quick.json"
    if not path.exists():
        pytest.skip(f"{path} is not here")
    report = hdbench_report.load_report(str(path))
    figs, _ = hdbench_report.build_figures([(str(path), report)])
    try:
        assert not [n for n in figs if n.startswith("loader_heatmap--")]
        (line,) = [line for name, fig in figs.items() if name.startswith("loader--")
                   for ax in fig.axes for line in ax.get_lines() if line.get_gid() == "series"]
        assert to_hex(line.get_color()) == style.COLOURS["pinning"]["pin_thread"]
    finally:
        for fig in figs.values():
            plt_close(fig)


def plt_close(fig):
    import matplotlib.pyplot as plt

    plt.close(fig)
