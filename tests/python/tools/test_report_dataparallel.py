"""The report tools on the `dataparallel` family: the summary's data-parallel section, the
GPU step's figure and the HTML page.

fixtures/dataparallel/cpu-*.json are real reports from this GPU-less VM (hdbench with
one rank; hdbench_mpi under `mpirun -np 2`; both with --hdbench_dp_models=784x16x10
--hdbench_dp_batches=64,128 --hdbench_dp_steps=4): their CPU steps ran, their GPU
entries are skipped. fixtures/dataparallel/synthetic-*.json are written by hand with
bench/dataparallel_gpu_step.cpp's counters: made up, not measurements (each says so)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from hdreport import summary as report_summary
from conftest import run_report_tool
from summary_tables import cannot_answer, tables_of, unanswerable

FIXTURES = Path(__file__).parent.parent / "fixtures" / "dataparallel"
ONE_RANK = FIXTURES / "cpu-one-rank-hdbench.json"
TWO_RANKS = FIXTURES / "cpu-2-ranks-hdbench_mpi.json"
GPU_TWO_RANKS = FIXTURES / "synthetic-gpu-step-2-ranks-hdbench_mpi.json"
GPU_ONE_RANK = FIXTURES / "h100-one-rank-hdbench.json"  # measured on an H100, 2026-11-23
QUESTION = next(q for a, q, *_ in report_summary.QUESTIONS if a == "dataparallel")
BANNER = ("- **One rank: baseline only; run `hdbench_mpi` under `mpirun` for N ranks.** Scaling efficiency (1) and "
          "bus bandwidth (0) are trivial with one rank and not shown.")


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def section_of(*paths: Path) -> str:
    text = report_summary.summarize_reports([(str(p), load(p)) for p in paths])
    return text.split(f"## {QUESTION}")[1].split("\n## ")[0].strip()


def answers(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ") or line.startswith("  ")]


# The tables' columns in the order the summary writes them (a column of one value on every row is
# said once above its table instead; `rows` puts it back in its place).
CPU_TABLE = ["model", "batch", "ranks", "step", "one rank", "scaling efficiency", "all-reduce", "bus GB/s", "checks"]
GPU_TABLE = ["model", "batch", "ranks", "no all-reduce", "step none", "step bucketed", "all-reduce none",
             "all-reduce bucketed", "exposed none", "exposed bucketed", "hidden bucketed", "buckets",
             "bus GB/s (none)", "scaling efficiency (bucketed)", "checks"]
NCCL_TABLE = ["size", "buckets", "ranks", "µs", "algbw GB/s", "busbw GB/s"]


def rows(text: str, header: list[str], which: int = 0) -> list[list[str]]:
    """The cells of a section's table `which`, in `header`'s order (the columns it has)."""
    return [[r[h] for h in header if h in r] for r in tables_of(text)[which]]


def runs(path: Path, variant: str) -> dict:
    return {b["name"]: b for b in load(path)["benchmarks"]
            if b["params"].get("variant") == variant and b["status"] == "ok"}


def test_the_synthetic_fixtures_say_they_are_not_measurements():
    report = load(GPU_TWO_RANKS)
    assert "SYNTHETIC" in report["note"] and "NOT a measurement" in report["note"]
    assert report["context"]["host_name"].startswith("synthetic-")
    assert "note" not in load(GPU_ONE_RANK)


def test_one_rank_is_a_baseline_with_no_scaling_or_bus_bandwidth():
    text = section_of(ONE_RANK)
    steps = runs(ONE_RANK, "cpu_step")
    assert len(steps) == 2
    us = {b["params"]["batch"]: b["counters"]["step_us"] for b in steps.values()}
    assert answers(text) == [
        BANNER,
        f"- CPU step, one rank: 784x16x10 batch 64 {us[64]:,.0f} µs, batch 128 {us[128]:,.0f} µs (" +
        ", ".join(f"`{n}`" for n in sorted(steps, key=lambda n: steps[n]["params"]["batch"])) + ").",
        "- Skipped: 4 GPU steps, 4 NCCL all-reduces (why: see Not measured)."]
    # Nothing that is 1 or 0 by definition is shown as a finding.
    assert "efficiency" not in text.replace(BANNER, "") and "GB/s" not in text and "|" not in text


def test_n_ranks_give_the_scaling_efficiency_per_batch_and_the_checks():
    text = section_of(TWO_RANKS)
    steps = sorted(runs(TWO_RANKS, "cpu_step").values(), key=lambda b: b["params"]["batch"])
    effs = [b["counters"]["scaling_efficiency"] for b in steps]
    best = max(steps, key=lambda b: b["counters"]["scaling_efficiency"])
    first = answers(text)[0]
    assert first.startswith(f"- CPU step over 2 ranks (MPI): scaling efficiency **{min(effs):.2f}–{max(effs):.2f}** "
                            f"over 2 model × batch points (best 784x16x10 batch {best['params']['batch']}: ")
    assert f"`{best['name']}`" in first
    assert answers(text)[1] == (
        "- Checks held in **2 of 2** N-rank runs: every rank's parameters equal rank 0's bit for bit, and within "
        "0.0001 of one process trained on the whole batch (largest difference 1.5e-08).")
    assert "One rank: baseline only" not in text
    assert rows(text, CPU_TABLE) == [["784x16x10", str(batch), "2", f"{c['step_us']:,.0f}",
                           f"{c['one_rank_step_us']:,.0f}", f"**{c['scaling_efficiency']:.2f}**",
                           f"{c['allreduce_us']:,.0f}", f"{c['allreduce_busbw_GB/s']:.2f}",
                           f"held (Δ {c['params_max_abs_diff_vs_one_rank']:.1e})"]
                          for batch, c in ((b["params"]["batch"], b["counters"]) for b in steps)]


def test_gpu_steps_over_n_ranks_say_how_much_of_the_all_reduce_the_overlap_hides():
    text = section_of(GPU_TWO_RANKS)
    assert answers(text)[0] == (
        "- GPU step over 2 ranks: bucketed overlap (as DDP) **partly** hides the gradient all-reduce: "
        "it removes **44–78%** of what one all-reduce after backward adds to the step, over 2 model × batch points; at 784x4096x4096x10 batch 1024 it exposes 60.0 of "
        "280 µs against 270 µs with one all-reduce after backward, a step 13% shorter "
        "(`dataparallel/gpu/nccl/784x4096x4096x10/batch:1024/ranks:2/overlap:bucketed`).")
    assert rows(text, GPU_TABLE) == [
        ["784x4096x4096x10", "256", "2", "420", "690", "570", "268", "285", "270", "150", "**44%**", "2", "299.1",
         "0.63", "held (Δ 3.0e-08)"],
        ["784x4096x4096x10", "1024", "2", "1,400", "1,670", "1,460", "267", "280", "270", "60.0", "**78%**", "2",
         "300.2", "0.89", "held (Δ 3.0e-08)"]]
    # The table is the counters of the runs.
    for b in runs(GPU_TWO_RANKS, "gpu_step").values():
        c = b["counters"]
        assert c["step_us"] == pytest.approx(c["step_no_exchange_us"] + c["allreduce_exposed_us"])


def test_one_bucket_is_named_as_the_reason_nothing_overlaps():
    report = load(GPU_TWO_RANKS)
    for b in report["benchmarks"]:
        b["counters"]["buckets"] = 1.0
    text = section_of_report(report)
    assert "  One bucket at 784x4096x4096x10 batch 256, 784x4096x4096x10 batch 1024: the gradients fit " \
           "`--hdbench_dp_bucket_bytes`" in text
    # One bucket hides nothing by construction: no share is quoted, in the answer or the table.
    assert "hides the gradient all-reduce" not in text
    assert [r[10] for r in rows(text, GPU_TABLE)] == ["–", "–"]


def section_of_report(report: dict) -> str:
    text = report_summary.summarize_reports([("r.json", report)])
    return text.split(f"## {QUESTION}")[1].split("\n## ")[0].strip()


def test_gpu_steps_and_nccl_with_one_rank_are_nccls_floor_not_findings():
    text = section_of(GPU_ONE_RANK)
    lines = answers(text)
    assert lines[0] == BANNER
    assert [line[:25] for line in lines[1:3]] == ["- CPU step, one rank: 784"] * 2  # the real report has CPU steps
    lines = [lines[0]] + lines[3:]
    assert lines[1] == ("- GPU step, one rank: NCCL's mean over one rank moves no data (one in-place scaling pass "
                        "over the gradients, **11.0–436 µs**), so what the overlap hides of it checks the mechanism, "
                        "not a network.")
    assert lines[2].startswith("- NCCL all-reduce, one rank per GPU: NCCL's floor, 0.6 µs at 64 MiB (")
    gpu, nccl = rows(text, GPU_TABLE, 0), rows(text, NCCL_TABLE, 1)
    assert [r[2] for r in gpu] == ["1 (GPU 0)"] * 4
    # Not bold (one rank); the small model's gradients are one bucket, so nothing can
    # overlap and its two entries differ by noise: no share (it read -27% and -75%).
    assert [r[11] for r in gpu] == ["1", "1", "2", "2"]
    assert [r[10] for r in gpu] == ["–", "–", "55%", "76%"]
    assert len(gpu[0]) == 13  # no bus bandwidth or scaling efficiency columns
    assert nccl == [["1 MiB", "1", "1 (GPU 0)", "0.5"], ["1 MiB", "4", "1 (GPU 0)", "1.3"],
                    ["64 MiB", "1", "1 (GPU 0)", "0.6"], ["64 MiB", "4", "1 (GPU 0)", "1.2"]]
    assert "busbw" not in text and "bus GB/s" not in text


def test_n_ranks_leave_the_one_rank_runs_out_and_name_each_report():
    text = section_of(GPU_TWO_RANKS, GPU_ONE_RANK, TWO_RANKS, ONE_RANK)
    assert "One rank: baseline only" not in text
    assert "GPU step, one rank" not in text  # the 2-rank GPU steps carry their own one-rank time
    assert "(synthetic-gpu-step-2-ranks-hdbench_mpi.json)" in text
    assert [r[2] for r in rows(text, CPU_TABLE, 0) + rows(text, GPU_TABLE, 1)] == ["2"] * 4


def test_a_failed_check_is_named_with_its_message():
    report = load(TWO_RANKS)
    b = next(b for b in report["benchmarks"] if b["params"]["variant"] == "cpu_step")
    b.update(status="error", error_message="ranks disagree after 5 steps: parameters differ by up to 0.5 from rank 0's")
    b["checks"]["ranks_identical"] = False
    text = section_of_report(report)
    assert f"- **Failed**: `{b['name']}`: ranks disagree after 5 steps" in text
    assert "Checks held in **1 of 1** N-rank runs" in text  # the other batch's


def test_no_dataparallel_runs_cannot_answer_and_say_what_to_run():
    report = load(ONE_RANK)
    report["benchmarks"] = []
    text = report_summary.summarize_reports([("r.json", report)])
    assert f"## {QUESTION}" not in text  # folded with the others the report cannot answer
    assert cannot_answer(text, QUESTION) == (
        "No successful runs of the `dataparallel` family (`hdbench` for one rank, `hdbench_mpi` under `mpirun` for N).")


@pytest.fixture(scope="module")
def figures():
    pytest.importorskip("matplotlib")
    import hdbench_report

    built, left_out = hdbench_report.build_figures([(str(GPU_TWO_RANKS), load(GPU_TWO_RANKS)),
                                                    (str(TWO_RANKS), load(TWO_RANKS))])
    yield built, left_out
    import matplotlib.pyplot as plt

    for fig in built.values():
        plt.close(fig)


def test_the_gpu_step_figure_draws_bucketed_none_and_no_exchange(figures):
    from report_figure_checks import check_figure, panels, series

    built, left_out = figures
    assert [n for n in built if n.startswith("dataparallel")] == ["dataparallel_step_us--model-784x4096x4096x10"]
    fig = built["dataparallel_step_us--model-784x4096x4096x10"]
    check_figure("dataparallel", fig)
    [(title, ax)] = panels(fig).items()
    assert title == "2 ranks"
    steps = {(b["params"]["overlap"], b["params"]["batch"]): b["counters"]
             for b in runs(GPU_TWO_RANKS, "gpu_step").values()}
    expected = {"bucketed, overlapped with backward": [(256, steps[("bucketed", 256)]["step_us"]),
                                                       (1024, steps[("bucketed", 1024)]["step_us"])],
                "all-reduce after backward": [(256, steps[("none", 256)]["step_us"]),
                                              (1024, steps[("none", 1024)]["step_us"])],
                # both runs measure it: the median of the two
                "no all-reduce": [(x, (steps[("bucketed", x)]["step_no_exchange_us"] +
                                       steps[("none", x)]["step_no_exchange_us"]) / 2) for x in (256, 1024)]}
    assert series(ax) == expected
    # The skipped GPU steps of the real report are listed as left out, not drawn.
    assert sum("dataparallel/gpu/nccl/784x16x10" in line and ": skipped (" in line for line in left_out) == 4


def test_one_batch_draws_no_figure_and_cpu_steps_none_either():
    pytest.importorskip("matplotlib")
    import hdbench_report

    report = load(GPU_TWO_RANKS)
    report["benchmarks"] = [b for b in report["benchmarks"] if b["params"]["batch"] == 1024]
    built, _ = hdbench_report.build_figures([("one-batch.json", report), (str(ONE_RANK), load(ONE_RANK)),
                                             (str(TWO_RANKS), load(TWO_RANKS))])
    assert built == {}


def test_the_html_page_puts_the_figure_under_the_dataparallel_question(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "dp.html"
    result = run_report_tool("html", GPU_TWO_RANKS, GPU_ONE_RANK, TWO_RANKS, ONE_RANK, "-o", out)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    section = re.search(r"<section id='q-dataparallel'>.*?</section>", text, re.S).group(0)
    assert "<figure id='fig-dataparallel_step_us--model-784x4096x4096x10'>" in section
    assert "q-other" not in text
    assert "<strong>partly</strong> hides the gradient all-reduce" in section


def test_plot_and_summarize_run_on_every_fixture(tmp_path):
    pytest.importorskip("matplotlib")
    for path in sorted(FIXTURES.glob("*.json")):
        result = run_report_tool("summarize", path)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        assert f"## {QUESTION}" in result.stdout
        result = run_report_tool("plot", path, "-o", tmp_path / path.stem)
        assert result.returncode == 0, result.stderr
        drawn = sorted(p.name for p in (tmp_path / path.stem).glob("*.png"))
        expected = {GPU_TWO_RANKS: ["dataparallel_step_us--model-784x4096x4096x10.png"],
                    GPU_ONE_RANK: ["dataparallel_step_us--model-784x32x10.png",
                                   "dataparallel_step_us--model-784x4096x4096x10.png"]}
        assert drawn == expected.get(path, [])


def test_a_copy_of_the_real_mpi_report_is_unchanged_by_the_tools():
    report = load(TWO_RANKS)
    before = copy.deepcopy(report)
    report_summary.summarize_reports([(str(TWO_RANKS), report)])
    assert report == before


def test_a_schema_2_one_rank_report_without_bandwidths_reads_the_same():
    """Issue 28: one rank's all-reduce crosses no link, so schema 2 writes no algbw/busbw for it (schema 1 wrote
    155,000+ GB/s for NCCL's no-op); the section is the same without them."""
    report = load(GPU_ONE_RANK)
    before = section_of_report(report)
    for b in report["benchmarks"]:
        for key in ("allreduce_algbw_GB/s", "allreduce_busbw_GB/s"):
            (b.get("counters") or {}).pop(key, None)
    assert section_of_report(report) == before
    assert "GB/s" not in before.split("NCCL all-reduce")[1].split("\n\n")[0]


