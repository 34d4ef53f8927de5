"""tools/profile_site/sitecustomize.py: under hdbench_profile every Python process times its
garbage collections into pygc-<pid>.jsonl (CLOCK_MONOTONIC, the OS thread id); a forked
child starts a file of its own; each ends with the memory its process held, sampled as it ran; the
sitecustomize it hides still runs; HDBENCH_PROFILE_GC=0
and a process outside the profiler time nothing. No test looks at how long anything took."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from profile_fixtures import KERNEL_MEASURE

ROOT = Path(__file__).resolve().parents[3]
SITE = ROOT / "tools" / "profile_site"

PROGRAM = """
import gc, json, os, sys, threading, time
before = time.monotonic_ns()
gc.collect()
after = time.monotonic_ns()
child = os.fork()
if child == 0:
    gc.collect(1)
    sys.exit(0)  # (a multiprocessing worker ends in os._exit: its collections are not written)
os.waitpid(child, 0)
print(json.dumps({"pid": os.getpid(), "child": child, "thread": threading.get_native_id(),
                  "before": before, "after": after}))
"""


def run(tmp_path: Path, program: str = PROGRAM, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("HDBENCH_PROFILE_DIR", "HDBENCH_PROFILE_GC")}
    environment.update(PYTHONPATH=os.pathsep.join([str(SITE), *env.pop("extra_path", [])]), **env)
    return subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                          env=environment, cwd=tmp_path)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_collection_is_timed_on_the_monotonic_clock_with_its_thread(tmp_path):
    result = run(tmp_path, HDBENCH_PROFILE_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    ran = json.loads(result.stdout)
    header, *collections, memory = lines(tmp_path / f"pygc-{ran['pid']}.jsonl")
    assert header == {"type": "pygc", "pid": ran["pid"], "parent": os.getpid(), "clock": "monotonic"}
    # last, at exit: the memory it held (a fork copies its page tables), RssAnon where the kernel
    # says it (VmRSS on gVisor, the GPU hosts')
    assert memory["type"] == "memory" and memory["measure"] == KERNEL_MEASURE and memory["end_bytes"] > 0
    assert memory["samples"] and all(b > 0 for _, b in memory["samples"])  # the first collection samples
    full = [c for c in collections if c["generation"] == 2 and ran["before"] <= c["start_ns"] <= ran["after"]]
    assert len(full) == 1 and full[0]["thread"] == ran["thread"] and full[0]["end_ns"] >= full[0]["start_ns"]
    # the forked child's file holds its own collection, none of its parent's
    child_header, *child_collections, _ = lines(tmp_path / f"pygc-{ran['child']}.jsonl")
    assert child_header["pid"] == ran["child"] and child_header["parent"] == ran["pid"]
    assert 1 in [c["generation"] for c in child_collections]
    assert all(c["start_ns"] > ran["after"] for c in child_collections)


WORKER = """
import json, multiprocessing, os
ctx = multiprocessing.get_context("fork")  # DataLoader's workers on Linux: forked, ended by os._exit
worker = ctx.Process(target=os.getpid)
worker.start()
worker.join()
print(json.dumps({"pid": os.getpid(), "worker": worker.pid}))
"""


def test_a_worker_that_ends_in_os_exit_still_says_its_parent(tmp_path):
    """A DataLoader worker uses no CUDA and ends in os._exit: its one line, written at its fork,
    is what tells the recording that the training process had workers."""
    result = run(tmp_path, WORKER, HDBENCH_PROFILE_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    ran = json.loads(result.stdout)
    assert lines(tmp_path / f"pygc-{ran['worker']}.jsonl") == [
        {"type": "pygc", "pid": ran["worker"], "parent": ran["pid"], "clock": "monotonic"}]


def test_nothing_is_timed_outside_the_profiler_or_when_turned_off(tmp_path):
    assert run(tmp_path).returncode == 0  # no HDBENCH_PROFILE_DIR
    assert run(tmp_path, HDBENCH_PROFILE_DIR=str(tmp_path), HDBENCH_PROFILE_GC="0").returncode == 0
    assert not list(tmp_path.glob("pygc-*"))


def test_the_sitecustomize_it_hides_still_runs(tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import builtins\nbuiltins.THEIRS_RAN = True\n")
    result = run(tmp_path, "import builtins; print(getattr(builtins, 'THEIRS_RAN', False))",
                 HDBENCH_PROFILE_DIR=str(tmp_path), extra_path=[str(theirs)])
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "True"


# Holds 200 MB (written) for a while, making garbage so that collections run, then frees it and
# exits: as a training script's data set lives in main()'s locals and is gone at exit.
HOLDS_THEN_FREES = """
import gc, time
def main():
    data = bytearray(200 << 20)
    for i in range(0, len(data), 4096):
        data[i] = 1
    for _ in range(6):  # six collections over 0.05 s apart, each a sample whatever the machine's speed
        gc.collect()
        time.sleep(0.06)
main()
"""


def test_the_memory_held_while_it_ran_is_sampled_not_only_the_exit(tmp_path):
    result = run(tmp_path, HOLDS_THEN_FREES, HDBENCH_PROFILE_DIR=str(tmp_path), HDBENCH_PROFILE_MEMORY_EVERY_S="0.05")
    assert result.returncode == 0, result.stderr
    memory = lines(next(tmp_path.glob("pygc-*.jsonl")))[-1]
    held = [b for _, b in memory["samples"]]
    assert len(held) >= 3 and max(held) >= 200 << 20  # sampled while the 200 MB were held
    assert memory["end_bytes"] < max(held) - (150 << 20)  # gone by the exit
    times = [t for t, _ in memory["samples"]]
    assert times == sorted(times) and min(b - a for a, b in zip(times, times[1:])) >= 0.05e9


def test_a_bad_sampling_interval_does_not_stop_the_program(tmp_path):
    for bad in ("fast", "-1", "0"):
        result = run(tmp_path, "print('ran')", HDBENCH_PROFILE_DIR=str(tmp_path), HDBENCH_PROFILE_MEMORY_EVERY_S=bad)
        assert result.returncode == 0 and result.stdout == "ran\n", result.stderr


def test_where_the_kernel_says_no_anonymous_memory_the_resident_memory_is_taken(tmp_path):
    """gVisor's /proc/self/status (the GPU hosts') says VmRSS and no RssAnon."""
    spec = importlib.util.spec_from_file_location("hdbench_profile_site", SITE / "sitecustomize.py")
    site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(site)  # outside the profiler (no HDBENCH_PROFILE_DIR): it times nothing
    resident_memory = site.resident_memory
    gvisor = tmp_path / "gvisor-status"
    gvisor.write_text("Name:\tpython3\nVmSize:\t900 kB\nVmRSS:\t700 kB\nVmData:\t500 kB\nThreads:\t3\n")
    linux = tmp_path / "linux-status"
    linux.write_text("Name:\tpython3\nVmRSS:\t700 kB\nRssAnon:\t400 kB\nRssFile:\t300 kB\n")
    assert resident_memory(str(gvisor)) == ("VmRSS", 700 * 1024)
    assert resident_memory(str(linux)) == ("RssAnon", 400 * 1024)
    assert resident_memory(str(tmp_path / "absent")) is None
