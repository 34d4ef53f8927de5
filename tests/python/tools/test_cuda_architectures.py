"""tools/cuda_architectures.sh, which picks the CUDA architectures tools/run.sh and
tools/test.sh build for: the visible GPUs' own, 90-real without a GPU, the default list
for a GPU this nvcc cannot target, and HDBENCH_CUDA_ARCHITECTURES over all of them.
nvidia-smi and nvcc are fakes on PATH / in CUDACXX."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "tools" / "cuda_architectures.sh"
NVCC_ARCHS = "compute_75 compute_80 compute_86 compute_89 compute_90 compute_100 compute_120"


def fake(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def pick(tmp_path: Path, smi: str | None, nvcc: str | None = NVCC_ARCHS, env_archs: str | None = None):
    """Runs the script with only the tools it needs on PATH, plus a fake nvidia-smi
    printing SMI (None: no nvidia-smi at all); returns (stdout line, stderr)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("grep", "sort", "cat"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    if smi is not None:
        fake(bin_dir / "nvidia-smi", smi)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path)}
    env["CUDACXX"] = str(fake(tmp_path / "nvcc", f"printf '%s\\n' {nvcc}\n") if nvcc is not None
                         else tmp_path / "no-nvcc")
    if env_archs is not None:
        env["HDBENCH_CUDA_ARCHITECTURES"] = env_archs
    result = subprocess.run(["/bin/bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n") == 1, result.stdout
    return result.stdout.strip(), result.stderr


def smi_prints(*lines: str) -> str:
    """A fake nvidia-smi that checks it was asked for the compute capability."""
    out = "".join(f"echo '{line}'\n" for line in lines)
    return f'case "$*" in *--query-gpu=compute_cap*) ;; *) exit 3;; esac\n{out}'


def test_one_gpu_builds_its_own_architecture(tmp_path):
    assert pick(tmp_path, smi_prints("9.0"))[0] == "90-real"


def test_several_gpus_build_each_kind_once_in_order(tmp_path):
    assert pick(tmp_path, smi_prints("9.0", "8.0", "9.0", " 8.6"))[0] == "80-real;86-real;90-real"


def test_no_gpu_builds_90_real_and_says_so(tmp_path):
    archs, said = pick(tmp_path, None)
    assert archs == "90-real"
    assert "no GPU" in said and "HDBENCH_CUDA_ARCHITECTURES=default" in said


@pytest.mark.parametrize("smi", ["echo 'NVIDIA-SMI has failed because it could not communicate with the driver'; exit 9",
                                 "exit 0", "echo '[N/A]'"])
def test_a_failing_or_empty_nvidia_smi_counts_as_no_gpu(tmp_path, smi):
    assert pick(tmp_path, smi)[0] == "90-real"


def test_a_gpu_this_nvcc_cannot_target_builds_the_default_list(tmp_path):
    archs, said = pick(tmp_path, smi_prints("9.0", "13.5"))
    assert archs == "default"
    assert "sm_135" in said


def test_without_an_nvcc_to_ask_the_gpus_own_are_used(tmp_path):
    assert pick(tmp_path, smi_prints("8.9"), nvcc=None)[0] == "89-real"


@pytest.mark.parametrize("given", ["90-real", "default", "80-real;90-real", "all"])
def test_the_variable_wins_over_the_gpus(tmp_path, given):
    assert pick(tmp_path, smi_prints("7.5"), env_archs=given)[0] == given


def test_run_and_test_build_with_the_choice_and_the_default_keyword_is_known_to_cmake():
    """Both entry points configure with the script's choice; CMakeLists.txt turns
    "default" into its own list, so the variable reaches the full build."""
    for entry in ("run.sh", "test.sh"):
        assert "tools/cuda_architectures.sh" in (ROOT / "tools" / entry).read_text()
    assert "--target hdbench hdbench_inject" in (ROOT / "tools" / "run.sh").read_text()
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert 'CMAKE_CUDA_ARCHITECTURES STREQUAL "default"' in cmake
    assert os.access(SCRIPT, os.X_OK)