def test_a_floor_above_its_step_is_not_drawn():
    """The H200's one-rank steps of 2026-11-27 read 134 µs without the all-reduce and 99-103 µs with
    it: a reference that is wrong (an exchange adds work), drawn as the all-reduce speeding the
    step up. Left out beyond the step's noise; kept within it."""
    from hdreport.families.dataparallel.figures import NO_EXCHANGE, with_no_exchange

    def step(batch, overlap="none", **counters):
        return {"name": "s", "status": "ok", "counters": counters,
                "params": {"family": "dataparallel", "variant": "gpu_step", "batch": batch, "overlap": overlap}}

    wrong = step(64, step_us=100.0, step_no_exchange_us=134.0, noise_percent=2.0)
    noisy = step(128, step_us=100.0, step_no_exchange_us=101.5, noise_percent=2.0)
    below = step(256, step_us=100.0, step_no_exchange_us=90.0)
    floors = [b["counters"]["step_us"] for b in with_no_exchange([wrong, noisy, below])
              if b["params"].get("overlap") == NO_EXCHANGE]
    assert floors == [101.5, 90.0]
    # One point, two exchanges (the H200's batch 256 of 2026-11-27): the bucketed run's floor,
    # 104 µs, is below its own step but above the other exchange's 94.8: drawn, it showed that
    # exchange making the step faster. Each floor is held against every step drawn there.
    bucketed = step(256, "bucketed", step_us=110.0, step_no_exchange_us=104.0, noise_percent=1.0)
    after = step(256, "none", step_us=94.8, step_no_exchange_us=92.0, noise_percent=1.0)
    floors = [b["counters"]["step_us"] for b in with_no_exchange([bucketed, after])
              if b["params"].get("overlap") == NO_EXCHANGE]
    assert floors == [92.0]


def test_an_exposure_clamped_to_zero_is_said_as_the_step_beating_its_reference():
    """The H200's one-rank steps of 2026-11-27: a step below its own no-all-reduce step has its
    exposed time clamped to 0, which the table showed as "0.0", the exchange wholly hidden."""
    path = Path(__file__).resolve().parents[3] / "reports" / "reference" / "h200-2026-11-27" / "default-h200.json"
    report = json.loads(path.read_text())
    steps = [b for b in report["benchmarks"] if b.get("status") == "ok" and b["params"].get("variant") == "gpu_step"
             and b["params"].get("family") == "dataparallel"]
    beaten = [b for b in steps if b["counters"]["step_us"] < b["counters"]["step_no_exchange_us"]]
    assert beaten and all(b["counters"]["allreduce_exposed_us"] == 0 for b in beaten)
    text = section_of_report(report)
    said = sum(list(row.values()).count("none: the step beat its reference") for row in tables_of(text)[0])
    assert said == len(beaten)
    assert "exposed = a run's step − its own no-all-reduce step" in text
