"""baselines/pytorch/pytorch_baseline.py's `mlp` family: its option checks and naming (no PyTorch
needed; the script checks options before it imports PyTorch) and, where PyTorch is
importable, a tiny CPU run whose report the report tools read, whose first losses are
hdbench's own (with HDBENCH_BIN), and a run in which one benchmark diverges on purpose.
The loader family and the data port are in test_pytorch_loader.py. No test looks at a
time."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import hdbench_report
import pytorch_baseline
from hdreport import compare as report_compare
from conftest import run_hdbench

SCRIPT = Path(__file__).resolve().parents[3] / "baselines" / "pytorch" / "pytorch_baseline.py"
MODEL = "784x16x10"
SEED = 7
BATCHES = (4, 8)
STEP_COUNTERS = {"step_us", "step_best_us", "samples/s", "TFLOP/s", "cv_percent", "samples", "steps_per_sample",
                 "first_loss", "final_loss", "gemm_TFLOP/s", "fraction_of_gemm_rate", "items_per_second"}


def run_baseline(*args, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture
def no_torch_env(tmp_path):
    """An environment in which `import torch` fails, whether or not PyTorch is installed."""
    fake = tmp_path / "fake_site" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("blocked by the test")\n')
    env = dict(os.environ)
    env["PYTHONPATH"] = str(fake.parent) + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.mark.parametrize("args, message", [
    (["--models", "784x0x10"], "bad model '784x0x10': width 0 is not positive"),
    (["--models", "abc"], "bad model 'abc': 'abc' is not a whole number"),
    (["--models", "784"], "needs at least an input width and a class count"),
    (["--models", "784xx10"], "an empty width"),
    (["--models", "784x2000000x10"], "over the limit"),
    (["--models", "8x4x2"], "bad model '8x4x2': it does not fit the dataset: the first width must be 784"),
    (["--models", "784x32x2"], "the last at least 10"),
    (["--families", "mlp,io"], "--families: unknown value 'io'"),
    (["--loader-pinning", "direct"], "--loader-pinning: unknown value 'direct'"),
    (["--loader-consumers", "tpu"], "--loader-consumers: unknown value 'tpu'"),
    (["--loader-workers", "0,-2"], "--loader-workers: '-2' is not a whole number >= 0"),
    (["--loader-batches", "0"], "--loader-batches: '0' is not a positive whole number"),
    (["--loader-samples", "0"], "--loader-samples: '0' is not a whole number >= 1"),
    (["--mnist-dir", "/nonexistent"], "--mnist-dir: '/nonexistent' has no train-images-idx3-ubyte"),
    (["--test-sgd-lr", "fast"], "--test-sgd-lr: 'fast' is not a number"),
    (["--dtypes", "fp16"], "--dtypes: unknown value 'fp16'"),
    (["--optimizers", "rmsprop"], "--optimizers: unknown value 'rmsprop'"),
    (["--processors", "tpu"], "--processors: unknown value 'tpu'"),
    (["--modes", "eager,jit"], "--modes: unknown value 'jit'"),
    (["--data", "mapped"], "--data: unknown value 'mapped'"),
    (["--batches=-4"], "--batches: '-4' is not a positive whole number"),
    (["--batches", "0"], "--batches: '0' is not a positive whole number"),
    (["--batches", "32,,64"], "--batches: empty item"),
    (["--threads", "0"], "--threads: '0' is not a positive whole number"),
    (["--min-time", "-1"], "--min-time: '-1' is not a number of seconds"),
    (["--min-time", "nan"], "--min-time: 'nan' is not a number of seconds"),
    (["--warmup", "x"], "--warmup: 'x' is not a whole number"),
    (["--families", "mlp", "--processors", "cpu", "--dtypes", "bf16"], "nothing to run: the cpu runs fp32"),
    (["--no-such-flag"], "unrecognized arguments"),  # argparse's own usage error
])
def test_bad_options_exit_2_before_importing_torch(tmp_path, no_torch_env, args, message):
    out = tmp_path / "r.json"
    result = run_baseline(*args, "--out", out, env=no_torch_env)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr and "PyTorch" not in result.stderr
    assert not out.exists()


def test_an_out_path_that_is_a_folder_exits_2(tmp_path, no_torch_env):
    result = run_baseline("--out", tmp_path, env=no_torch_env)
    assert result.returncode == 2 and "is a directory" in result.stderr


def test_without_pytorch_good_options_exit_2_saying_so(tmp_path, no_torch_env):
    result = run_baseline("--processors", "cpu", "--out", tmp_path / "r.json", env=no_torch_env)
    assert result.returncode == 2
    assert "PyTorch is not importable" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "r.json").exists()


def test_names_and_flops_follow_hdbench():
    spec = dict(kind="step", processor="cpu", model="784x32x10", widths=[784, 32, 10], dtype="fp32",
                optimizer="sgd", mode="eager", data="host", batch=128, threads=2, device=0)
    assert pytorch_baseline.benchmark_name(spec) == \
        "mlp/step/cpu/784x32x10/fp32/sgd/eager/data:host/batch:128/threads:2/manual_time"
    gpu = dict(spec, processor="gpu", dtype="bf16", optimizer="adam", mode="graph", data="pinned", threads=None)
    assert pytorch_baseline.benchmark_name(gpu) == \
        "mlp/step/gpu/784x32x10/bf16/adam/graph/data:pinned/batch:128/manual_time"
    assert pytorch_baseline.benchmark_params(gpu) == {
        "family": "mlp", "variant": "step", "implementation": "pytorch", "processor": "gpu", "model": "784x32x10",
        "dtype": "bf16", "optimizer": "adam", "mode": "graph", "data": "pinned", "batch": 128, "device": 0}
    gemm = dict(kind="gemm", processor="cpu", dtype="fp32", threads=2, n=2048, device=0)
    assert pytorch_baseline.benchmark_name(gemm) == "mlp/gemm/cpu/fp32/2048x2048x2048/threads:2/manual_time"
    # forward 2·B·in·out per layer; backward twice that, less the first layer's input gradient
    forward = 2 * 128 * (784 * 32 + 32 * 10)
    assert pytorch_baseline.training_step_flops([784, 32, 10], 128) == 3 * forward - 2 * 128 * 784 * 32


def test_cpu_grid_leaves_out_gpu_only_axes():
    opts = pytorch_baseline.parse_args(["--processors", "cpu,gpu", "--models", "784x4x10", "--batches", "4",
                                        "--dtypes", "fp32,bf16", "--optimizers", "sgd", "--modes", "eager,graph",
                                        "--data", "device,pinned", "--threads", "1,2", "--out", "/tmp/x.json"])
    specs, dropped = pytorch_baseline.step_grid(opts)
    cpu = [s for s in specs if s["processor"] == "cpu"]
    assert {(s["dtype"], s["mode"], s["data"], s["threads"]) for s in cpu} == {("fp32", "eager", "host", 1),
                                                                               ("fp32", "eager", "host", 2)}
    assert len([s for s in specs if s["processor"] == "gpu"]) == 2 * 2 * 2  # dtypes x modes x data
    assert dropped and "bf16" in dropped[0] and "graph" in dropped[0]
    gemms = pytorch_baseline.gemm_grid(specs, opts)
    assert {(g["processor"], g["dtype"], g["threads"]) for g in gemms} == {
        ("cpu", "fp32", 1), ("cpu", "fp32", 2), ("gpu", "fp32", None), ("gpu", "bf16", None)}


# ---- with PyTorch -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    torch = pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("pytorch_baseline")
    out = folder / "report.json"
    result = run_baseline("--families", "mlp", "--processors", "cpu,gpu", "--models", MODEL,
                          "--batches", ",".join(map(str, BATCHES)), "--dtypes", "fp32,bf16",
                          "--optimizers", "sgd,adam", "--modes", "eager", "--data", "device,pinned",
                          "--threads", "1", "--min-time", "0.001", "--min-samples", "2", "--warmup", "1",
                          "--seed", SEED, "--out", out)
    assert result.returncode == 0, result.stdout + result.stderr
    return torch, folder, out, json.loads(out.read_text()), result


def test_tiny_run_writes_the_specified_names(tiny_run):
    torch, _, _, report, _ = tiny_run
    names = {b["name"] for b in report["benchmarks"]}
    expected = {"mlp/gemm/cpu/fp32/2048x2048x2048/threads:1/manual_time",
                "mlp/gemm/gpu/fp32/8192x8192x8192/manual_time", "mlp/gemm/gpu/bf16/8192x8192x8192/manual_time"}
    for opt in ("sgd", "adam"):
        for b in BATCHES:
            expected.add(f"mlp/step/cpu/{MODEL}/fp32/{opt}/eager/data:host/batch:{b}/threads:1/manual_time")
            for dtype in ("fp32", "bf16"):
                for data in ("device", "pinned"):
                    expected.add(f"mlp/step/gpu/{MODEL}/{dtype}/{opt}/eager/data:{data}/batch:{b}/manual_time")
    assert names == expected
    assert len(report["benchmarks"]) == len(expected)


def test_tiny_run_cpu_entries_carry_params_and_counters(tiny_run):
    _, _, _, report, _ = tiny_run
    gemm = next(b for b in report["benchmarks"]
                if b["params"]["variant"] == "gemm" and b["params"]["processor"] == "cpu")
    assert gemm["status"] == "ok"
    assert gemm["params"] == {"family": "mlp", "variant": "gemm", "implementation": "pytorch", "processor": "cpu",
                              "dtype": "fp32", "m": 2048, "n": 2048, "k": 2048, "threads": 1}
    gemm_rate = gemm["counters"]["TFLOP/s"]
    steps = [b for b in report["benchmarks"] if b["params"]["processor"] == "cpu" and b["params"]["variant"] == "step"]
    assert len(steps) == 2 * len(BATCHES)
    for b in steps:
        assert b["status"] == "ok", b
        p = b["params"]
        assert p == {"family": "mlp", "variant": "step", "implementation": "pytorch", "processor": "cpu",
                     "model": MODEL, "dtype": "fp32", "optimizer": p["optimizer"], "mode": "eager", "data": "host",
                     "batch": p["batch"], "threads": 1}
        c = b["counters"]
        assert STEP_COUNTERS <= c.keys()
        assert all(b[k] == v for k, v in c.items())  # also top-level, as Google Benchmark writes them
        assert math.isfinite(c["final_loss"]) and c["final_loss"] > 0 and math.isfinite(c["first_loss"])
        assert c["steps_per_sample"] >= 1 and c["step_best_us"] <= c["step_us"]
        assert c["samples"] >= 2 and b["iterations"] == c["samples"]
        assert b["run_type"] == "iteration" and b["time_unit"] == "us" and b["run_name"] == b["name"]
        assert b["real_time"] > 0 and b["cpu_time"] >= 0
        # Time is the median step, as hdbench writes it (it was the mean: skewed by slow outliers).
        assert b["real_time"] == pytest.approx(c["step_us"], rel=1e-12)
        # The counters are the same median seen three ways (formulas, not speed).
        flops = pytorch_baseline.training_step_flops([784, 16, 10], p["batch"])
        assert c["samples/s"] == pytest.approx(p["batch"] / (c["step_us"] * 1e-6))
        assert c["TFLOP/s"] == pytest.approx(flops / (c["step_us"] * 1e-6) / 1e12)
        assert c["gemm_TFLOP/s"] == gemm_rate
        assert c["fraction_of_gemm_rate"] == pytest.approx(c["TFLOP/s"] / gemm_rate)
        assert isinstance(b["notes"], list)
        # Where the step's time went, in hdbench's CPU phases, from steps profiled after the timed ones (its
        # form only: the sizes are times).
        phases = {k: v for k, v in c.items() if k.startswith("phase_us/")}
        assert set(phases) == {f"phase_us/{p}" for p in pytorch_phases_names()}, sorted(phases)
        assert all(v >= 0 for v in phases.values()) and c["profiled_step_us"] > 0
        assert phases["phase_us/forward_gemm"] > 0 and phases["phase_us/weight_gradient_gemm"] > 0
        assert phases["phase_us/optimizer"] > 0 and sum(phases.values()) <= 1.5 * c["profiled_step_us"]


def pytorch_phases_names() -> tuple:
    import pytorch_phases  # beside pytorch_baseline; it imports PyTorch
    return pytorch_phases.PHASES


@pytest.mark.parametrize("shapes, batch, first, phase", [
    ([[128, 4096], [4096, 4096]], 128, True, "backward_input_gemm"),    # grad [B, out] @ W [out, in]
    ([[4096, 128], [128, 4096]], 128, False, "weight_gradient_gemm"),   # grad^T [out, B] @ x [B, in]
    ([[4096, 4096], [4096, 784]], 4096, True, "backward_input_gemm"),   # out == B: both read alike; first in node
    ([[4096, 4096], [4096, 784]], 4096, False, "weight_gradient_gemm"),
])
def test_a_backward_mm_is_an_input_or_a_weight_gradient_by_its_shapes(shapes, batch, first, phase):
    pytest.importorskip("torch")
    import pytorch_phases
    assert pytorch_phases.backward_gemm_phase(shapes, batch, first) == phase


def test_tiny_run_gpu_entries_are_skipped_with_the_reason_without_cuda(tiny_run):
    torch, _, _, report, _ = tiny_run
    gpu = [b for b in report["benchmarks"] if b["params"]["processor"] == "gpu"]
    assert len(gpu) == 2 + 2 * 2 * 2 * len(BATCHES)
    hd = report["context"]["hdbench"]
    if torch.cuda.is_available():
        assert all(b["status"] in ("ok", "skipped") for b in gpu)
        return
    assert hd["system"]["gpu_usable"] is False and hd["system"]["gpu_unavailable_reason"]
    for b in gpu:
        assert b["status"] == "skipped" and b["skip_reason"] == hd["system"]["gpu_unavailable_reason"]
        assert b["error_message"] == "skipped: " + b["skip_reason"]
        assert b["params"]["device"] == 0 and "threads" not in b["params"] and b["counters"] == {}


def test_tiny_run_context(tiny_run):
    torch, _, out, report, result = tiny_run
    ctx = report["context"]
    hd = ctx["hdbench"]
    assert hd["schema_version"] == 2 and hd["implementation"] == "pytorch"
    assert hd["torch_version"] == torch.__version__ and hd["cuda_version"] == torch.version.cuda
    assert hd["system"]["host"]["logical_cores"] >= 1 and isinstance(hd["system"]["gpus"], list)
    assert hd["options"]["models"] == [MODEL] and hd["options"]["batches"]["cpu"] == list(BATCHES)
    assert hd["options"]["out_path"] == str(out)
    assert ctx["host_name"] and ctx["num_cpus"] >= 1 and ctx["date"]
    assert "step/cpu/784x16x10/fp32/sgd/eager/data:host/batch:4/threads:1" in result.stdout  # the table
    assert str(out) in result.stdout


def test_tiny_run_report_is_written_atomically_and_read_by_the_tools(tiny_run):
    _, folder, out, report, _ = tiny_run
    assert [p.name for p in folder.iterdir()] == ["report.json"]  # no temp file left behind
    loaded = hdbench_report.load_report(str(out))
    assert loaded == report
    rows, only_base, only_new = report_compare.compare(loaded, loaded, 5.0, 0.05)
    assert {r.name for r in rows} == {b["name"] for b in report["benchmarks"] if b["status"] == "ok"}
    assert not only_base and not only_new


def test_tiny_run_report_plots(tiny_run, tmp_path):
    pytest.importorskip("matplotlib")
    _, _, out, _, _ = tiny_run
    written = hdbench_report.plot([str(out)], str(tmp_path / "fig"))
    # Figures are split by what is constant in them (here also the optimizer).
    assert any(p.name.startswith(f"mlp--variant-step_model-{MODEL}") and p.suffix == ".png" for p in written), written


def test_gpu_without_cuda_gives_skipped_entries_not_a_crash(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here: the GPU benchmarks would run")
    out = tmp_path / "gpu.json"
    result = run_baseline("--families", "mlp", "--processors", "gpu", "--models", MODEL, "--batches", "4",
                          "--dtypes", "fp32,tf32",
                          "--optimizers", "adam", "--modes", "eager,graph,compile", "--min-time", "0", "--out", out)
    assert result.returncode == 0, result.stderr
    report = json.loads(out.read_text())
    assert len(report["benchmarks"]) == 2 + 2 * 3 * 3  # two GEMMs; dtypes x modes x data
    assert all(b["status"] == "skipped" and b["skip_reason"] for b in report["benchmarks"])


def test_compile_is_skipped_with_the_reason_before_pytorch_2(tmp_path):
    torch = pytest.importorskip("torch")
    if hasattr(torch, "compile"):
        pytest.skip("this PyTorch has torch.compile")
    out = tmp_path / "compile.json"
    result = run_baseline("--families", "mlp", "--processors", "cpu", "--models", "784x4x10", "--batches", "4",
                          "--optimizers", "sgd", "--modes", "compile", "--threads", "1", "--min-time", "0",
                          "--min-samples", "1", "--warmup", "0", "--out", out)
    assert result.returncode == 0, result.stderr
    step = [b for b in json.loads(out.read_text())["benchmarks"] if b["params"]["variant"] == "step"]
    assert len(step) == 1 and step[0]["status"] == "skipped" and "PyTorch 2.0" in step[0]["skip_reason"]


def test_report_tool_labels_mlp_lines_by_implementation(tmp_path):
    """Synthetic report (made up here, not measured): hdbench's step and PyTorch's, same
    grid point, drawn as two lines named after their implementation."""
    pytest.importorskip("matplotlib")
    def step(name, implementation, batch, rate):
        params = {"family": "mlp", "variant": "step", "implementation": implementation, "processor": "gpu",
                  "model": "784x32x10", "dtype": "fp32", "optimizer": "sgd", "mode": "eager", "data": "device",
                  "batch": batch, "device": 0}
        return {"name": name, "run_type": "iteration", "status": "ok", "params": params,
                "counters": {"samples/s": rate, "step_us": batch / rate * 1e6}}
    gemm = {"name": "g", "run_type": "iteration", "status": "ok", "counters": {"TFLOP/s": 50.0},
            "params": {"family": "mlp", "variant": "gemm", "implementation": "hdbench", "processor": "gpu",
                       "dtype": "fp32", "m": 8192, "n": 8192, "k": 8192}}
    report = {"context": {"host_name": "synthetic", "hdbench": {"started_at": "2026-11-20", "system": {"gpus": []}}},
              "benchmarks": [step("a", "hdbench", 32, 1e5), step("b", "hdbench", 128, 3e5), gemm,
                             step("c", "pytorch", 32, 5e4), step("d", "pytorch", 128, 2e5)]}
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(report))
    written = hdbench_report.plot([str(path)], str(tmp_path / "fig"))
    svg = tmp_path / "fig" / "mlp--variant-step_model-784x32x10.svg"
    assert svg in written
    # matplotlib keeps each text of an SVG as a comment: the legend's entries are among them.
    texts = re.findall(r"<!-- (.*?) -->", svg.read_text())
    assert "hdbench" in texts and "PyTorch" in texts


def test_the_steps_start_from_hdbench_s_network_and_samples(tiny_run, hdbench_bin, tmp_path):
    """hdbench's CPU step at the same seed, model and batches: the first step's loss
    (before any update: same parameters, same samples, same loss) agrees to float
    rounding, so the two train the same network on the same data."""
    _, _, _, report, _ = tiny_run
    out = tmp_path / "hdbench.json"
    result = run_hdbench(hdbench_bin, "--hdbench_families=mlp", "--hdbench_mlp_processors=cpu",
                         f"--hdbench_mlp_models={MODEL}", f"--hdbench_mlp_batches={','.join(map(str, BATCHES))}",
                         "--hdbench_mlp_threads=1", "--hdbench_mlp_optimizers=sgd,adam", f"--hdbench_seed={SEED}",
                         # the synthetic set the baseline reproduces (hdbench's default is Fashion-MNIST)
                         "--hdbench_loader_samples=60000",
                         "--benchmark_filter=^mlp/step/", "--benchmark_min_time=0.001", f"--hdbench_out={out}",
                         timeout=120)
    assert result.returncode == 0, result.stderr
    hdbench = {b["name"]: b for b in json.loads(out.read_text())["benchmarks"] if b["params"]["variant"] == "step"}
    ours = {b["name"]: b for b in report["benchmarks"]
            if b["params"]["variant"] == "step" and b["params"]["processor"] == "cpu"}
    assert hdbench.keys() == ours.keys() and len(ours) == 2 * len(BATCHES)
    for name, b in ours.items():
        assert b["counters"]["first_loss"] == pytest.approx(hdbench[name]["counters"]["first_loss"], rel=1e-5), name


def test_a_diverging_benchmark_fails_alone_and_the_report_is_written(tmp_path):
    """SGD at a learning rate of 1e6 (a test-only flag) drives the loss to nan: that step
    is an error with the reason, Adam's step and the loader still run, the report is
    written, and the exit code says a benchmark failed."""
    pytest.importorskip("torch")
    out = tmp_path / "diverged.json"
    result = run_baseline("--families", "mlp,loader", "--processors", "cpu", "--models", MODEL, "--batches", "8",
                          "--optimizers", "sgd,adam", "--threads", "1", "--min-time", "0", "--min-samples", "1",
                          "--warmup", "0", "--test-sgd-lr", "1e6", "--loader-batches", "16", "--loader-workers", "0",
                          "--loader-consumers", "host", "--loader-samples", "40", "--loader-min-epochs", "1",
                          "--out", out)
    assert result.returncode == 1, result.stdout + result.stderr
    report = json.loads(out.read_text())  # strict JSON: no NaN written
    by_kind = {(b["params"]["family"], b["params"].get("optimizer")): b for b in report["benchmarks"]}
    sgd = by_kind[("mlp", "sgd")]
    assert sgd["status"] == "error" and sgd["error_occurred"] is True
    assert sgd["error_message"].startswith("the loss is not finite (first ") and "last nan" in sgd["error_message"]
    assert sgd["counters"] == {} and "final_loss" not in sgd
    assert by_kind[("mlp", "adam")]["status"] == "ok"
    assert by_kind[("loader", None)]["status"] == "ok"
    assert all(b["status"] == "ok" for b in report["benchmarks"] if b is not sgd)
    assert report["context"]["hdbench"]["options"]["sgd_learning_rate"] == 1e6
    assert any("--test-sgd-lr" in n for n in report["context"]["hdbench"]["notes"])
    assert "1 errors" in result.stdout and "error: the loss is not finite" in result.stdout


# ---- with a CUDA device (the GPU machine's checks) -------------------------------------


def cuda_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no usable CUDA device")
    return torch


def test_every_gpu_step_kind_runs_and_trains(tmp_path):
    cuda_torch()
    out = tmp_path / "gpu.json"
    result = run_baseline("--families", "mlp", "--processors", "gpu", "--models", "784x64x10", "--batches", "8,256",
                          "--dtypes", "fp32,tf32,bf16", "--optimizers", "sgd,adam", "--modes", "eager,graph",
                          "--data", "device,pageable,pinned", "--min-time", "0.001", "--warmup", "1", "--out", out)
    report = json.loads(out.read_text())
    problems = [f"{b['name']}: {b.get('skip_reason') or b.get('error_message')}"
                for b in report["benchmarks"] if b["status"] != "ok"]
    assert result.returncode == 0 and not problems, "\n".join(problems) + result.stderr
    steps = [b for b in report["benchmarks"] if b["params"]["variant"] == "step"]
    assert len(steps) == 3 * 2 * 2 * 3 * 2
    for b in steps:
        c = b["counters"]
        assert STEP_COUNTERS <= c.keys() and b["params"]["device"] == 0
        assert math.isfinite(c["final_loss"]) and math.isfinite(c["first_loss"])
        if b["params"]["mode"] == "graph":
            assert "graph_build_us" in c and any(n.startswith("graph:") for n in b["notes"])
    gpus = report["context"]["hdbench"]["system"]["gpus"]
    assert gpus and gpus[0]["name"] and report["context"]["hdbench"]["cuda_version"]


def test_compile_mode_runs_on_the_gpu(tmp_path):
    torch = cuda_torch()
    if not hasattr(torch, "compile"):
        pytest.skip("this PyTorch has no torch.compile")
    out = tmp_path / "compile.json"
    result = run_baseline("--families", "mlp", "--processors", "gpu", "--models", "784x64x10", "--batches", "64",
                          "--dtypes", "fp32,bf16",
                          "--optimizers", "adam", "--modes", "compile", "--data", "device", "--min-time", "0.001",
                          "--out", out)
    steps = [b for b in json.loads(out.read_text())["benchmarks"] if b["params"]["variant"] == "step"]
    assert result.returncode == 0, result.stderr + "".join(b.get("error_message", "") for b in steps)
    assert len(steps) == 2 and all(b["status"] == "ok" and "compile_s" in b["counters"] for b in steps)


class FakeEvent:
    """A profiler FunctionEvent's fields that pytorch_phases reads."""

    def __init__(self, name, parent=None, shapes=(), cpu_us=0.0, device_us=0.0, device_type="DeviceType.CPU"):
        self.name, self.cpu_parent, self.input_shapes = name, parent, list(shapes)
        self.self_cpu_time_total, self.self_device_time_total, self.device_type = cpu_us, device_us, device_type
        self.cpu_children, self.id = [], id(self)
        if parent is not None:
            parent.cpu_children.append(self)


