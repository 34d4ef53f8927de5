"""probes/python_gc/step_stalls.py: a training script's steps (between `.item()` calls), the
stalls among them and Python's garbage collections inside each; bad usage exits 2. No test
looks at a time: the stall rule is held on timestamps made here."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PROBE = ROOT / "probes" / "python_gc" / "step_stalls.py"


def load():
    spec = importlib.util.spec_from_file_location("step_stalls", PROBE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_stall_is_a_step_over_the_factor_and_names_the_collections_inside_it():
    probe = load()
    reads = [0.0, 1.0, 2.0, 3.0, 9.0, 10.0, 11.0]  # steps of 1 s, the fourth 6 s
    collections = [(0, 0.5, 0.01), (2, 3.5, 4.0), (1, 3.6, 0.2), (2, 10.2, 0.1)]  # (generation, start, seconds)
    result = probe.stalls(reads, collections, factor=5.0)
    assert result["steps"] == 6 and result["median_ms"] == pytest.approx(1000.0)
    assert result["stalls"] == [{"step": 3, "ms": pytest.approx(6000.0), "gc_ms": pytest.approx(4200.0),
                                 "gc_generations": [1, 2]}]
    assert result["collections"]["gen2"] == {"count": 2, "total_ms": pytest.approx(4100.0),
                                             "max_ms": pytest.approx(4000.0), "at_steps": [3, 5]}
    assert result["collections"]["gen0"]["count"] == 1
    assert probe.stalls([], [], 5.0) == {"steps": 0, "collections": {}, "stalls": []}


def test_it_runs_a_script_and_counts_its_reads_and_collections(tmp_path):
    pytest.importorskip("torch")
    script = tmp_path / "train.py"
    script.write_text("import gc, sys\nimport torch\nx = torch.ones(3)\n"
                      "for step in range(12):\n    (x * step).sum().item()\n    if step == 6:\n        gc.collect()\n"
                      "sys.exit(3)\n")
    out = tmp_path / "stalls.json"
    run = subprocess.run([sys.executable, str(PROBE), str(script), "--", "--json", str(out)], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 3, run.stderr  # the script's own exit code
    result = json.loads(out.read_text())
    assert result["steps"] == 11 and result["collections"]["gen2"]["count"] >= 1
    assert 6 in result["collections"]["gen2"]["at_steps"]
    assert "step_stalls: 11 steps" in run.stderr


@pytest.mark.parametrize("args, says", [([], "give the training script"), (["no-such.py"], "give the training script"),
                                        ([__file__, "--", "--factor", "1"], "--factor must be above 1")])
def test_bad_usage_exits_2(args, says):
    run = subprocess.run([sys.executable, str(PROBE), *args], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and says in run.stderr
