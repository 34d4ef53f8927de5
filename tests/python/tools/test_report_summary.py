"""tools/hdbench_report.py summarize: answers with the numbers of the report, and says
which questions it cannot answer."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from hdreport import summary as report_summary
from conftest import run_report_tool
from summary_tables import cannot_answer, tables_of, unanswerable


def transfer(name, direction, memory, gbps, link_percent):
    return {"name": name, "run_type": "iteration", "status": "ok",
            "params": {"family": "transfer", "direction": direction, "memory": memory, "engine": "copy",
                       "variant": "per_copy", "bytes": 256 << 20},
            "counters": {"bandwidth_GB/s": gbps, "pcie_link_percent": link_percent}}


def synthetic_report() -> dict:
    """Made up for the test (not measured): numbers chosen so the ratios are exact."""
    return {
        "context": {"host_name": "synthetic-h200", "hdbench": {
            "version": "0.1.0", "git_revision": "abc", "started_at": "2026-11-20T10:00:00+0000",
            "system": {"host": {"cpu_model": "Test CPU"}, "gpus": [{"name": "NVIDIA H200"}]}}},
        "benchmarks": [
            transfer("t/h2d/pinned", "h2d", "pinned", 54.0, 85.7),
            transfer("t/h2d/pageable", "h2d", "pageable", 18.0, 28.6),
            transfer("t/d2h/pinned", "d2h", "pinned", 50.0, 79.4),
            {"name": "s/skipped", "run_type": "iteration", "status": "skipped", "skip_reason": "needs more memory",
             "params": {"family": "staged"}, "counters": {}},
        ],
        "derived": {
            "pinning_break_even": [{"bytes": 256 << 20, "direction": "h2d", "method": "malloc_host",
                                    "pin_unpin_us": 30000.0, "pageable_copy_us": 14913.0, "pinned_copy_us": 4971.0,
                                    "transfers_to_break_even": 4.0}],
            "stream_overlap": [{"bytes": 256 << 20, "compute_ratio": 1.0, "memory": "pinned",
                                "sync": {"latency_us": 15000.0},
                                "pipelined": {"benchmark": "streams/pipelined/x", "latency_us": 6000.0, "streams": 4,
                                              "chunks": 16, "fraction_of_ideal": 0.93},
                                "pipelined_saving_vs_sync_percent": 60.0,
                                "legacy_default_stream_slowdown": 2.5}],
        },
    }


def loader(consumer, pinning, batch, workers, depth, cost, rate):
    return {"name": f"loader/{consumer}/{pinning}/batch:{batch}/workers:{workers}/depth:{depth}/cost_us:{cost:g}/"
                    "shuffle/none/manual_time",
            "run_type": "iteration", "status": "ok",
            "params": {"family": "loader", "consumer": consumer, "pinning": pinning, "batch": batch,
                       "workers": workers, "prefetch_depth": depth, "sample_cost_us": cost, "shuffle": True,
                       "augment": "none", "dataset": "synthetic", "samples": 600},
            "counters": {"samples/s": rate}}


def scaling_row(consumer, pinning, batch, cost, depth, rates: dict, best_workers):
    """A derived loader_scaling row; speedups only when the 0-worker rate is there, as the binary writes them."""
    by_workers = {str(w): {"samples/s": r} for w, r in rates.items()}
    if 0 in rates:
        for w, r in rates.items():
            by_workers[str(w)]["speedup_vs_0_workers"] = r / rates[0]
    return {"consumer": consumer, "pinning": pinning, "batch": batch, "sample_cost_us": cost, "shuffle": True,
            "augment": "none", "prefetch_depth": depth, "by_workers": by_workers, "best_workers": best_workers,
            "best_samples/s": rates[best_workers]}


def pinning_row(batch, workers, direct, pin_thread, pageable=None):
    row = {"consumer": "gpu", "batch": batch, "sample_cost_us": 5.0, "shuffle": True, "augment": "none",
           "workers": workers, "prefetch_depth": 2, "direct_samples/s": direct, "pin_thread_samples/s": pin_thread,
           "direct_over_pin_thread": direct / pin_thread}
    if pageable is not None:
        row["pageable_samples/s"] = pageable
    return row


def synthetic_loader_report() -> dict:
    """synthetic_report() with loader runs and derived rows (made up, not measured)."""
    report = synthetic_report()
    report["benchmarks"] += [
        loader("host", "pageable", 32, 4, 2, 0.0, 19000.0),
        loader("host", "pageable", 256, 8, 2, 5.0, 24000.0),
        loader("host", "pageable", 64, 0, 2, 10.0, 5000.0),  # 0 workers is run at the first depth only
        loader("gpu", "direct", 256, 2, 2, 5.0, 40000.0),
        loader("gpu", "pin_thread", 256, 2, 2, 5.0, 32000.0),
    ]
    report["derived"]["loader_scaling"] = [
        scaling_row("host", "pageable", 32, 0.0, 2, {0: 10000.0, 2: 18500.0, 4: 19000.0}, 4),
        scaling_row("host", "pageable", 256, 0.0, 2, {0: 8000.0, 2: 15000.0}, 2),
        scaling_row("host", "pageable", 256, 5.0, 2, {0: 4000.0, 8: 24000.0}, 8),
        scaling_row("gpu", "direct", 512, 5.0, 2, {2: 30000.0}, 2),  # no 0-worker run, no benchmark to name
        scaling_row("host", "pageable", 64, 10.0, 4, {0: 5000.0, 2: 4900.0}, 0),
    ]
    report["derived"]["loader_pinning"] = [pinning_row(256, 2, 40000.0, 32000.0, pageable=20000.0),
                                           pinning_row(256, 0, 11000.0, 10000.0),
                                           pinning_row(32, 2, 9500.0, 10000.0)]
    return report


def section(text: str, question: str) -> str:
    return text.split(f"## {question}")[1].split("\n## ")[0]


def answer_lines(text: str) -> list[str]:
    """A section's one-line answers (and their continuation lines), without its tables."""
    return [line for line in text.strip().splitlines() if line.startswith("- ") or line.startswith("  ")]


def table_rows(text: str) -> list[list[str]]:
    """The body rows of a section's Markdown tables, as cells (headers and rules left out)."""
    lines = text.splitlines()
    rule = [line.startswith("|") and set(line) <= set("|-: ") for line in lines] + [False]
    return [[c.strip() for c in line.strip("|").split("|")] for i, line in enumerate(lines)
            if line.startswith("|") and not rule[i] and not rule[i + 1]]


def summary_of(report: dict, tmp_path) -> str:
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(report))
    result = run_report_tool("summarize", path)
    assert result.returncode == 0, result.stderr
    return result.stdout


WORKERS_QUESTION = "How many loader workers keep the consumer fed?"
PIN_QUESTION = "Does PyTorch's pin thread cost throughput?"


