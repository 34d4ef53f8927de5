"""Which build wrote a report: `context.hdbench.version` and `git_revision` as the Python
tools (hdbench_profile, the PyTorch baseline) fill them, in a checkout and in a bundle.

Until 2026-11-27 the version was looked for one folder too low (always ""), and a bundle,
which has no git, gave no revision either: every hdbench_profile report recorded on a GPU
machine named neither.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from hdreport.core import writer

ROOT = Path(__file__).resolve().parents[3]
TOOLS = ROOT / "tools"


def cmake_version() -> str:
    found = re.search(r"project\(\s*hdbench\s+VERSION\s+([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    assert found, "CMakeLists.txt names no project version"
    return found.group(1)


def test_in_the_checkout_the_version_is_the_cmake_projects():
    assert writer.suite_version() == cmake_version()


def test_in_the_checkout_the_revision_is_gits():
    described = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    if described.returncode != 0:
        return  # a source tree without git: nothing to compare with
    assert writer.git_revision() == described.stdout.strip()


def test_in_a_bundle_both_come_from_the_files_make_bundle_writes(tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(TOOLS / "hdreport", bundle / "tools" / "hdreport",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (bundle / "REVISION").write_text("ffb40a0b4fba5794301882af0fd99a46272631bd\n")
    # The version as make_bundle.sh writes it, by its own sed line.
    line = next(l for l in (TOOLS / "make_bundle.sh").read_text().splitlines() if '"$bundle/VERSION"' in l)
    subprocess.run(["bash", "-c", line.replace('"$bundle/VERSION"', str(bundle / "VERSION"))], cwd=ROOT, check=True)
    out = subprocess.run([sys.executable, "-c", "from hdreport.core import writer; "
                          "print(writer.suite_version()); print(writer.git_revision())"],
                         cwd=tmp_path, env={"PYTHONPATH": str(bundle / "tools"), "GIT_CEILING_DIRECTORIES": str(tmp_path),
                                            "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == [cmake_version(), "ffb40a0b4fba5794301882af0fd99a46272631bd"]
