"""The hdbench binary's input and output where they are not what a run expects: a console
reader that goes away, a closed terminal, closed standard streams, names the file system
cannot hold, loops of links, a report path inside the dataset it reads, a pipe named as a
dataset file, Google Benchmark's flags hdbench cannot honour. Each was found by a hostile
review (2026-11-29): the report was lost, a file replaced, the run hung or aborted."""

from __future__ import annotations

import gzip
import json
import os
import signal
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import run_hdbench

# One host copy: a second's run, no GPU needed.
TINY = ["--hdbench_families=host_memcpy", "--hdbench_sizes=4K", "--hdbench_memcpy_threads=1", "--hdbench_preset=quick"]


def report_of(path: Path) -> dict:
    report = json.loads(path.read_text())
    assert report["benchmarks"] and all(b["status"] == "ok" for b in report["benchmarks"])
    return report


def test_a_console_reader_that_goes_away_loses_no_report(hdbench_bin, tmp_path):
    """`hdbench ... | head -c1`: SIGPIPE at the next console line killed the run (141), no report."""
    out = tmp_path / "r.json"
    result = subprocess.run(f"'{hdbench_bin}' {' '.join(TINY)} --hdbench_out='{out}' | head -c1",
                            shell=True, capture_output=True, timeout=120, executable="/bin/bash")
    assert result.returncode == 0
    report_of(out)


def test_closed_standard_streams_keep_the_report_whole(hdbench_bin, tmp_path):
    """With stdout closed the report's temp file took descriptor 1, where a console line could land."""
    out = tmp_path / "r.json"
    result = subprocess.run(["sh", "-c", 'exec "$@" <&- >&- 2>&-', "sh", str(hdbench_bin), *TINY,
                             f"--hdbench_out={out}"], timeout=120)
    assert result.returncode == 0
    report_of(out)


