"""tools/run.sh names the report as the binary does (reports/hdbench-<gpu>_<cpu>-<time>.json,
the machine by what it has), not after the host (`hdbench-vm-…`, issue 39): it passes no
--hdbench_out of its own and draws the figures, summary and page of the report the binary
wrote. Run here with stand-ins for the build (install_deps.sh, cmake) and the binary, which
writes a real report (the H200's quick run) under the name the binary gives it."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
REPORT = ROOT / "tests" / "python" / "fixtures" / "h200-2026-11-26" / "quick.json"
NAME = "hdbench-NVIDIA_H200_Intel_R_Xeon_R_Processor-20261126-042825"


def executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@pytest.fixture
def checkout(tmp_path):
    """A checkout with run.sh and the report tools, the build and the binary stood in for."""
    root = tmp_path / "repo"
    (root / "tools").mkdir(parents=True)
    shutil.copy2(ROOT / "tools" / "run.sh", root / "tools" / "run.sh")
    (root / "tools" / "hdbench_report.py").symlink_to(ROOT / "tools" / "hdbench_report.py")
    (root / "tools" / "hdreport").symlink_to(ROOT / "tools" / "hdreport")
    for script in ("install_deps.sh", "cuda_architectures.sh"):
        executable(root / "tools" / script, "#!/bin/sh\necho 90-real\n")
    bin_dir = tmp_path / "bin"
    executable(bin_dir / "cmake", "#!/bin/sh\nexit 0\n")
    # The binary's stand-in: records its arguments, writes the report where the real one's
    # default puts it (or at --hdbench_out), and prints the line the real one prints.
    executable(root / "build" / "release" / "bin" / "hdbench", f"""#!/bin/sh
printf '%s\\n' "$@" > "{tmp_path}/args"
out="reports/{NAME}.json"
for a in "$@"; do case "$a" in --hdbench_out=*) out="${{a#--hdbench_out=}}";; esac; done
mkdir -p "$(dirname "$out")"
cp "{REPORT}" "$out"
echo "Report: $out"
""")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    return root, env, tmp_path / "args"


def run(root: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(root / "tools" / "run.sh"), *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300)


def test_run_sh_keeps_the_binarys_name_for_the_report(checkout):
    root, env, args = checkout
    result = run(root, env, "--hdbench_preset=quick")
    assert result.returncode == 0, result.stderr[-3000:]
    passed = args.read_text().split("\n")
    assert not any(a.startswith("--hdbench_out=") for a in passed), passed  # the binary names it
    assert "--hdbench_preset=quick" in passed
    made = sorted(p.name for p in (root / "reports").iterdir())
    assert made == [f"{NAME}-figures", f"{NAME}.html", f"{NAME}.json", f"{NAME}.md"]
    host = socket.gethostname()
    assert not any(host and f"hdbench-{host}" in name for name in made)


def test_run_sh_draws_the_report_named_by_hdbench_out(checkout):
    root, env, args = checkout
    result = run(root, env, "--hdbench_out=reports/mine.json")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "--hdbench_out=reports/mine.json" in args.read_text().split("\n")
    assert (root / "reports" / "mine.md").exists() and (root / "reports" / "mine.html").exists()


def test_run_sh_names_no_host():
    text = (ROOT / "tools" / "run.sh").read_text()
    assert "hostname" not in text