def test_summary_gives_the_loader_workers_that_keep_each_consumer_fed(tmp_path):
    text = section(summary_of(synthetic_loader_report(), tmp_path), WORKERS_QUESTION)
    assert answer_lines(text) == [
        # Per consumer and cost, sorted; batch 32 beats batch 256 at 0 µs, and 2 workers are within 5% of 4.
        "- gpu consumer, 5 µs/sample: best batch 512 with **2** workers, 30.0 k samples/s, no 0-worker run at that "
        "batch to compare with (direct, prefetch depth 2, shuffled, augment none; `derived.loader_scaling`).",
        "- host consumer, 0 µs/sample: best batch 32 with **4** workers, 19.0 k samples/s, **1.90×** the rate with "
        "0 workers at that batch (pageable, prefetch depth 2, shuffled, augment none; "
        "`loader/host/pageable/batch:32/workers:4/depth:2/cost_us:0/shuffle/none/manual_time`). "
        "2 workers already reach 97% of it.",
        "- host consumer, 5 µs/sample: best batch 256 with **8** workers, 24.0 k samples/s, **6.00×** the rate with "
        "0 workers at that batch (pageable, prefetch depth 2, shuffled, augment none; "
        "`loader/host/pageable/batch:256/workers:8/depth:2/cost_us:5/shuffle/none/manual_time`).",
        # The 0-worker run named for a depth-4 row is the one run at depth 2; its depth is not stated.
        "- host consumer, 10 µs/sample: best batch 64 with **0** workers, 5.00 k samples/s, no worker count beat "
        "building batches on the consumer thread (pageable, shuffled, augment none; "
        "`loader/host/pageable/batch:64/workers:0/depth:2/cost_us:10/shuffle/none/manual_time`).",
    ]


def test_summary_says_what_the_pin_thread_costs(tmp_path):
    text = section(summary_of(synthetic_loader_report(), tmp_path), PIN_QUESTION)
    # Ratios 1.25, 1.10 and 0.95: median 1.10, best 1.25 at batch 256 with 2 workers.
    assert answer_lines(text) == [
        "- gpu consumer, direct collation into pinned memory over a pin thread's extra copy: median **1.10×** over 3 "
        "grid points (the pin thread's extra copy costs throughput); best **1.25×** at batch 256, 2 workers, "
        "5 µs/sample, prefetch depth 2, shuffled, augment none: 40.0 k vs 32.0 k samples/s "
        "(`loader/gpu/direct/batch:256/workers:2/depth:2/cost_us:5/shuffle/none/manual_time` vs "
        "`loader/gpu/pin_thread/batch:256/workers:2/depth:2/cost_us:5/shuffle/none/manual_time`).",
        "  Pageable batches (no pinning) at that point: 20.0 k samples/s.",
    ]


def test_summary_when_the_pin_thread_costs_nothing_says_so(tmp_path):
    report = synthetic_loader_report()
    report["derived"]["loader_pinning"] = [pinning_row(256, 2, 30000.0, 32000.0), pinning_row(32, 2, 9900.0, 10000.0)]
    text = section(summary_of(report, tmp_path), PIN_QUESTION)
    # 30000/32000 = 0.9375 and 0.99: median 0.96.
    assert "median **0.96×** over 2 grid points (the pin thread costs no throughput here)" in text
    assert "best **0.99×** at batch 32" in text and "Pageable" not in text
    assert answer_lines(text)[0].endswith("9.90 k vs 10.0 k samples/s (`derived.loader_pinning`).")  # no runs to name
    # The table: one row per grid point, the ratio of the report's rows; the cost and workers, one on every row, said
    # once above it.
    assert "On every row: µs/sample = 5; workers = 2." in text
    assert table_rows(text) == [["32", "9.90 k", "10.0 k", "–", "**0.99×**"],
                                ["256", "30.0 k", "32.0 k", "–", "**0.94×**"]]


def test_summary_without_loader_rows_cannot_answer_the_loader_questions(tmp_path):
    report = synthetic_loader_report()
    del report["derived"]["loader_scaling"], report["derived"]["loader_pinning"]
    text = summary_of(report, tmp_path)
    assert cannot_answer(text, WORKERS_QUESTION) == "No successful runs of the `loader` family with 0 and more workers."
    assert cannot_answer(text, PIN_QUESTION) == (
        "No successful runs of the `loader` family on a GPU with `pin_thread` and `direct` pinning.")
    # one section for them all, after the answers: not a heading and a line each
    assert f"## {WORKERS_QUESTION}" not in text and "\n## What this report cannot answer\n" in text


def test_summary_states_the_ratios_of_the_report(tmp_path):
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(synthetic_report()))
    result = run_report_tool("summarize", path)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    # The machine by its GPU and CPU; its host name with the run.
    assert text.startswith("# hdbench: NVIDIA H200 + Test CPU\n")
    assert "Host `synthetic-h200`, run 2026-11-20T10:00:00+0000" in text
    # 54 / 18 = 3.00x, with both benchmarks named
    assert "pinned 54.0 GB/s vs pageable 18.0 GB/s, **3.00×** (`t/h2d/pinned` vs `t/h2d/pageable`)" in text
    # The break-even table: per size and method, each direction's transfers.
    assert table_rows(section(text, "How much faster is pinned memory than pageable, and when does pinning pay off?")) \
        == [["256 MiB", "`malloc_host`", "30,000", "**4**", "–"]]
    assert "**saves 60%**" in text and "4 streams × 16 chunks (93% of ideal)" in text
    overlap = table_rows(section(text, "How much does async copy/compute overlap save?"))
    assert overlap == [["256 MiB", "1×", "pinned", "15,000", "–", "6,000", "4 × 16", "93%", "**60%**", "–", "2.50×",
                        "`streams/pipelined/x`"]]
    # the rate the share is of, said: 54.0 GB/s at 85.7% of it
    assert "**86%** of the link's theoretical rate, 63.0 GB/s (`t/h2d/pinned`)" in text
    assert "**79%** of the link's theoretical rate, 63.0 GB/s (`t/d2h/pinned`)" in text
    # D2H has no pageable run: no ratio is made up for it.
    assert "D2H at" not in text
    # Questions without data say so, and the skips are listed with their reason.
    assert unanswerable(text)
    assert "- 1 skipped: needs more memory" in text


def test_summary_is_written_atomically_to_a_file(tmp_path):
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(synthetic_report()))
    out = tmp_path / "summary.md"
    result = run_report_tool("summarize", path, "-o", out)
    assert result.returncode == 0, result.stderr
    assert out.read_text().startswith("# hdbench: NVIDIA H200 + Test CPU\n")
    assert not list(tmp_path.glob("*.tmp"))


def test_summary_of_a_real_gpu_less_report_answers_nothing_it_did_not_measure(quick_report, tmp_path):
    _, report = quick_report
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    result = run_report_tool("summarize", path)
    assert result.returncode == 0, result.stderr
    if not report["context"]["hdbench"]["system"]["gpu_usable"]:
        assert "GB/s vs pageable" not in result.stdout
        # Host loader runs need no GPU: the workers question is answered when the family
        # ran; CPU training steps answer the GPU-over-CPU question with the CPU's side.
        answered = bool([r for r in report.get("derived", {}).get("loader_scaling", []) if r["consumer"] == "host"])
        cpu_steps = any(b["status"] == "ok" and b["params"].get("family") == "mlp"
                        and b["params"].get("variant") == "step" for b in report["benchmarks"])
        # The dataparallel family's CPU step needs no GPU either (one rank: its baseline).
        dp_steps = any(b["status"] == "ok" and b["params"].get("family") == "dataparallel"
                       and b["params"].get("variant") == "cpu_step" for b in report["benchmarks"])
        folded = unanswerable(result.stdout)
        no_runs = [q for q in folded if cannot_answer(result.stdout, q).startswith("No successful runs")]
        assert len(no_runs) == len(report_summary.QUESTIONS) - answered - cpu_steps - dp_steps
        # the data-movement families' questions, asked where they ran: every run skipped without a GPU
        movement = {"device_local", "latency", "managed", "batch_copy", "strided"}
        ran = movement & {b["params"].get("family") for b in report["benchmarks"]}
        assert len(folded) - len(no_runs) == len(ran)
        assert all(cannot_answer(result.stdout, q).startswith("Its runs were skipped: ") for q in folded
                   if q not in no_runs)
        if answered:
            assert "- host consumer, " in section(result.stdout, WORKERS_QUESTION)


