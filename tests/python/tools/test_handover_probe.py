"""tools/handover_probe.py, the probe hdbench_profile prices the input-pipeline fix with: its
usage errors, its answer when PyTorch is missing, and a real (CPU) run where a Python here
imports PyTorch. Its figures are timings, so only their form is checked, never their size."""

from __future__ import annotations

import importlib.util
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from profile_fixtures import KERNEL_MEASURE

PROBE = Path(__file__).resolve().parents[3] / "tools" / "handover_probe.py"


def run(python: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([python, str(PROBE), *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("args, message", [
    ([], "the following arguments are required: --tensor-bytes"),
    (["--tensor-bytes", "x"], "--tensor-bytes=x: give whole numbers of bytes"),
    (["--tensor-bytes", "0"], "each between 1 and"),
    (["--tensor-bytes", "1024", "--batches", "3"], "--batches=3: between 10 and 100000"),
    (["--tensor-bytes", "1024", "--workers", "0"], "--workers=0: between 1 and 64"),
    (["--tensor-bytes", "1024", "--start-workers", "65"], "--start-workers=65: between 1 and 64"),
    (["--tensor-bytes", "1024", "--footprint-bytes", "-1"], "--footprint-bytes=-1: 0 or more"),
    (["--tensor-bytes", "1024,100", "--rows", "8"], "--rows=8: each tensor (1024,100 bytes) must be a whole number"),
    (["--tensor-bytes", "1024", "--rows", "0"], "--rows=0"),
])
def test_bad_arguments_exit_2_and_say_which(args, message):
    result = run(sys.executable, *args)
    assert result.returncode == 2 and message in result.stderr and result.stdout == ""


def test_without_pytorch_it_exits_1_and_says_so(tmp_path):
    # This Python with `torch` made unimportable.
    shim = tmp_path / "no_torch.py"
    shim.write_text(f"import runpy, sys\nsys.modules['torch'] = None\nsys.argv = [{str(PROBE)!r}, *sys.argv[1:]]\n"
                    f"runpy.run_path({str(PROBE)!r}, run_name='__main__')\n")
    result = subprocess.run([sys.executable, str(shim), "--tensor-bytes", "1024"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1 and result.stdout == ""
    assert "handover_probe.py: PyTorch cannot be imported by" in result.stderr


def test_a_worker_killed_while_it_measures_exits_3_with_the_reason_last(tmp_path):
    """As a DataLoader worker dies when /dev/shm cannot hold its batch (Docker's 64 MiB):
    one line that hdbench_profile keeps as why nothing was measured, never a traceback."""
    shim = tmp_path / "dying_torch.py"
    shim.write_text(
        "import runpy, sys, types\n"
        "class Dying(types.ModuleType):\n"
        "    def __getattr__(self, name):\n"
        "        raise RuntimeError('DataLoader worker (pid 7) is killed by signal: Bus error.\\n')\n"
        "sys.modules['torch'] = Dying('torch')\n"
        f"sys.argv = [{str(PROBE)!r}, *sys.argv[1:]]\n"
        f"runpy.run_path({str(PROBE)!r}, run_name='__main__')\n")
    result = subprocess.run([sys.executable, str(shim), "--tensor-bytes", "16777216"], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 3 and result.stdout == "" and "Traceback" not in result.stderr, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("handover_probe.py: nothing measured: DataLoader worker (pid 7) is killed by signal")
    assert "batches of 16.8 MB pass through /dev/shm" in last


def python_with_torch() -> str | None:
    for python in dict.fromkeys([sys.executable, shutil.which("python3"), "/usr/bin/python3"]):
        if python and subprocess.run([python, "-c", "import torch.utils.data"], capture_output=True).returncode == 0:
            return python
    return None


def test_a_real_run_measures_each_batch_shape():
    python = python_with_torch()
    if python is None:
        pytest.skip("no Python here imports PyTorch")
    result = run(python, "--tensor-bytes", "65536,1024", "--batches", "10", "--start-workers", "3",
                 "--footprint-bytes", str(300 << 20))
    assert result.returncode == 0, result.stderr
    m = json.loads(result.stdout)
    assert m["tensor_bytes"] == [65536, 1024] and m["batches"] == 10 and m["workers"] == 2
    assert m["batch_s"] > 0 and m["packed_batch_s"] > 0 and m["torch"]
    assert m["batch_take_s"] > 0  # taking alone: measured, kept beside batch_s (two loaders: no order held)
    assert m["workers_start_s"] > 0 and m["start_workers"] == 3  # starting three workers, to the first batch
    assert m["footprint_bytes"] >= 300 << 20  # holding as much anonymous memory as asked, while it did
    assert m["footprint_measure"] == KERNEL_MEASURE  # what this kernel says (gVisor's: VmRSS)
    # a batch gathered whole: 256 rows (the 1024-byte tensor's 4-byte values) of 256 + 4 bytes
    assert m["gather_batch_s"] > 0 and m["rows"] == 256
    import_cuda = subprocess.run([python, "-c", "import torch; print(torch.cuda.is_available())"],
                                 capture_output=True, text=True)
    if import_cuda.stdout.strip() == "True":
        assert m["pinned_batch_s"] > 0 and m["pinned_not_measured"] == "" and m["pin_thread_batch_s"] >= 0
        assert m["packed_pin_thread_batch_s"] >= 0 and m["pin_cycle_batch_s"] > 0 and m["pin_here_batch_s"] > 0
        assert m["packed_pin_cycle_batch_s"] > 0
        assert m["graph_replay_batch_s"] > 0 and m["graph_kernels"] == 25  # a copy and a replay of 25 kernels
    else:
        assert m["pinned_batch_s"] is None and "CUDA is not available" in m["pinned_not_measured"]
        assert m["pin_thread_batch_s"] is None and m["packed_pin_thread_batch_s"] is None
        assert m["pin_cycle_batch_s"] is None and m["pin_here_batch_s"] is None
        assert m["packed_pin_cycle_batch_s"] is None
        assert m["graph_replay_batch_s"] is None and m["graph_kernels"] == 25


def test_a_batchs_rows_default_to_its_smallest_tensors_values():
    probe = load_probe()
    assert probe.default_rows([802816, 2048, 1024]) == 256  # images, int64 labels, float weights: batch 256
    assert probe.default_rows([802816, 1024]) == 256
    assert probe.default_rows([804864]) == 192  # one tensor: rows of about 4 KiB that divide it (4192 B)
    assert probe.default_rows([100, 6]) == 1  # 6 B cannot be 4-byte values: one row of the smallest
    assert probe.default_rows([1000]) == 1


def load_probe():
    spec = importlib.util.spec_from_file_location("handover_probe", PROBE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_slowdown_is_the_median_of_the_work_right_after_taking_less_the_work_again():
    """slowdown_s on scripted times: each batch, the work right after taking (the other thread
    busy) less the same work again (it idle), the median over the batches. Whether a pin
    thread's GIL-holding work shows that way is a measurement, the probe's on real runs (this
    test once ordered two such times, GIL held and asleep, and a busy CI machine inverted them)."""
    probe = load_probe()
    busy_ms = iter([5.0, 4.0, 9.0, 5.0, 6.0])
    calls = {"take": 0, "work": 0, "taken": False}

    def take_next():
        calls["take"] += 1
        calls["taken"] = True

    def work() -> float:
        calls["work"] += 1
        busy, calls["taken"] = calls["taken"], False
        return (next(busy_ms) if busy else 1.0) * 1e-3

    assert probe.slowdown_s(take_next, work, 5) == pytest.approx(4e-3)  # median of 4, 3, 8, 4, 5 ms
    assert calls["take"] == 5 and calls["work"] == 10


def test_a_standard_output_that_cannot_be_written_exits_2_in_one_line(tmp_path):
    """`>/dev/full` gave a traceback and exit 1. The probe's figures here are made up (a
    stand-in for probe(), PyTorch's import a module of nothing): only the printing is tried."""
    shim = tmp_path / "measured.py"
    shim.write_text("import importlib.util, sys, types\n"
                    "sys.modules['torch'] = types.ModuleType('torch')\n"
                    f"spec = importlib.util.spec_from_file_location('handover_probe', {str(PROBE)!r})\n"
                    "probe = importlib.util.module_from_spec(spec)\n"
                    "spec.loader.exec_module(probe)\n"
                    "probe.probe = lambda *args: {'batch_s': 0.001}\n"
                    "sys.exit(probe.main(sys.argv[1:]))\n")
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, str(shim), "--tensor-bytes", "1024"], stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr == (
        "handover_probe.py: cannot write the measurement: No space left on device\n"), result.stderr


@pytest.mark.parametrize("wrapped", [False, True], ids=["KeyboardInterrupt", "in PyTorch's C++"])
def test_sigint_while_it_measures_exits_130_in_one_line(tmp_path, wrapped):
    """Ctrl-C gave a KeyboardInterrupt traceback; inside PyTorch's C++ (its import, its
    DataLoader) the KeyboardInterrupt comes back as a RuntimeError, which read as PyTorch
    failing (exit 3). A stand-in torch waits where the probe first looks into it (its import)."""
    ready = tmp_path / "ready"
    shim = tmp_path / "waiting_torch.py"
    shim.write_text(
        "import runpy, sys, time, types\n"
        "class Waiting(types.ModuleType):\n"
        "    def __getattr__(self, name):\n"
        f"        open({str(ready)!r}, 'w').close()\n"
        "        try:\n"
        "            time.sleep(120)\n"
        "        except KeyboardInterrupt:\n"
        f"            if {wrapped!r}:\n"
        "                raise RuntimeError('KeyboardInterrupt: <EMPTY MESSAGE>')\n"
        "            raise\n"
        "        raise AttributeError(name)\n"
        "sys.modules['torch'] = Waiting('torch')\n"
        f"sys.argv = [{str(PROBE)!r}, *sys.argv[1:]]\n"
        f"runpy.run_path({str(PROBE)!r}, run_name='__main__')\n")
    probe = subprocess.Popen([sys.executable, str(shim), "--tensor-bytes", "1024"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60  # generous: only a broken probe takes this long
        while not ready.exists():
            assert probe.poll() is None and time.monotonic() < deadline, probe.stderr.read() if probe.stderr else ""
            time.sleep(0.05)
        probe.send_signal(signal.SIGINT)
        out, err = probe.communicate(timeout=60)
    finally:
        if probe.poll() is None:
            probe.kill()
    assert probe.returncode == 130 and out == "", err
    assert err == "handover_probe.py: interrupted (SIGINT): nothing measured\n"
