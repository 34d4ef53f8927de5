"""The streamed Chrome trace on disk, checked against the Chrome Trace Event format's
required fields (Perfetto's trace processor cannot be installed here: its Python
package downloads a binary): plain and gzipped, whole after Ctrl-C, and the trace
flags' bad values. The traces come from hdbench_trace_bench, which feeds synthetic
records through the real writer, budget and analysis; it needs no GPU."""

from __future__ import annotations

import gzip
import re
import json
import signal
import subprocess
import time
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import run_hdbench

METADATA_NAMES = {"process_name", "process_sort_index", "thread_name", "thread_sort_index"}


@pytest.fixture(scope="session")
def trace_bench(hdbench_bin) -> Path:
    path = Path(hdbench_bin).parent / "hdbench_trace_bench"
    if not path.exists():
        pytest.skip(f"{path} is not built")
    return path


def load(path: Path) -> dict:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def check_chrome_trace(trace: dict) -> list[dict]:
    """The JSON Object Format: traceEvents, each event with its required fields; complete
    events nest on their track; every track and process is named. Returns the X events."""
    assert isinstance(trace["traceEvents"], list)
    assert trace.get("displayTimeUnit", "ms") in ("ms", "ns")
    complete, named_threads, named_processes = [], set(), set()
    for e in trace["traceEvents"]:
        assert isinstance(e["ph"], str) and isinstance(e["name"], str), e
        assert isinstance(e["pid"], int), e
        if e["ph"] == "X":
            assert isinstance(e["tid"], int), e
            assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
            assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
            assert isinstance(e.get("cat", ""), str) and isinstance(e.get("args", {}), dict), e
            complete.append(e)
        else:
            assert e["ph"] == "M" and e["name"] in METADATA_NAMES, e
            assert isinstance(e["args"], dict), e
            if e["name"] == "thread_name":
                named_threads.add((e["pid"], e["tid"]))
            if e["name"] == "process_name":
                named_processes.add(e["pid"])
    tracks = defaultdict(list)
    for e in complete:
        tracks[(e["pid"], e["tid"])].append((round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)))
    assert set(tracks) <= named_threads and {pid for pid, _ in tracks} <= named_processes
    for key, spans in tracks.items():  # Perfetto drops X events that overlap without nesting
        spans.sort(key=lambda s: (s[0], -s[1]))
        open_ends = []
        for start, end in spans:
            while open_ends and open_ends[-1] <= start:
                open_ends.pop()
            assert not open_ends or end <= open_ends[-1], (key, start, end)
            open_ends.append(end)
    return complete