def test_summary_of_a_bad_report_exits_2(tmp_path):
    path = tmp_path / "empty.json"
    path.write_text("")
    result = run_report_tool("summarize", path)
    assert result.returncode == 2 and "empty.json" in result.stderr and "Traceback" not in result.stderr


def mlp_step(processor, model, batch, step_us, dtype="fp32", mode="eager", data="device", fraction=None):
    params = {"family": "mlp", "variant": "step", "implementation": "hdbench", "processor": processor,
              "model": model, "batch": batch, "dtype": dtype, "optimizer": "sgd", "mode": mode, "data": data}
    if processor == "cpu":
        params.update(threads=2, data="host")
    counters = {"step_us": step_us, "samples/s": batch / (step_us * 1e-6)}
    if fraction is not None:
        counters["fraction_of_gemm_rate"] = fraction
    return {"name": f"mlp/{processor}/{model}/{dtype}/{mode}/{params['data']}/{batch}", "run_type": "iteration",
            "status": "ok", "params": params, "counters": counters}


def synthetic_mlp_report() -> dict:
    """Made up for the test (not measured): step times chosen so the ratios are exact."""
    report = synthetic_report()
    report["benchmarks"] = [
        mlp_step("cpu", "784x32x10", 128, 140.0, fraction=0.25),
        mlp_step("gpu", "784x32x10", 128, 40.0),
        mlp_step("gpu", "784x32x10", 128, 35.0, mode="graph"),  # the fastest GPU step: beside, not compared
        mlp_step("gpu", "784x32x10", 128, 70.0, data="pinned"),
        mlp_step("gpu", "784x32x10", 128, 140.0, data="pageable"),
        mlp_step("cpu", "784x4096x4096x10", 1024, 370000.0, fraction=0.98),
    ]
    return report


def test_summary_compares_the_gpu_step_with_the_cpu_step(tmp_path):
    """Like for like: the GPU's fp32 eager step against the CPU's fp32 step; the faster graph
    replay is named beside it, labelled as not like for like."""
    text = section(summary_of(synthetic_mlp_report(), tmp_path),
                   "How much faster is a training step on the GPU than on the CPU?")
    assert text.strip().splitlines() == [
        "- 784x32x10, batch 128: GPU 40.0 µs (fp32 eager) vs CPU 140.0 µs (fp32, 2 threads): the GPU **3.50×** "
        "as fast (`mlp/gpu/784x32x10/fp32/eager/device/128` vs `mlp/cpu/784x32x10/fp32/eager/host/128`). The fastest GPU "
        "step, fp32 CUDA graph, 35.0 µs, is 4.00× as fast as the CPU's (not like for like: a CUDA-graph replay; "
        "`mlp/gpu/784x32x10/fp32/graph/device/128`).",
        "- 784x4096x4096x10, batch 1024: CPU only, 370,000.0 µs per step (2.77 k samples/s, 98% of the GEMM rate; "
        "`mlp/cpu/784x4096x4096x10/fp32/eager/host/1024`).",
    ]


def test_gpu_vs_cpu_says_where_an_eager_gpu_step_s_time_goes_in_the_step(tmp_path):
    """Made up for the test: an eager GPU step with its parts timed in place says where its time goes, its GEMMs'
    share of the step and the update's rate; a GPU step alone says it too. Parts that add up to over 5% more than
    the step (the events between them) say so; the update's traffic is held against what the device copy moved
    (twice the copy's GB/s, which counts bytes copied), never the copy's GB/s."""
    report = synthetic_mlp_report()
    parts = {"in_step_us": 56.0, "in_step_gemm_us": 42.0, "in_step_update_us": 10.0, "in_step_other_us": 4.0,
             "update_GB/s": 1234.4}
    report["benchmarks"][1]["counters"].update(parts)
    alone = mlp_step("gpu", "784x4096x4096x4096x10", 8192, 3000.0, dtype="bf16", fraction=0.75)
    alone["counters"].update(in_step_us=3010.0, in_step_gemm_us=2709.0, in_step_update_us=270.0,
                             in_step_other_us=31.0)
    report["benchmarks"].append(alone)
    lines = section(summary_of(report, tmp_path), GPU_VS_CPU).strip().splitlines()
    # Right after the GPU step it speaks of, before the fastest step named beside it.
    # No share where the part is longer than the step (42 of 40 µs): as a share of the parts (75%) it was a
    # second denominator beside the table's share of the step (an H200's 92% and 96% for one step, 2026-11-27).
    assert ("`mlp/cpu/784x32x10/fp32/eager/host/128`). Where its time goes, timed in the step: GEMMs 42.0 µs, "
            "the update 10.0 µs at 1,234 GB/s read and written, the rest (loss, input cast) 4.0 µs; timed between "
            "CUDA events, the parts add up to 56.0 µs against the step's 40.0 µs. The fastest GPU step") in lines[0]
    copy = {"name": "device_local/copy/1GiB", "run_type": "iteration", "status": "ok",
            "params": {"family": "device_local", "engine": "copy", "bytes": 1 << 30, "device": 0},
            "counters": {"bandwidth_GB/s": 2000.0}}
    report["benchmarks"].append(copy)
    with_copy = section(summary_of(report, tmp_path), GPU_VS_CPU).strip().splitlines()
    assert "at 1,234 GB/s read and written (31% of the 4,000 GB/s the device copy moved), the rest" in with_copy[0]
    assert lines[2] == (
        "- 784x4096x4096x4096x10, batch 8192: GPU only, 3,000.0 µs per step (2.73 M samples/s, 75% of the GEMM "
        "rate; `mlp/gpu/784x4096x4096x4096x10/bf16/eager/device/8192`). Where its time goes, timed in the step: "
        "GEMMs 2,709.0 µs (90%), the update 270.0 µs, the rest (loss, input cast) 31.0 µs.")


def test_gpu_vs_cpu_pairs_like_with_like_on_mixed_dtypes(tmp_path):
    """Made up for the test: bf16 graph steps far faster than fp32 eager. The ratio is fp32 eager over the CPU's
    fp32 (1.08x), never the bf16 replay's 38x; the headline quotes the same; without an fp32 eager step the fp32
    graph replay is compared (the same dtype), and with no fp32 GPU step at all nothing is divided."""
    report = synthetic_report()
    report["benchmarks"] = [mlp_step("cpu", "784x32x10", 128, 108.0), mlp_step("gpu", "784x32x10", 128, 100.0),
                            mlp_step("gpu", "784x32x10", 128, 2.8, dtype="bf16", mode="graph"),
                            mlp_step("gpu", "784x32x10", 128, 50.0, dtype="bf16")]
    text = summary_of(report, tmp_path)
    lines = answer_lines(section(text, GPU_VS_CPU))
    assert lines[0].split(" (`")[0] == "- 784x32x10, batch 128: GPU 100.0 µs (fp32 eager) vs CPU 108.0 µs (fp32, " \
                                       "2 threads): the GPU **1.08×** as fast"
    assert "bf16 CUDA graph, 2.8 µs, is 38.6× as fast as the CPU's (not like for like: bf16 and a CUDA-graph replay" in lines[0]
    headline = next(line for line in text.splitlines() if line.startswith("| GPU vs CPU"))
    assert "**1.08×** (784x32x10 batch 128) as fast as the CPU's, fp32 eager on both" in headline and "38" not in headline
    report["benchmarks"][1]["params"]["mode"] = "graph"
    assert "GPU 100.0 µs (fp32 CUDA graph)" in section(summary_of(report, tmp_path), GPU_VS_CPU)
    report["benchmarks"][1]["params"]["dtype"] = "tf32"
    assert "×**" not in section(summary_of(report, tmp_path), GPU_VS_CPU)


