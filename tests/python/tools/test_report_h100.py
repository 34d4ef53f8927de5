"""The report tools on the first real GPU reports (an H100, 2026-11-22; copies in
fixtures/h100-2026-11-22/, this project's own output): every figure keeps the drawing
rules, draws what was measured, and the summary answers every question with the
reports' own numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

import hdbench_report
from hdreport import summary as report_summary
from hdreport.core import noise, style as report_style
from hdreport.families.transfer.figures import multi_stream_pipeline
from report_figure_checks import bars, check_figure, close, panels, references, series
from summary_tables import cannot_answer, tables_of, unanswerable

FIXTURES = Path(__file__).parent.parent / "fixtures" / "h100-2026-11-22"
# The reports the gallery (reports/reference/h100-2026-11-22/) is drawn from, in its order.
GALLERY = ["transfer", "streams", "loader", "mlp", "pytorch", "cpu_vs_gpu", "pytorch_cpu16"]


def load(*names) -> list[tuple[str, dict]]:
    return [(str(FIXTURES / f"{n}.json"), hdbench_report.load_report(str(FIXTURES / f"{n}.json"))) for n in names]


@pytest.fixture(scope="module")
def gallery():
    pytest.importorskip("matplotlib")
    reports = load(*GALLERY)
    figures, left_out = hdbench_report.build_figures(reports)
    yield reports, figures, left_out
    for fig in figures.values():
        close(fig)


def runs(reports, keep=lambda b: True):
    for path, report in reports:
        for b in report["benchmarks"]:
            if b.get("status") == "ok" and keep(b):
                yield Path(path).name, b


def test_every_figure_keeps_the_rules(gallery):
    _, figures, _ = gallery
    assert len(figures) > 20
    for name, fig in figures.items():
        if not name.startswith("loader_heatmap--"):
            check_figure(name, fig)


@pytest.mark.parametrize("name", [p.stem for p in sorted(FIXTURES.glob("*.json"))])
def test_each_report_alone_keeps_the_rules(name):
    pytest.importorskip("matplotlib")
    figures, _ = hdbench_report.build_figures(load(name))
    assert figures
    for fig_name, fig in figures.items():
        if not fig_name.startswith("loader_heatmap--"):
            check_figure(fig_name, fig)
        close(fig)


def test_every_measured_point_is_drawn_with_its_value(gallery):
    reports, figures, _ = gallery
    drawn = {(name, Path(source).name, x, y) for fig in figures.values()
             for name, source, x, y in getattr(fig, "hdbench", {}).get("points", [])}
    line_runs = {("transfer", "bandwidth_GB/s", "bytes"), ("staged", "bandwidth_GB/s", "bytes"),
                 ("host_memcpy", "bandwidth_GB/s", "bytes"), ("pinning", "pin_unpin_us", "bytes"),
                 ("loader", "samples/s", "workers")}
    count = 0
    for file, b in runs(reports):
        p = b["params"]
        for family, counter, x in line_runs:
            if p.get("family") == family:
                assert (b["name"], file, p[x], b["counters"][counter]) in drawn, b["name"]
                count += 1
        if p.get("family") == "mlp" and p.get("variant") in ("step", "epoch"):
            assert (b["name"], file, p["batch"], b["counters"]["samples/s"]) in drawn, b["name"]
            count += 1
    assert count > 300


def test_the_transfer_panels_are_read_against_the_link(gallery):
    reports, figures, _ = gallery
    link = reports[0][1]["context"]["hdbench"]["system"]["gpus"][0]["pcie_link_max_gbps"]
    for title, ax in panels(figures["transfer"]).items():
        want = 2 * link if "both directions" in title else link
        assert list(references(ax).values()) == [want], title
        assert ax.get_ylim()[1] > want  # the line is inside the axes, not above it
        # A fixed colour per memory kind, the same as everywhere.
        for label, line in ((ln.get_label(), ln) for ln in ax.get_lines() if ln.get_gid() == "series"):
            if label in report_style.COLOURS["memory"]:
                assert line.get_color() == report_style.COLOURS["memory"][label], (title, label)


def test_the_loader_lines_colour_each_pinning_mode_as_its_memory(gallery):
    _, figures, _ = gallery
    fig = figures["loader--consumer-gpu_prefetch_depth-2_shuffle-True_augment-none"]
    ax = panels(fig)["0 µs/sample"]
    colours = {ln.get_label(): ln.get_color() for ln in ax.get_lines() if ln.get_gid() == "series"}
    assert colours["direct, batch 128"] == report_style.COLOURS["pinning"]["direct"]
    assert colours["pageable, batch 128"] == report_style.COLOURS["pinning"]["pageable"]
    assert len(series(ax)) == 6


def test_bars_quote_the_measured_step_times_and_their_ratio(gallery):
    reports, figures, _ = gallery
    steps = {(file, b["name"]): b["counters"]["step_us"] for file, b in runs(reports)
             if b["params"].get("family") == "mlp" and b["params"].get("variant") == "step"}
    checked = 0
    for name, fig in figures.items():
        if not name.startswith(("mlp_vs_pytorch", "mlp_gpu_vs_cpu", "mlp_batch_copy")):
            continue
        for ax in fig.axes:
            colours = bars(ax)
            if "hdbench" in colours:
                assert colours["hdbench"] == report_style.COLOURS["implementation"]["hdbench"]
                assert colours["PyTorch"] == report_style.COLOURS["implementation"]["pytorch"]
        for _, _, _, value, names in fig.hdbench["bars"]:
            bench, file = names[0].rsplit(" (", 1)
            assert steps[(file.rstrip(")"), bench)] == value
            checked += 1
    assert checked >= 40


def summary_text() -> str:
    return report_summary.summarize_reports(load(*GALLERY))


def section(text, anchor):
    question = next(q for a, q, *_ in report_summary.QUESTIONS if a == anchor)
    return text.split(f"## {question}")[1].split("\n## ")[0]


def rows(text):
    lines = text.splitlines()
    rule = [line.startswith("|") and set(line) <= set("|-: ") for line in lines] + [False]
    return [[c.strip() for c in line.strip("|").split("|")] for i, line in enumerate(lines)
            if line.startswith("|") and not rule[i] and not rule[i + 1]]


def test_the_summary_answers_every_question_from_these_reports():
    text = summary_text()
    # These reports predate the dataparallel family: that question alone says it cannot be answered.
    dataparallel = next(q for a, q, *_ in report_summary.QUESTIONS if a == "dataparallel")
    assert unanswerable(text) == [dataparallel] and cannot_answer(text, dataparallel).startswith("No successful runs")
    for anchor, question, *_ in report_summary.QUESTIONS:
        assert question == dataparallel or section(text, anchor).strip(), anchor
    # The one failed run (PyTorch's bf16 step that diverged) is listed with its message.
    assert "failed: `mlp/step/gpu/784x4096x4096x4096x10/bf16/sgd/eager/data:device/batch:128/manual_time` " \
           "(pytorch.json): the loss is not finite" in text


def test_the_hdbench_vs_pytorch_table_quotes_both_reports():
    text = section(summary_text(), "vs-pytorch")
    reports = dict((Path(p).name, r) for p, r in load("mlp", "pytorch", "cpu_vs_gpu", "pytorch_cpu16"))
    table = tables_of(text)[0]
    assert len(table) >= 20
    for row in table:
        model, dtype, mode, data, batch = (row[k] for k in ("model", "dtype", "mode", "data", "batch"))
        hd, pt, ratio = row["hdbench µs"], row["PyTorch µs"], row["PyTorch ÷ hdbench"]
        name = list(row.values())[-1].split(" vs ")[0].strip("`")
        hd_runs = [b for f in ("mlp.json", "cpu_vs_gpu.json") for b in reports[f]["benchmarks"]
                   if b["name"] == name and b["status"] == "ok"]
        pt_run = next(b for f in ("pytorch.json", "pytorch_cpu16.json") for b in reports[f]["benchmarks"]
                      if b["name"] == name and b["status"] == "ok")
        hd_us, pt_us = hd_runs[0]["counters"]["step_us"], pt_run["counters"]["step_us"]
        assert (hd, pt) == (f"{hd_us:,.1f}", f"{pt_us:,.1f}"), name
        spreads = [hd_runs[0]["counters"].get("noise_percent", hd_runs[0]["counters"].get("cv_percent")),
                   pt_run["counters"].get("cv_percent")]
        close = None not in spreads and abs(pt_us / hd_us - 1) * 100 < sum(spreads)
        assert ratio == f"**{pt_us / hd_us:.2f}×**" + (" (within noise)" if close else "")
        assert (model, dtype, mode, data, batch) == (
            hd_runs[0]["params"]["model"], hd_runs[0]["params"]["dtype"], hd_runs[0]["params"]["mode"],
            hd_runs[0]["params"]["data"], str(hd_runs[0]["params"]["batch"]))


def test_the_break_even_and_loader_tables_are_the_reports_rows():
    text = summary_text()
    (_, transfer), = load("transfer")
    pinning = rows(section(text, "pinning"))
    break_even = [r for r in pinning if r[1].startswith("`")]
    assert len(break_even) == 10  # 5 sizes x 2 methods, each with both directions
    for row in transfer["derived"]["pinning_break_even"]:
        line = next(r for r in break_even if r[1] == f"`{row['method']}`" and r[0] == report_style.size_text(row["bytes"]))
        n = row["transfers_to_break_even"]
        assert line[3 if row["direction"] == "h2d" else 4] == ("never" if n is None else f"**{n:g}**")
    (_, loader), = load("loader")
    table = [r for t in tables_of(section(text, "loader-workers")) for r in t]
    for b in loader["benchmarks"]:
        p = b["params"]
        cells = [r for r in table if (r["batch"], r["pinning"]) == (str(p["batch"]), p["pinning"])]
        # to the digits the run's noise supports
        assert any(r[f"{p['workers']} workers"].strip("*") == noise.rate(b["counters"]["samples/s"], [b])
                   for r in cells), b["name"]
    (_, streams), = load("streams")
    overlap = tables_of(section(text, "overlap"))[0]
    for row in streams["derived"]["stream_overlap"]:
        line = next(r for r in overlap if r["kernel ÷ copy"] == f"{row['compute_ratio']:g}×" and
                    r["memory"] == row["memory"])
        # The pipeline shown is the fastest of 2 or more streams (the pageable rows' derived best ran on one
        # stream, which cannot overlap: issue 39).
        pipe = multi_stream_pipeline(streams, row)
        assert pipe["streams"] >= 2
        assert (line["sync"], line["best pipeline"]) == (f"{row['sync']['latency_us']:,.0f}",
                                                        f"{pipe['latency_us']:,.0f}")