def test_kernel_time_is_charged_by_phase_with_the_backward_off_the_calling_thread():
    """A CUDA step as the profiler shows it (made up, hand-worked): the backward's ops sit under their autograd
    nodes on the engine's thread, outside the named region; kernels' own records are not counted twice."""
    pytest.importorskip("torch")
    import pytorch_phases as ph
    forward = FakeEvent("hdbench::forward")
    addmm = FakeEvent("aten::addmm", forward, [[32], [128, 784], [784, 32]], device_us=10.0)
    FakeEvent("aten::relu", forward, device_us=2.0)
    FakeEvent("void gemm_kernel<...>", addmm, device_us=10.0, device_type="DeviceType.CUDA")
    loss = FakeEvent("hdbench::loss")
    FakeEvent("aten::log_softmax", loss, device_us=3.0)
    node = FakeEvent("autograd::engine::evaluate_function: AddmmBackward0")  # no region above it
    FakeEvent("aten::mm", node, [[128, 10], [10, 32]], device_us=4.0)        # input gradient
    FakeEvent("aten::mm", node, [[10, 128], [128, 32]], device_us=6.0)       # weight gradient
    FakeEvent("aten::sum", node, device_us=1.0)
    loss_node = FakeEvent("autograd::engine::evaluate_function: NllLossBackward0")
    FakeEvent("aten::nll_loss_backward", loss_node, device_us=0.5)
    optimizer = FakeEvent("hdbench::optimizer")
    FakeEvent("aten::_foreach_add_", optimizer, device_us=7.0)
    events = []

    def walk(e):
        events.append(e)
        for c in e.cpu_children:
            walk(c)
    for root in (forward, loss, node, loss_node, optimizer):
        walk(root)
    totals = ph.charge(events, 128, device=True)
    assert totals == {"forward_gemm": 10.0, "forward_elementwise": 2.0, "loss": 3.5, "backward_input_gemm": 4.0,
                      "backward_elementwise": 1.0, "weight_gradient_gemm": 6.0, "optimizer": 7.0}