def test_summary_says_what_moving_the_batch_costs(tmp_path):
    text = section(summary_of(synthetic_mlp_report(), tmp_path), "What does moving the batch to the GPU cost each step?")
    # Compared with the eager step on the device (40 µs), not the graph replay.
    assert text.strip().splitlines() == [
        "Every step below is fp32, eager: a step's dtype and mode set its length, and so the share a copy adds to it.",
        "",
        "- 784x32x10, batch 128: copying the batch from pinned memory makes a step **1.75×** as long "
        "(70.0 vs 40.0 µs; `mlp/gpu/784x32x10/fp32/eager/pinned/128`).",
        "- 784x32x10, batch 128: copying the batch from pageable memory makes a step **3.50×** as long "
        "(140.0 vs 40.0 µs; `mlp/gpu/784x32x10/fp32/eager/pageable/128`).",
    ]


def mlp_epoch(processor, batch, workers, samples_per_s, busy=None, model="784x32x10", pinning="pinned"):
    params = {"family": "mlp", "variant": "epoch", "implementation": "hdbench", "processor": processor,
              "model": model, "batch": batch, "workers": workers, "pinning": pinning, "dtype": "fp32",
              "optimizer": "sgd"}
    counters = {"samples/s": samples_per_s}
    if busy is not None:
        counters["gpu_busy_percent"] = busy
    return {"name": f"mlp/epoch/{processor}/{model}/{pinning}/workers:{workers}/batch:{batch}",
            "run_type": "iteration", "status": "ok", "params": params, "counters": counters}


TRAINING_QUESTION = "Which batch size and loader workers keep the GPU busy in training?"


def test_summary_gives_the_batch_and_workers_that_keep_the_gpu_busy(tmp_path):
    """Made up for the test (not measured)."""
    report = synthetic_report()
    report["benchmarks"] = [
        mlp_epoch("gpu", 128, 0, 2e5, busy=20.0), mlp_epoch("gpu", 128, 2, 4e5, busy=40.0),
        mlp_epoch("gpu", 1024, 2, 9.6e5, busy=85.0), mlp_epoch("gpu", 1024, 4, 1e6, busy=92.0),
        mlp_epoch("gpu", 1024, 4, 1e5, busy=10.0, pinning="pageable"),  # another pinning: not compared at the best
        mlp_epoch("cpu", 1024, 4, 5e6),  # CPU epochs have no GPU to keep busy
        mlp_epoch("gpu", 128, 2, 1e5, busy=30.0, model="784x4096x10"),
        mlp_epoch("gpu", 128, 4, 1.2e5, busy=50.0, model="784x4096x10"),
    ]
    lines = answer_lines(section(summary_of(report, tmp_path), TRAINING_QUESTION))
    assert lines == [
        "- 784x32x10: fastest epoch at batch 1024 with **4** loader workers (pinned): 1.00 M samples/s, GPU busy "
        "92% (`mlp/epoch/gpu/784x32x10/pinned/workers:4/batch:1024`). 2 workers already reach 96% of it. The GPU "
        "was at least 90% busy from batch 1024 (4 workers, 92%; `mlp/epoch/gpu/784x32x10/pinned/workers:4/batch:1024`).",
        "- 784x4096x10: fastest epoch at batch 128 with **4** loader workers (pinned): 120 k samples/s, GPU busy "
        "50% (`mlp/epoch/gpu/784x4096x10/pinned/workers:4/batch:128`). No run kept the GPU 90% busy: the busiest "
        "was 50% at batch 128 with 4 workers (`mlp/epoch/gpu/784x4096x10/pinned/workers:4/batch:128`); the loader, "
        "the copy or the launches leave it waiting.",
    ]


def test_summary_without_gpu_epochs_cannot_say_what_keeps_the_gpu_busy(tmp_path):
    report = synthetic_report()
    report["benchmarks"] = [mlp_epoch("cpu", 1024, 4, 5e6)]
    assert "epochs on a GPU" in cannot_answer(summary_of(report, tmp_path), TRAINING_QUESTION)


GPU_VS_CPU = "How much faster is a training step on the GPU than on the CPU?"


def pytorch_step(processor, model, batch, step_us, mode="eager"):
    b = mlp_step(processor, model, batch, step_us, mode=mode)
    b["params"]["implementation"] = "pytorch"
    b["name"] = "pytorch/" + b["name"]
    return b


def test_gpu_vs_cpu_names_the_blas_core_and_the_swept_threads_beside_pytorch():
    """Made up for the test (not measured): the CPU step ran on OpenBLAS's SkylakeX kernels with the sweep's
    choice of 8 threads; PyTorch's report from the same host is given too."""
    report = synthetic_report()
    report["context"]["hdbench"]["cpu_blas"] = {"library": "OpenBLAS", "core_in_use": "SkylakeX",
                                                "core_chosen_by_library": "Prescott"}
    cpu = mlp_step("cpu", "784x32x10", 128, 90.0)
    cpu["params"]["threads"] = "auto"
    cpu["counters"].update({"threads": 8, "sweep_step_us/threads:1": 300.0, "sweep_step_us/threads:2": 180.0,
                            "sweep_step_us/threads:4": 110.0, "sweep_step_us/threads:8": 90.0,
                            "sweep_step_us/threads:16": 95.0})
    report["benchmarks"] = [cpu, mlp_step("gpu", "784x32x10", 128, 45.0)]
    pytorch = {"context": {"host_name": "synthetic-h200", "hdbench": {"implementation": "pytorch"}},
               "benchmarks": [pytorch_step("cpu", "784x32x10", 128, 480.0),
                              pytorch_step("gpu", "784x32x10", 128, 60.0, mode="graph")]}
    text = section(report_summary.summarize_reports([("hd.json", report), ("pt.json", pytorch)]), GPU_VS_CPU)
    assert text.strip().splitlines() == [
        "- 784x32x10, batch 128: GPU 45.0 µs (fp32 eager) vs CPU 90.0 µs (fp32, OpenBLAS SkylakeX, 8 threads, the "
        "fastest of 1, 2, 4, 8, 16): the GPU **2.00×** as fast (`mlp/gpu/784x32x10/fp32/eager/device/128` (hd.json) vs "
        "`mlp/cpu/784x32x10/fp32/eager/host/128` (hd.json)). PyTorch (CPU step from another run on the same "
        "machine): GPU 60.0 µs (fp32 CUDA graph) vs CPU 480.0 µs (2 threads): the GPU **8.00×** "
        "as fast (`pytorch/mlp/gpu/784x32x10/fp32/graph/device/128` (pt.json) vs "
        "`pytorch/mlp/cpu/784x32x10/fp32/eager/host/128` (pt.json)).",
    ]


