"""tools/profile_site/sitecustomize.py: under hdbench_profile every Python process times its
garbage collections into pygc-<pid>.jsonl (CLOCK_MONOTONIC, the OS thread id); a forked
child starts a file of its own; each ends with the anonymous memory its process held; the
sitecustomize it hides still runs; HDBENCH_PROFILE_GC=0
and a process outside the profiler time nothing. No test looks at how long anything took."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
    assert header == {"type": "pygc", "pid": ran["pid"], "clock": "monotonic"}
    # last, at exit: the anonymous memory it held (a fork copies its page tables)
    assert memory["type"] == "memory" and memory["rss_anon_bytes"] > 0
    full = [c for c in collections if c["generation"] == 2 and ran["before"] <= c["start_ns"] <= ran["after"]]
    assert len(full) == 1 and full[0]["thread"] == ran["thread"] and full[0]["end_ns"] >= full[0]["start_ns"]
    # the forked child's file holds its own collection, none of its parent's
    child_header, *child_collections, _ = lines(tmp_path / f"pygc-{ran['child']}.jsonl")
    assert child_header["pid"] == ran["child"]
    assert 1 in [c["generation"] for c in child_collections]
    assert all(c["start_ns"] > ran["after"] for c in child_collections)


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
