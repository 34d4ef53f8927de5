"""baselines/pytorch/gemm_layouts.py, the probe of one GEMM shape in its four operand layouts
(issue 41: the tf32 weight gradient is the step's slow GEMM on an H100). On a GPU it times
them; here it runs on the CPU at small sizes, so only its bookkeeping and its check that
every layout gives the same product are tested, never a timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "baselines" / "pytorch" / "gemm_layouts.py"


def run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=300)


def test_every_layout_of_every_shape_gives_the_same_product(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "layouts.json"
    result = run("--device", "cpu", "--shapes", "24x40x56,8x16x300", "--dtypes", "fp32,bf16", "--square", "32",
                 "--repeats", 2, "--out", out)
    assert result.returncode == 0, result.stderr
    rows = json.loads(out.read_text())["rows"]
    # per dtype: 2 shapes x 4 layouts, then the square in each layout
    assert len(rows) == 2 * (2 * 4 + 4)
    shaped = [r for r in rows if r["role"] != "square"]
    assert {(r["a"], r["b"]) for r in shaped} == {("K", "K"), ("K", "MN"), ("MN", "K"), ("MN", "MN")}
    assert all(r["same_product"] and r["us"] > 0 and r["TFLOP/s"] > 0 for r in shaped)
    weight = [r for r in shaped if r["role"].startswith("weight gradient")]
    assert {(r["a"], r["b"]) for r in weight} == {("MN", "MN")}  # dYᵀ·X: the batch is neither's contiguous dimension
    for dtype in ("fp32", "bf16"):
        squares = [r for r in rows if r["role"] == "square" and r["dtype"] == dtype]
        assert max(r["x_square_best"] for r in squares) == pytest.approx(1.0)
    assert "| fp32 | 24×40×56 | MN | MN | weight gradient (dYᵀ·X) |" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--shapes", "8x8"], "--shapes: MxNxK"),
    (["--shapes", "axbxc"], "whole numbers"),
    (["--dtypes", "fp16"], "--dtypes: tf32, bf16 or fp32"),
    (["--repeats", "0"], "--repeats: 1 to 10000"),
])
def test_bad_arguments_exit_2(args, message):
    result = run(*args)
    assert result.returncode == 2 and message in result.stderr


def test_without_cuda_it_says_so():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("CUDA is here")
    result = run("--shapes", "8x8x8", "--square", "8", "--repeats", 1)
    assert result.returncode == 1 and "CUDA is not available to PyTorch here" in result.stderr