def test_gpu_vs_cpu_says_when_and_where_pytorch_s_runs_were_made():
    """Made up for the test: PyTorch's CPU and GPU steps in two reports of their own, started 3.5 h and 2 h before
    hdbench's run, one on the same machine and one on another: the line says so, never 'the same host'."""
    report = synthetic_report()
    report["benchmarks"] = [mlp_step("cpu", "784x32x10", 128, 90.0), mlp_step("gpu", "784x32x10", 128, 45.0)]

    def pytorch_report(step, started, host="synthetic-h200", gpu="NVIDIA H200"):
        system = {"host": {"cpu_model": "Test CPU"}, "gpus": [{"name": gpu}]}
        return {"context": {"host_name": host, "hdbench": {"implementation": "pytorch", "started_at": started,
                                                            "system": system}}, "benchmarks": [step]}
    cpu = pytorch_report(pytorch_step("cpu", "784x32x10", 128, 480.0), "2026-11-20T06:30:00+0000")
    gpu = pytorch_report(pytorch_step("gpu", "784x32x10", 128, 600.0), "2026-11-20T08:00:00+0000",
                         host="other", gpu="NVIDIA H100")
    text = section(report_summary.summarize_reports([("hd.json", report), ("cpu.json", cpu), ("gpu.json", gpu)]),
                   GPU_VS_CPU)
    assert "PyTorch (CPU step from a run 3.5 h earlier on the same machine; its GPU step from a run 1.5 h later on " \
           "another machine (NVIDIA H100 + Test CPU, host `other`)): GPU 600.0 µs (fp32 eager) vs CPU 480.0 µs " \
           "(2 threads): the GPU **0.80×** as fast" in text
    assert "same host" not in text
    # Minutes apart (the baseline run right after hdbench's): said in minutes, never "at the same time".
    for started, said in (("2026-11-20T10:02:00+0000", "a run 2 min later"),
                          ("2026-11-20T10:00:20+0000", "a run started within a minute of it")):
        cpu["context"]["hdbench"]["started_at"] = started
        text = section(report_summary.summarize_reports([("hd.json", report), ("cpu.json", cpu), ("gpu.json", gpu)]),
                       GPU_VS_CPU)
        assert f"PyTorch (CPU step from {said} on the same machine" in text, text


def test_gpu_vs_cpu_pairs_steps_from_one_report_only():
    """A CPU step in one report and a GPU step in another (two runs, maybe two hosts) are not divided."""
    cpu_report, gpu_report = synthetic_report(), synthetic_report()
    cpu_report["benchmarks"] = [mlp_step("cpu", "784x32x10", 128, 140.0)]
    gpu_report["benchmarks"] = [mlp_step("gpu", "784x32x10", 128, 40.0)]
    text = section(report_summary.summarize_reports([("cpu.json", cpu_report), ("gpu.json", gpu_report)]), GPU_VS_CPU)
    assert "×**" not in text and "CPU only" in text


def test_summary_warns_when_the_gpu_was_throttled():
    """Made up for the test: NVML readings at the start and end of two families; only a reason other than idle
    warns."""
    report = synthetic_report()
    report["context"]["hdbench"]["gpu_conditions"] = [
        {"family": "transfer", "when": "start", "throttle_reasons": ["gpu_idle"], "sm_clock_MHz": 345},
        {"family": "transfer", "when": "end", "throttle_reasons": []},
        {"family": "mlp", "when": "end", "throttle_reasons": ["gpu_idle", "sw_power_cap"], "sm_clock_MHz": 1410,
         "sm_clock_max_MHz": 1980, "temperature_C": 83}]
    text = report_summary.summarize_reports([("r.json", report)])
    warnings = [line for line in text.splitlines() if "**Warning:**" in line]
    assert warnings == ["- **Warning:** the GPU's clocks were throttled at the end of the `mlp` family: sw_power_cap, "
                        "SM 1410 of 1980 MHz, 83 °C. Its figures may be low."]
    report["context"]["hdbench"]["gpu_conditions"] = {"unavailable": "no usable GPU: no driver"}
    assert "**Warning:**" not in report_summary.summarize_reports([("r.json", report)])


def test_benchmarks_that_ran_throttled_are_one_warning():
    """Made up for the test: readings while three benchmarks kept the GPU busy, two of them at the power cap. One
    line says how many, why, and where the SM clock fell lowest; an unthrottled busy reading says nothing."""
    report = synthetic_report()
    busy = {"family": "mlp", "when": "busy", "sm_clock_max_MHz": 1980, "power_W": 699.0, "busy_samples": 12}
    report["context"]["hdbench"]["gpu_conditions"] = [
        {"family": "mlp", "when": "start", "throttle_reasons": ["gpu_idle"], "sm_clock_MHz": 345},
        {"family": "mlp", "when": "end", "throttle_reasons": []},
        {**busy, "benchmark": "mlp/step/gpu/small", "throttle_reasons": [], "sm_clock_MHz": 1980,
         "sm_clock_mean_MHz": 1980.0},
        {**busy, "benchmark": "mlp/step/gpu/large/bf16", "throttle_reasons": ["sw_power_cap"], "sm_clock_MHz": 1590,
         "sm_clock_mean_MHz": 1702.4},
        {**busy, "benchmark": "mlp/gemm/gpu/bf16", "throttle_reasons": ["sw_power_cap", "hw_slowdown"],
         "sm_clock_MHz": 1755, "sm_clock_mean_MHz": 1801.0}]
    text = report_summary.summarize_reports([("r.json", report)])
    warnings = [line for line in text.splitlines() if "**Warning:**" in line]
    assert warnings == ["- **Warning:** 2 benchmarks ran with the GPU's clocks throttled (hw_slowdown, sw_power_cap); "
                        "the SM clock fell lowest in `mlp/step/gpu/large/bf16`: 1,590 of 1,980 MHz, mean 1,702 over 12 "
                        "readings. Their figures may be low: `context.hdbench.gpu_conditions`, `when: busy`, names "
                        "each."]


def test_summary_gives_the_noise_by_family_and_says_when_a_headline_is_noisy():
    """Made up for the test: counters of the stopping rule on three transfers. The pageable copy stopped at the
    timeout above its target: the noise table names its family (not the run), the families that settled are
    listed in one line, and the pinned-vs-pageable headline built on it says it is noisy. A run of one sample is
    'noise unknown', never noise 0."""
    report = synthetic_report()
    rule = [(0, 0.4, 10), (1, 30.0, 1500), (0, 0.5, 10)]
    for b, (stopped, noise, samples) in zip(report["benchmarks"], rule):
        b["counters"].update({"stopped_at_timeout": stopped, "noise_percent": noise, "noise_target_percent": 1.0,
                              "samples": samples})
    text = report_summary.summarize_reports([("r.json", report)])
    noise = section(text, "How sure the figures are")
    assert table_rows(noise) == [["`transfer/pageable`", "1", "**1**", "30%", "30% (1500 samples)", "–"]]
    assert "Settled within their target: `transfer/pinned`." in noise
    assert "t/h2d/pageable" not in noise
    headline = next(line for line in text.splitlines() if line.startswith("| Pinned vs pageable"))
    assert "pinned **3.00×** pageable" in headline and "**noisy**: ±30%, above the 1% target at the timeout" in headline
    assert "(noisy: ±30%, above the 1% target at the timeout)." in section(
        text, "How much faster is pinned memory than pageable, and when does pinning pay off?")
    # The answers come first: the table of the four questions opens the page, before the noise.
    assert text.index("| Pinned vs pageable") < text.index("## How sure the figures are") < text.index("\n## How much")
    report["benchmarks"][1]["counters"].update(samples=1, noise_percent=0.0)
    text = report_summary.summarize_reports([("r.json", report)])
    headline = next(line for line in text.splitlines() if line.startswith("| Pinned vs pageable"))
    assert "**noise unknown**: 1 of its runs took 1 sample" in headline
    report["benchmarks"][1]["counters"].update(samples=20, noise_percent=0.8, stopped_at_timeout=0)
    text = report_summary.summarize_reports([("r.json", report)])
    assert "How sure the figures are" in text and "did not settle" not in text
    assert "| Pinned vs pageable memory | pinned **3.00×** pageable: H2D 256 MiB, 54.0 vs 18.0 GB/s | ±0.8% |" in text
    for b in report["benchmarks"]:  # reports from before the stopping rule, or with it off
        b["counters"].pop("noise_percent", None)
    text = report_summary.summarize_reports([("r.json", report)])
    assert "How sure the figures are" not in text and "| noise not recorded |" in text