def test_a_closed_terminal_winds_down_and_writes_the_report(hdbench_bin, tmp_path):
    """SIGHUP (an ssh session closed) killed the run, a temp file left; now it is handled as SIGINT is."""
    out = tmp_path / "report.json"
    proc = subprocess.Popen([str(hdbench_bin), "--hdbench_families=host_memcpy", "--hdbench_sizes=4K:64M:x4",
                             "--benchmark_min_time=2", f"--hdbench_out={out}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while "host_memcpy/threads" not in proc.stdout.readline():  # a benchmark has finished
        assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGHUP)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGHUP, stderr
    assert any(b["status"] == "ok" for b in json.loads(out.read_text())["benchmarks"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_name_near_the_file_systems_limit_is_written(hdbench_bin, tmp_path):
    """250 characters are a legal name; its temp file's name (".NAME.tmp-PID") was not, after the run."""
    out = tmp_path / ("b" * 245 + ".json")
    result = run_hdbench(hdbench_bin, *TINY, f"--hdbench_out={out}", timeout=120)
    assert result.returncode == 0, result.stderr
    report_of(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


@pytest.mark.parametrize("name, said", [("b" * 300 + ".json", "longer than the 255 its folder takes"),
                                        ("x.json/", "ends in '/', a folder")])
def test_a_name_that_cannot_be_written_is_refused_before_the_run(hdbench_bin, tmp_path, name, said):
    result = run_hdbench(hdbench_bin, *TINY, f"--hdbench_out={tmp_path}/{name}", timeout=60)
    assert result.returncode == 2 and said in result.stderr, result.stderr
    assert "benchmarks ran" not in result.stdout and not list(tmp_path.iterdir())


def test_a_loop_of_links_is_refused_and_left_as_it_is(hdbench_bin, tmp_path):
    """The first link of a loop was replaced by the report."""
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    result = run_hdbench(hdbench_bin, *TINY, f"--hdbench_out={tmp_path / 'a'}", timeout=60)
    assert result.returncode == 2 and "too many levels of symbolic links" in result.stderr, result.stderr
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()


def test_a_trace_linking_to_the_report_is_refused(hdbench_bin, tmp_path):
    (tmp_path / "trace.json").symlink_to(tmp_path / "r.json")  # the report is not there yet
    result = run_hdbench(hdbench_bin, *TINY, f"--hdbench_out={tmp_path / 'r.json'}",
                         f"--hdbench_trace={tmp_path / 'trace.json'}", timeout=60)
    assert result.returncode == 2 and "is the report's path too" in result.stderr, result.stderr


def tiny_idx_set(folder: Path, count: int = 40) -> None:
    images = bytes((i * 13 + j) % 256 for i in range(count) for j in range(784))
    (folder / "train-images-idx3-ubyte.gz").write_bytes(
        gzip.compress(struct.pack(">IIII", 0x803, count, 28, 28) + images))
    (folder / "train-labels-idx1-ubyte.gz").write_bytes(
        gzip.compress(struct.pack(">II", 0x801, count) + bytes(i % 10 for i in range(count))))


LOADER = ["--hdbench_families=loader", "--hdbench_loader_consumers=host", "--hdbench_loader_batches=32",
          "--hdbench_loader_workers=0", "--hdbench_loader_costs_us=0", "--hdbench_loader_pinning=pageable",
          "--hdbench_preset=quick"]


def test_a_report_named_as_a_file_of_the_dataset_it_reads_is_refused(hdbench_bin, tmp_path):
    """`--hdbench_out` naming the labels file replaced it with the report, exit 0. A file the set
    lacks (t10k-*, or the other of plain and .gz) would be read as part of it next time."""
    tiny_idx_set(tmp_path)
    (tmp_path / "link.json").symlink_to(tmp_path / "train-labels-idx1-ubyte.gz")
    kept = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for target in ("train-labels-idx1-ubyte.gz", "link.json", "t10k-images-idx3-ubyte", "train-images-idx3-ubyte"):
        result = run_hdbench(hdbench_bin, *LOADER, f"--hdbench_mnist_dir={tmp_path}",
                             f"--hdbench_out={tmp_path / target}", timeout=60)
        assert result.returncode == 2 and "is a file of the dataset the run reads" in result.stderr, result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == kept
    result = run_hdbench(hdbench_bin, *LOADER, f"--hdbench_mnist_dir={tmp_path}",
                         f"--hdbench_out={tmp_path / 'report.json'}", timeout=120)
    assert result.returncode == 0, result.stderr  # beside the set is a place like any other


def test_a_pipe_named_as_a_dataset_file_is_refused_not_waited_on(hdbench_bin, tmp_path):
    """fopen on a FIFO waited for a writer for ever, before any deadline applies."""
    tiny_idx_set(tmp_path)
    (tmp_path / "train-images-idx3-ubyte.gz").unlink()
    os.mkfifo(tmp_path / "train-images-idx3-ubyte")
    result = run_hdbench(hdbench_bin, *LOADER, f"--hdbench_mnist_dir={tmp_path}",
                         f"--hdbench_out={tmp_path.parent / (tmp_path.name + '-r.json')}", timeout=60)
    assert result.returncode == 2 and "not a regular file" in result.stderr, result.stderr


@pytest.mark.parametrize("flag, said", [
    ("--benchmark_repetitions=3", "repetitions need Google Benchmark's fixed iterations"),
    ("--benchmark_format=json", "accepted: console (the JSON report is --hdbench_out=FILE)"),
    ("--benchmark_format=csv", "accepted: console"),
])
def test_google_benchmark_flags_hdbench_cannot_honour_are_bad_usage(hdbench_bin, tmp_path, flag, said):
    """Repetitions under the stopping rule aborted in Google Benchmark's statistics (SIGABRT, no
    report); json and csv were taken and the console table printed all the same."""
    result = run_hdbench(hdbench_bin, *TINY, flag, f"--hdbench_out={tmp_path / 'r.json'}", timeout=60)
    assert result.returncode == 2 and said in result.stderr, result.stderr
    assert not list(tmp_path.iterdir())


def test_repetitions_run_with_googles_fixed_iterations(hdbench_bin, tmp_path):
    out = tmp_path / "r.json"
    result = run_hdbench(hdbench_bin, *TINY, "--benchmark_repetitions=2", "--hdbench_noise_target=0",
                         "--benchmark_min_time=0.01", f"--hdbench_out={out}", timeout=120)
    assert result.returncode == 0, result.stderr
    assert {b["run_type"] for b in json.loads(out.read_text())["benchmarks"]} == {"iteration", "aggregate"}


def test_the_console_is_coloured_only_on_a_terminal_or_when_asked(hdbench_bin, tmp_path):
    piped = run_hdbench(hdbench_bin, *TINY, f"--hdbench_out={tmp_path / 'a.json'}", timeout=120)
    asked = run_hdbench(hdbench_bin, *TINY, "--benchmark_color=true", f"--hdbench_out={tmp_path / 'b.json'}",
                        timeout=120)
    assert piped.returncode == asked.returncode == 0
    assert "\x1b[" not in piped.stdout and "\x1b[" in asked.stdout


@pytest.mark.parametrize("listing", ["--hdbench_list_cases=-", "--benchmark_list_tests"])
def test_a_listing_lost_to_a_full_standard_output_is_an_error(hdbench_bin, listing):
    """A small listing sat in stdio's buffer: `> /dev/full` lost it and exited 0."""
    with open("/dev/full", "w") as full:
        result = subprocess.run([str(hdbench_bin), *TINY, listing], stdout=full, stderr=subprocess.PIPE, text=True,
                                timeout=60)
    assert result.returncode == 1 and "cannot write" in result.stderr and "standard output" in result.stderr, \
        result.stderr


def test_a_dataset_file_larger_than_any_idx_set_is_refused_before_it_is_read(hdbench_bin, tmp_path):
    """A 1 TB file ended in std::bad_alloc, exit 1; one under the memory would be read whole."""
    tiny_idx_set(tmp_path)
    (tmp_path / "train-images-idx3-ubyte.gz").unlink()
    with open(tmp_path / "train-images-idx3-ubyte", "wb") as f:
        f.truncate(9 << 30)  # sparse: no disk taken
    result = run_hdbench(hdbench_bin, *LOADER, f"--hdbench_mnist_dir={tmp_path}",
                         f"--hdbench_out={tmp_path.parent / (tmp_path.name + '-r.json')}", timeout=60)
    assert result.returncode == 2 and "more than any IDX set" in result.stderr, result.stderr
