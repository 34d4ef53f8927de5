"""tools/loader_start_timeline.py, which splits a DataLoader's workers' start into its parts:
its usage errors, its answer without PyTorch, and real (CPU) runs of small scripts where a
Python here imports PyTorch. The parts are timings: their form and their sum are checked (the
four add up to the first batch wait by construction), never their size."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from test_handover_probe import python_with_torch

TOOL = Path(__file__).resolve().parents[3] / "tools" / "loader_start_timeline.py"
PARTS = ("forking", "index_wait", "first_build", "hand_over")


def run(python: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([python, str(TOOL), *args], capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize("args, message", [
    ([], "the following arguments are required: script"),
    (["no-such-script.py"], "no-such-script.py: no such file"),
])
def test_bad_arguments_exit_2_and_say_which(args, message):
    result = run(sys.executable, *args)
    assert result.returncode == 2 and message in result.stderr and result.stdout == ""


@pytest.mark.parametrize("out, message", [
    ("script.py", "--out script.py: is the script: writing it would lose the script"),
    ("adir", "--out adir: is a folder"),
    ("afile/t.json", "--out afile/t.json: cannot be written in"),
])
def test_an_out_that_cannot_take_the_timeline_is_said_before_the_script_runs(tmp_path, out, message):
    (tmp_path / "script.py").write_text("open('ran', 'w').close()\n")
    (tmp_path / "adir").mkdir()
    (tmp_path / "afile").write_text("mine\n")
    result = run(sys.executable, "--out", out, "script.py", cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not (tmp_path / "ran").exists() and (tmp_path / "script.py").read_text().startswith("open(")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "afile", "script.py"]


def test_without_pytorch_it_exits_1_and_says_so(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print('never')\n")
    shim = tmp_path / "no_torch.py"
    shim.write_text(f"import runpy, sys\nsys.modules['torch'] = None\nsys.argv = [{str(TOOL)!r}, *sys.argv[1:]]\n"
                    f"runpy.run_path({str(TOOL)!r}, run_name='__main__')\n")
    result = subprocess.run([sys.executable, str(shim), str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and result.stdout == ""
    assert "loader_start_timeline: PyTorch cannot be imported by" in result.stderr


@pytest.fixture(scope="module")
def torch_python() -> str:
    python = python_with_torch()
    if python is None:
        pytest.skip("no Python here imports PyTorch")
    return python


# Two loaders with workers, one after the other (the second's workers are forked once the
# timeline is done: they must stamp nothing and still work), each summed whole, so that a
# lost or doubled batch shows; the script's arguments, a sibling module and its exit status.
LOADERS = """
import sys, torch
from torch.utils.data import DataLoader, TensorDataset
import sibling
data = TensorDataset(torch.arange(64, dtype=torch.float64))
for workers in (2, 1):
    total = sum(float(b[0].sum()) for b in DataLoader(data, batch_size=8, num_workers=workers))
    print("sum", total, "args", sys.argv[1:], sibling.NAME)