VS_PYTORCH = "How does hdbench's training step compare with PyTorch's?"
THREADS = "threads (hdbench / PyTorch)"
PAIR_BENCHMARKS = "benchmark (hdbench's; PyTorch's after `vs` where named otherwise)"


def pytorch_twin(processor, model, batch, step_us, mode="eager", data="device", threads=None):
    """PyTorch's run of the step mlp_step() names, under the same name (as the baseline writes it)."""
    b = mlp_step(processor, model, batch, step_us, mode=mode, data=data)
    b["params"]["implementation"] = "pytorch"
    if threads is not None:
        b["params"]["threads"] = threads
        b["name"] += f"/threads:{threads}"
    return b


def test_vs_pytorch_gives_graph_eager_and_cpu_pairs_apart_graph_first():
    """Made up for the test (not measured): ratios chosen to be exact. Eager pairs come three per point in real
    runs and carry PyTorch's per-step Python cost, so they are not pooled with the graph replays."""
    hd = synthetic_report()
    hd["benchmarks"] = [
        mlp_step("cpu", "784x32x10", 128, 100.0),
        mlp_step("gpu", "784x32x10", 128, 50.0), mlp_step("gpu", "784x32x10", 128, 70.0, data="pinned"),
        mlp_step("gpu", "784x32x10", 1024, 120.0),
        mlp_step("gpu", "784x32x10", 128, 40.0, mode="graph"), mlp_step("gpu", "784x32x10", 1024, 100.0, mode="graph"),
        mlp_step("gpu", "784x32x10", 4096, 200.0, mode="graph"),
    ]
    pt = {"context": {"host_name": "synthetic-h200", "hdbench": {"implementation": "pytorch"}}, "benchmarks": [
        pytorch_twin("cpu", "784x32x10", 128, 300.0, threads=2),
        pytorch_twin("cpu", "784x32x10", 128, 150.0, threads=4),  # the fastest of PyTorch's thread counts is paired
        pytorch_twin("gpu", "784x32x10", 128, 1050.0), pytorch_twin("gpu", "784x32x10", 128, 1100.0, data="pinned"),
        pytorch_twin("gpu", "784x32x10", 1024, 1160.0),
        pytorch_twin("gpu", "784x32x10", 128, 80.0, mode="graph"),
        pytorch_twin("gpu", "784x32x10", 1024, 110.0, mode="graph"),
        pytorch_twin("gpu", "784x32x10", 4096, 150.0, mode="graph"),
    ]}
    text = section(report_summary.summarize_reports([("hd.json", hd), ("pt.json", pt)]), VS_PYTORCH)
    assert answer_lines(text) == [
        "- **GPU, CUDA graph** (both replay one captured step, no per-step Python or launches: the like-for-like "
        "comparison): hdbench faster in **2** of 3; PyTorch ÷ hdbench median **1.10×**, range 0.75×–2.00×; weakest "
        "784x32x10, fp32, batch 4096, 0.75× (`mlp/gpu/784x32x10/fp32/graph/device/4096` in both reports).",
        # eager - graph at the points where both replayed a graph (batch on the device, 128 and 1024): PyTorch 970
        # and 1050 µs, hdbench 10 and 20 µs; the pinned pair has no graph on either side and is left out of both.
        "- **GPU, eager** (over the 2 points where both also replayed a CUDA graph, PyTorch's eager step takes a "
        "median 1,010 µs longer than its graph replay, hdbench's 15 µs longer: Python, dispatch and launches, every "
        "step): hdbench faster in **3** of 3; PyTorch ÷ "
        "hdbench median **15.71×**, range 9.67×–21.00×; weakest 784x32x10, fp32, batch 1024, 9.67× "
        "(`mlp/gpu/784x32x10/fp32/eager/device/1024` in both reports).",
        "- **CPU** (threads: hdbench 2, PyTorch 4): hdbench faster in **1** of 1; PyTorch ÷ hdbench **1.50×** "
        "(784x32x10, fp32, batch 128; `mlp/cpu/784x32x10/fp32/eager/host/128` (hd.json) vs "
        "`mlp/cpu/784x32x10/fp32/eager/host/128/threads:4` (pt.json)).",
        "- The two did not run together: PyTorch's steps are from `pt.json` from another run on the same machine "
        "(hdbench's `hd.json`); a busy spell in one run moves its side only.",
    ]
    rows = tables_of(text)[0]
    # The CPU row says each side's threads (PyTorch's fastest of 2 and 4 was 4); a GPU row has none.
    assert [(r["mode"], r["data"], r["batch"], r[THREADS], r["PyTorch ÷ hdbench"]) for r in rows] == [
        ("graph", "device", "128", "–", "**2.00×**"), ("graph", "device", "1024", "–", "**1.10×**"),
        ("graph", "device", "4096", "–", "**0.75×**"),
        ("eager", "device", "128", "–", "**21.00×**"), ("eager", "pinned", "128", "–", "**15.71×**"),
        ("eager", "device", "1024", "–", "**9.67×**"),
        ("eager", "host", "128", "2 / 4", "**1.50×**")]
    assert rows[-1][PAIR_BENCHMARKS] == \
        "`mlp/cpu/784x32x10/fp32/eager/host/128` vs `mlp/cpu/784x32x10/fp32/eager/host/128/threads:4`"
    # The top table's row: each kind of step apart, counted, with its range (a CPU step PyTorch
    # wins hid among GPU ones in one count).
    summary = report_summary.summarize_reports([("hd.json", hd), ("pt.json", pt)])
    top = next(line for line in summary.splitlines() if line.startswith("| hdbench vs PyTorch training step"))
    assert ("| GPU, CUDA graph: hdbench faster in **2** of 3, 0.75×–2.00×; GPU, eager: hdbench faster in **3** of 3, "
            "9.67×–21.00×; CPU: hdbench faster in **1** of 1, 1.50× (PyTorch's time ÷ hdbench's) |") in top
    assert "within noise" not in summary  # no spread recorded on either side: none can be said to be


def test_vs_pytorch_says_which_pairs_lie_within_noise():
    """A 2-vCPU VM, 2026-11-29: hdbench's step at ±11.8% against PyTorch's at a CV of 5.7% read
    "0.90×", one of "7 of 8". Within the two spreads together, neither is faster: it is said so,
    in the table, the group's line and the top row; a pair beyond them is not."""
    hd = synthetic_report()
    slow = mlp_step("cpu", "784x32x10", 1024, 1000.0)
    slow["counters"]["noise_percent"] = 11.8
    fast = mlp_step("cpu", "784x32x10", 128, 100.0)
    fast["counters"]["noise_percent"] = 1.0
    hd["benchmarks"] = [slow, fast]
    pt = {"context": {"host_name": "synthetic-vm", "hdbench": {"implementation": "pytorch"}}, "benchmarks": [
        pytorch_twin("cpu", "784x32x10", 1024, 900.0, threads=2), pytorch_twin("cpu", "784x32x10", 128, 200.0, threads=2)]}
    for b in pt["benchmarks"]:
        b["counters"]["cv_percent"] = 5.7
    summary = report_summary.summarize_reports([("hd.json", hd), ("pt.json", pt)])
    text = section(summary, VS_PYTORCH)
    assert "hdbench faster in **1** of 2 (1 within noise: 0.90×)" in answer_lines(text)[0]
    assert [(r["batch"], r["PyTorch ÷ hdbench"]) for r in tables_of(text)[0]] == \
        [("128", "**2.00×**"), ("1024", "**0.90×** (within noise)")]
    assert "Within noise: the two differ by less than their spreads together" in text
    top = next(line for line in summary.splitlines() if line.startswith("| hdbench vs PyTorch training step"))
    assert "CPU: hdbench faster in **1** of 2 (1 within noise: 0.90×), 0.90×–2.00×" in top