def run_bench(trace_bench: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([str(trace_bench), f"--out={out}", *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr + result.stdout
    return result


@pytest.mark.parametrize("name", ["trace.json", "trace.json.gz"])
def test_streamed_trace_has_the_required_fields(trace_bench, tmp_path, name):
    out = tmp_path / name
    run_bench(trace_bench, out, "--records=20000", "--spans=40", "--benchmarks=4")
    if name.endswith(".gz"):
        assert out.read_bytes()[:2] == b"\x1f\x8b"  # gzip, as Perfetto and chrome://tracing read it
    trace = load(out)
    events = check_chrome_trace(trace)
    assert len(events) == 20000 + 40
    assert {e["cat"] for e in events} == {"gpu_memcpy", "kernel", "user_annotation"}  # Kineto's categories
    assert all(e["args"]["bytes"] > 0 and e["args"]["memory bandwidth (GB/s)"] > 0
               for e in events if e["cat"] == "gpu_memcpy")
    assert trace["otherData"]["records"] == 20040 and trace["otherData"]["records_dropped_over_budget"] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no temp file left


def test_budget_keeps_a_sample_and_the_trace_says_so(trace_bench, tmp_path):
    out = tmp_path / "trace.json"
    result = run_bench(trace_bench, out, "--records=20000", "--spans=40", "--benchmarks=4", "--budget=1000")
    trace = load(out)
    events = check_chrome_trace(trace)
    other = trace["otherData"]
    assert other["budget_per_benchmark"] == 1000
    assert other["records_dropped_over_budget"] > 0
    assert len(events) + other["records_dropped_over_budget"] == 20040
    assert len(events) <= 4 * 1000 + 4 * 10  # the budget, plus stragglers that started before each cut
    assert "4 benchmarks analysed (4 rows)" in result.stdout  # each analysed once its window closed
    row = json.loads(result.stdout.split("first row: ", 1)[1])
    assert row["sampled"] is True and row["records_dropped"] > 0 and "record budget" in row["sample"]


def test_interrupted_trace_is_whole_or_absent(trace_bench, tmp_path):
    out = tmp_path / "trace.json.gz"
    proc = subprocess.Popen([str(trace_bench), f"--out={out}", "--records=200000000", "--spans=3000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stdout
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names in ([], ["trace.json.gz"]), names  # never a torn file or a temp left behind
    if names:
        events = check_chrome_trace(load(out))
        assert 0 < len(events) < 200000000


@pytest.mark.parametrize("value", ["0", "many", "-3", ""])
def test_bad_trace_budget_exits_2(hdbench_bin, tmp_path, value):
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, f"--hdbench_trace_budget={value}", f"--hdbench_out={out}", timeout=60)
    assert result.returncode == 2, result.stderr
    assert "--hdbench_trace_budget" in result.stderr
    assert not out.exists()


def test_unwritable_trace_path_exits_2_before_anything_runs(hdbench_bin, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, "--hdbench_families=host_memcpy", "--hdbench_sizes=4K",
                         f"--hdbench_trace={blocker / 'trace.json'}", f"--hdbench_out={out}", timeout=60)
    assert result.returncode == 2, result.stderr
    assert "--hdbench_trace" in result.stderr
    assert "benchmarks ran" not in result.stdout and not out.exists()


KINETO_MEMORY = {"Pageable", "Pinned", "Device", "Array", "Managed", "Unknown"}


def test_the_trace_speaks_kinetos_format(trace_bench, tmp_path):
    """What the PyTorch profiler (Kineto) writes and its readers (Holistic Trace Analysis)
    look for: a rank in distributedInfo, GPU events under gpu_memcpy / gpu_memset / kernel
    with device, stream and correlation in their args, copies named
    "Memcpy <kind> (<src> -> <dst>)" with bytes and "memory bandwidth (GB/s)"."""
    out = tmp_path / "rank-0.json"
    run_bench(trace_bench, out, "--records=2000", "--spans=10", "--benchmarks=2")
    trace = load(out)
    assert trace["distributedInfo"] == {"rank": 0}
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    gpu = [e for e in events if e["cat"] in ("gpu_memcpy", "gpu_memset", "kernel")]
    assert gpu and all({"device", "stream"} <= e["args"].keys() for e in gpu)
    copies = [e for e in events if e["cat"] == "gpu_memcpy"]
    assert copies
    for e in copies:
        m = re.fullmatch(r"Memcpy (HtoD|DtoH|DtoD|HtoH|PtoP) \((\w+) -> (\w+)\)", e["name"])
        assert m and {m.group(2), m.group(3)} <= KINETO_MEMORY, e["name"]
        assert e["args"]["bytes"] > 0 and e["args"]["memory bandwidth (GB/s)"] > 0


def test_holistic_trace_analysis_reads_the_trace(trace_bench, tmp_path):
    hta = pytest.importorskip("hta.trace_analysis", reason="Holistic Trace Analysis is not installed here "
                              "(pip install HolisticTraceAnalysis to run this check)")
    run_bench(trace_bench, tmp_path / "rank-0.json", "--records=2000", "--spans=10", "--benchmarks=2")
    analysis = hta.TraceAnalysis(trace_dir=str(tmp_path))
    kernels = analysis.get_gpu_kernel_breakdown(visualize=False)[0].set_index("kernel_type")["sum"]
    # HTA sorts the copies as memory and the kernels as computation: it read both kinds.
    assert kernels["MEMORY"] > 0 and kernels["COMPUTATION"] > 0