sys.exit(3)
"""


def test_the_parts_add_up_to_the_first_batch_and_the_script_runs_as_it_would(torch_python, tmp_path):
    (tmp_path / "sibling.py").write_text("NAME = 'sibling'\n")
    (tmp_path / "train.py").write_text(LOADERS)
    out = tmp_path / "t.json"
    result = run(torch_python, "--out", str(out), str(tmp_path / "train.py"), "--steps", "5", cwd=tmp_path.parent)
    assert result.returncode == 3, result.stderr
    assert result.stdout.splitlines() == ["sum 2016.0 args ['--steps', '5'] sibling"] * 2
    timeline = json.loads(out.read_text())
    assert timeline["workers"] == 2 and "not_timed" not in timeline, timeline
    assert len(timeline["forks_s"]) == 2 and all(f > 0 for f in timeline["forks_s"])
    assert timeline["builder"]["worker_id"] == 0
    parts = timeline["parts_s"]
    assert set(parts) == set(PARTS) and parts["forking"] > 0 and parts["first_build"] > 0 and parts["hand_over"] > 0
    assert sum(parts.values()) == pytest.approx(timeline["first_batch_s"], abs=1e-9)
    assert "loader_start_timeline: 2 workers, first batch" in result.stderr


def test_it_leaves_no_stamps_file_behind(torch_python, tmp_path):
    (tmp_path / "sibling.py").write_text("NAME = 'sibling'\n")
    (tmp_path / "train.py").write_text(LOADERS)
    env_tmp = tmp_path / "tmp"
    env_tmp.mkdir()
    result = subprocess.run([torch_python, str(TOOL), str(tmp_path / "train.py")], capture_output=True, text=True,
                            timeout=120, env={"TMPDIR": str(env_tmp), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 3, result.stderr
    assert list(env_tmp.iterdir()) == []


def test_a_script_without_workers_is_said_not_timed(torch_python, tmp_path):
    (tmp_path / "train.py").write_text("from torch.utils.data import DataLoader\n"
                                       "print(sum(int(b.sum()) for b in DataLoader(range(10))))\n")
    out = tmp_path / "t.json"
    result = run(torch_python, "--out", str(out), str(tmp_path / "train.py"))
    assert result.returncode == 0 and result.stdout == "45\n"
    assert json.loads(out.read_text()) == {"workers": 0, "not_timed": "no DataLoader started workers"}
    assert "not timed: no DataLoader started workers" in result.stderr


def test_the_script_sees_its_own_folder_first_not_the_tools(torch_python, tmp_path):
    (tmp_path / "train.py").write_text(
        "import os, sys\nprint(os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)))\n"
        "try:\n    import handover_probe\nexcept ImportError:\n    print('tools hidden')\n")
    result = run(torch_python, str(tmp_path / "train.py"))
    assert result.returncode == 0 and result.stdout == "True\ntools hidden\n", result.stderr


def test_a_failing_script_fails_as_it_would(torch_python, tmp_path):
    (tmp_path / "train.py").write_text("raise RuntimeError('the script broke')\n")
    result = run(torch_python, str(tmp_path / "train.py"))
    assert result.returncode == 1 and "RuntimeError: the script broke" in result.stderr


def test_an_out_that_is_a_pipe_is_refused_not_replaced(tmp_path):
    """The JSON is written beside --out and renamed over it: a FIFO there (or, as root,
    --out /dev/null) was replaced by a regular file."""
    (tmp_path / "script.py").write_text("open('ran', 'w').close()\n")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = run(sys.executable, "--out", "fifo", "script.py", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "--out fifo: is not a regular file (a device or a pipe)" in result.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and not (tmp_path / "ran").exists()


@pytest.mark.parametrize("script", [LOADERS, "print('no workers')\n"], ids=["workers", "no workers"])
def test_a_standard_error_that_fails_fails_nothing_of_the_script(torch_python, tmp_path, script):
    """The timeline's lines go to standard error from inside the script's DataLoader (its
    __next__): with `2>/dev/full` their OSError ended the script there. The JSON is written
    first, and the script runs on to its own exit status."""
    (tmp_path / "sibling.py").write_text("NAME = 'sibling'\n")
    (tmp_path / "train.py").write_text(script)
    out = tmp_path / "t.json"
    with open("/dev/full", "w") as full:
        result = subprocess.run([torch_python, str(TOOL), "--out", str(out), str(tmp_path / "train.py")],
                                stdout=subprocess.PIPE, stderr=full, text=True, timeout=120)
    if script == LOADERS:
        assert result.returncode == 3 and len(result.stdout.splitlines()) == 2, result.stdout
        assert json.loads(out.read_text())["workers"] == 2
    else:
        assert result.returncode == 0 and result.stdout == "no workers\n"
        assert json.loads(out.read_text()) == {"workers": 0, "not_timed": "no DataLoader started workers"}