def with_phases(b: dict, **phases) -> dict:
    """A CPU step with its profile's `phase_us/<phase>` counters (the phases not named: 0)."""
    names = ("forward_gemm", "forward_elementwise", "loss", "backward_input_gemm", "backward_elementwise",
             "weight_gradient_gemm", "optimizer")
    b["counters"].update({f"phase_us/{p}": float(phases.get(p, 0.0)) for p in names})
    return b


def test_vs_pytorch_sets_the_cpu_steps_phases_side_by_side():
    """Made up for the test (not measured): where PyTorch wins a config, which part of the step it wins.
    hdbench's weights are updated inside its weight-gradient GEMMs, so that phase and PyTorch's optimizer are
    one column."""
    hd = synthetic_report()
    hd["benchmarks"] = [
        with_phases(mlp_step("cpu", "784x4096x4096x10", 1024, 348000.0), forward_gemm=114000,
                    backward_input_gemm=101000, weight_gradient_gemm=127500, forward_elementwise=1000,
                    backward_elementwise=1700, loss=100),
        with_phases(mlp_step("cpu", "784x32x10", 128, 88.0), forward_gemm=30, weight_gradient_gemm=50, loss=8),
        mlp_step("cpu", "784x32x10", 1024, 480.0),  # no profile: left out of the phase table
    ]
    pt = {"context": {"host_name": "synthetic-h200", "hdbench": {"implementation": "pytorch"}}, "benchmarks": [
        with_phases(pytorch_twin("cpu", "784x4096x4096x10", 1024, 350000.0), forward_gemm=100000,
                    backward_input_gemm=83000, weight_gradient_gemm=104000, optimizer=17000,
                    forward_elementwise=5500, backward_elementwise=6300, loss=400),
        with_phases(pytorch_twin("cpu", "784x32x10", 128, 340.0), forward_gemm=56, weight_gradient_gemm=73,
                    optimizer=135, loss=65, backward_elementwise=150),
        with_phases(pytorch_twin("cpu", "784x32x10", 1024, 900.0), forward_gemm=190),
    ]}
    text = section(report_summary.summarize_reports([("hd.json", hd), ("pt.json", pt)]), VS_PYTORCH)
    assert "Where each CPU step's time goes (µs a step, hdbench / PyTorch" in text
    phases = [[r[h] for h in ("model", "batch", THREADS, "forward GEMMs", "backward-input GEMMs",
                              "weight gradients and the optimizer", "element-wise passes and the loss",
                              "where PyTorch gains most")] for r in tables_of(text)[1]]
    assert phases == [
        ["784x32x10", "128", "2 / 2", "30 / 56", "0 / 0", "50 / 208", "8 / 215", "none"],
        # PyTorch's GEMMs are faster; its optimizer after them and its element-wise passes cost it the rest.
        ["784x4096x4096x10", "1024", "2 / 2", "114,000 / 100,000", "101,000 / 83,000", "127,500 / 121,000",
         "2,800 / 12,200", "backward-input GEMMs (18,000 µs less)"],
    ]


def test_a_cpu_step_above_its_roof_names_the_roof_instead_of_a_share():
    """Made up for the test (not measured), as the EPYC VM's run 2 of 2026-11-27 held it: a step at 1.47 of a roof
    measured while a core was busy. No share above 100% is printed; the roof is named as low."""
    report = synthetic_report()
    low, right = mlp_step("cpu", "784x4096x4096x10", 1024, 773000.0), mlp_step("cpu", "784x32x10", 128, 186.0)
    low["counters"]["fraction_of_fp32_roof"] = 1.472
    right["counters"]["fraction_of_fp32_roof"] = 0.353
    report["benchmarks"] = [low, right]
    text = report_summary.summarize_reports([("hd.json", report)])
    assert "147%" not in text
    assert "above the CPU's measured fp32 roof, which read low" in text
    assert "35% of the CPU's measured fp32 roof" in text


def adam(b: dict) -> dict:
    """The same step with Adam (its name says so, as the binary's names do)."""
    b["params"]["optimizer"] = "adam"
    b["name"] = b["name"].replace("/fp32/", "/fp32/adam/")
    return b


def test_vs_pytorch_phase_table_names_the_optimizer_when_both_ran():
    """Made up for the test (not measured): SGD and Adam steps of one model and batch on both sides. Without an
    optimizer column their two rows of the phase table would read alike (the EPYC VM's reports of 2026-11-27)."""
    hd = synthetic_report()
    hd["benchmarks"] = [
        with_phases(mlp_step("cpu", "784x32x10", 128, 186.0), forward_gemm=132, weight_gradient_gemm=151, loss=24),
        with_phases(adam(mlp_step("cpu", "784x32x10", 128, 230.0)), forward_gemm=72, weight_gradient_gemm=77,
                    loss=23),
    ]
    pt = {"context": {"host_name": "synthetic-vm", "hdbench": {"implementation": "pytorch"}}, "benchmarks": [
        with_phases(pytorch_twin("cpu", "784x32x10", 128, 864.0), forward_gemm=186, weight_gradient_gemm=1194),
        with_phases(adam(pytorch_twin("cpu", "784x32x10", 128, 1510.0)), forward_gemm=148,
                    weight_gradient_gemm=540),
    ]}
    text = section(report_summary.summarize_reports([("hd.json", hd), ("pt.json", pt)]), VS_PYTORCH)
    assert "| optimizer | forward GEMMs |" in text  # model, batch and threads: one on every row, said above
    phases = sorted([r["model"], r["optimizer"], r["batch"], r["forward GEMMs"]] for r in tables_of(text)[1])
    assert phases == [["784x32x10", "adam", "128", "72 / 148"], ["784x32x10", "sgd", "128", "132 / 186"]]


def test_vs_pytorch_says_where_each_gpu_step_s_time_goes():
    """Made up for the test (not measured): hdbench's GEMMs from its plan's timings, PyTorch's GEMM kernels from
    its profile; a step without them is left out of the table."""
    hd = synthetic_report()
    step = mlp_step("gpu", "784x4096x4096x4096x10", 8192, 2850.0, dtype="bf16")
    step["counters"].update(planned_gemm_us=2280.0, gemm_share_of_step=0.8)
    hd["benchmarks"] = [step, mlp_step("gpu", "784x32x10", 128, 60.0)]
    pt_step = pytorch_twin("gpu", "784x4096x4096x4096x10", 8192, 3600.0)
    pt_step["params"]["dtype"] = "bf16"
    pt_step["name"] = step["name"]
    pt_step["counters"].update({"kernel_us": 3300.0, "kernel_us/forward_gemm": 800.0,
                                "kernel_us/backward_input_gemm": 700.0, "kernel_us/weight_gradient_gemm": 900.0,
                                "kernel_us/optimizer": 500.0, "kernel_us/loss": 400.0})
    pt = {"context": {"host_name": "synthetic-h200", "hdbench": {"implementation": "pytorch"}},
          "benchmarks": [pt_step, pytorch_twin("gpu", "784x32x10", 128, 1000.0)]}
    text = section(report_summary.summarize_reports([("hd.json", hd), ("pt.json", pt)]), VS_PYTORCH)
    assert "Where each GPU step's time goes (µs a step)" in text
    rows = [list(r.values()) for r in tables_of(text)[1]]  # not the pairs table
    # PyTorch: 2,400 µs of GEMM kernels (67% of 3,600), 900 of others, 300 between kernels. hdbench's GEMMs were
    # only timed alone, at plan time: marked so, with no other parts.
    assert rows == [["784x4096x4096x4096x10", "sgd", "bf16", "eager", "8192", "2,850.0", "2,280.0 (80%) alone", "–",
                     "3,600.0", "2,400.0 (67%)", "900.0", "300.0"]]

    # With the step's parts timed in place, those are shown instead: 2,400 of GEMMs (84% of 2,850), and 300 of
    # update with 60 of loss and cast.
    step["counters"].update(in_step_us=2880.0, in_step_gemm_us=2400.0, in_step_update_us=300.0,
                            in_step_other_us=60.0)
    text = section(report_summary.summarize_reports([("hd.json", hd), ("pt.json", pt)]), VS_PYTORCH)
    rows = tables_of(text)[1]  # not the pairs table
    assert [rows[0]["its GEMMs"], rows[0]["its other parts"]] == ["2,400.0 (84%)", "360.0"]


H100 = Path(__file__).resolve().parents[3] / "reports" / "reference" / "h100-2026-11-23"


def test_vs_pytorch_on_the_h100_reports_shows_the_fair_comparison_first():
    """The H100 reports of 2026-11-23: 8 graph, 24 eager and 4 CPU pairs; each group's median and range are the
    reports' own step times, and the answer fits in the section's first lines, before the table."""
    reports = [(str(H100 / f), json.loads((H100 / f).read_text())) for f in ("default-h100.json", "pytorch-h100.json")]
    text = section(report_summary.summarize_reports(reports), VS_PYTORCH)
    steps: dict = {}
    for _, report in reports:
        for b in report["benchmarks"]:
            p = b.get("params", {})
            if b.get("status") == "ok" and p.get("family") == "mlp" and p.get("variant") == "step":
                key = (p["model"], p["processor"], p["optimizer"], p["dtype"], p["mode"], p["data"], p["batch"])
                steps.setdefault(key, {})[p["implementation"]] = b["counters"]["step_us"]
    groups: dict = {}
    for (model, processor, optimizer, dtype, mode, data, batch), us in steps.items():
        if len(us) == 2:
            group = "CPU" if processor == "cpu" else f"GPU, {'CUDA graph' if mode == 'graph' else mode}"
            groups.setdefault(group, []).append(us["pytorch"] / us["hdbench"])
    assert {g: len(r) for g, r in groups.items()} == {"GPU, CUDA graph": 8, "GPU, eager": 24, "CPU": 4}
    lines = text.strip().splitlines()
    assert [line.split("**")[1] for line in lines[:3]] == ["GPU, CUDA graph", "GPU, eager", "CPU"]
    for line, group in zip(lines[:3], ["GPU, CUDA graph", "GPU, eager", "CPU"]):
        r = groups[group]
        assert f"of {len(r)}" in line and f"; PyTorch ÷ hdbench median **{statistics.median(r):.2f}×**, " \
               f"range {min(r):.2f}×–{max(r):.2f}×;" in line, line
    # The fair comparison is far from the pooled median the eager pairs made (2.85x over all 36 pairs).
    assert "median **1.80×**, range 1.05×–2.91×" in lines[0]
    # The eager steps' extra time over their graph replays, over the same 8 points for both (the summary pooled
    # PyTorch's 24 eager pairs against hdbench's 8 and read 777 µs).
    assert "median **4.14×**" in lines[1] and \
        "over the 8 points where both also replayed a CUDA graph, PyTorch's eager step takes a median 700 µs " \
        "longer than its graph replay, hdbench's 22 µs" in lines[1]
    assert lines[3].startswith("- The two did not run together: PyTorch's steps are from `pytorch-h100.json` from "
                               "a run ")
    assert lines[4] == "" and lines[5].startswith("Step time (µs), graph pairs first")
    rows = tables_of(text)[0]
    assert len(rows) == 36
    assert [r["mode"] for r in rows] == ["graph"] * 8 + ["eager"] * 28  # the 4 CPU pairs last, eager too
    assert [r["processor"] for r in rows[-4:]] == ["CPU"] * 4
    # hdbench's sweep chose each CPU step's threads (16 each time in this run), PyTorch ran 16.
    assert [r[THREADS] for r in rows[-4:]] == ["16 (auto) / 16"] * 4


def test_a_pipeline_above_its_ideal_is_called_a_wrong_bound_not_a_result():
    """Made up for the test: a schema-1 report whose pipeline reached 105% of its ideal (the H100's did: the
    ideal was fed 16-chunk stage times)."""
    report = synthetic_report()
    overlap = section(report_summary.summarize_reports([("r.json", report)]), "How much does async copy/compute "
                                                                               "overlap save?")
    assert "Ideal beaten" not in overlap
    report["derived"]["stream_overlap"][0]["pipelined"]["fraction_of_ideal"] = 1.05
    overlap = section(report_summary.summarize_reports([("r.json", report)]), "How much does async copy/compute "
                                                                               "overlap save?")
    assert "**Ideal beaten** (1 run; not shown as a fraction, which is at most 100% of a true bound)" in overlap
    assert "The wrong reference is the ideal (`ideal_us`) built from the chunked runs' stage times, slower than a " \
        "whole buffer's (schema 1" in overlap
    assert "105%" not in overlap.replace("at 105.0%", "")  # named once as the beaten figure, never as a fraction


def test_the_questions_a_report_answers_come_before_those_it_cannot():
    """The H100's large step beside PyTorch (2026-11-28b): two answers, the other questions it has
    no runs for. Its answers were under those; now they follow the noise table, and those are one
    section after them."""
    folder = Path(__file__).resolve().parents[3] / "reports/reference/h100-2026-11-28b/overhead"
    reports = [(str(folder / n), json.loads((folder / n).read_text())) for n in ("gpu-large.json",
                                                                              "pytorch-gpu-large.json")]
    text = report_summary.summarize_reports(reports)
    sections = [s for s in text.split("\n## ")[1:] if not s.startswith(("How sure", "Not measured", "Glossary"))]
    assert sections[0].startswith("How much faster is a training step on the GPU than on the CPU?")
    assert sections[1].startswith("How does hdbench's training step compare with PyTorch's?")
    # the rest it cannot answer: one section after the answers, a line each
    assert sections[-1].startswith("What these reports cannot answer")
    assert len(unanswerable(sections[-1])) == len(report_summary.QUESTIONS) - 2


def test_a_pipeline_slower_than_sync_is_said_slower_not_a_negative_saving():
    from hdreport.families.transfer.summary import saving_text

    assert saving_text(48.4, "saves ") == "**saves 48%**" and saving_text(48.4) == "**48%**"
    assert saving_text(-15.2) == "**15% slower**" and saving_text(-15.2, "saves ") == "**15% slower**"


def test_an_eager_step_no_slower_than_its_graph_is_not_a_negative_overhead():
    """The H100's large step of 2026-11-28b: hdbench's eager step ran 1 µs faster than its replay,
    which the summary printed as "hdbench's -1 µs" longer."""
    folder = Path(__file__).resolve().parents[3] / "reports/reference/h100-2026-11-28b/overhead"
    reports = [(str(folder / n), json.loads((folder / n).read_text())) for n in ("gpu-large.json",
                                                                              "pytorch-gpu-large.json")]
    text = report_summary.summarize_reports(reports)
    assert "PyTorch's eager step takes a median 222 µs longer than its graph replay, hdbench's not longer (its " \
           "replay was no faster)" in text and "-1 µs" not in text
