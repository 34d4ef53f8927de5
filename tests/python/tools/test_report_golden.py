"""The same reports give the same files: the report tools redraw the committed figures
(SVG), summary and page of reports/reference/h100-2026-11-23b/ byte for byte from its
reports, with the commands of its README. A change to the tools that moves a pixel, a
word or an id fails here; when the change is meant, redraw them and commit the result."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import matplotlib
import pytest

from conftest import REPORT_TOOL

FOLDER = Path(__file__).resolve().parents[3] / "reports" / "reference" / "h100-2026-11-23b"
# As the README runs them, from the folder: the summary and the page quote these paths.
REPORTS = ["default-h100.json", "dataparallel-h100.json", "../h100-2026-11-23/pytorch-h100.json"]
SUMMARY, PAGE = FOLDER / "hdbench-h100-2026-11-23b.md", FOLDER / "hdbench-h100-2026-11-23b.html"
# With this Python: its matplotlib is the one the SVGs name (another `python3` on the PATH
# may carry another, which redraws every figure).
REDRAW = (f"if the change is meant, redraw them: cd {FOLDER.relative_to(FOLDER.parents[2])} && "
          f"P={sys.executable} T=../../../tools/hdbench_report.py R='default-h100.json dataparallel-h100.json "
          "../h100-2026-11-23/pytorch-h100.json' && $P $T plot $R -o figures && "
          "$P $T summarize $R -o hdbench-h100-2026-11-23b.md && "
          "$P $T html $R -o hdbench-h100-2026-11-23b.html")


@pytest.fixture(scope="module")
def committed_here():
    if not SUMMARY.exists():
        pytest.skip(f"{SUMMARY} is not here (a bundle carries the reports' JSON only)")


@pytest.fixture(scope="module")
def drawn_with(committed_here):
    """The matplotlib version the committed SVGs name: another one draws other bytes."""
    svg = (FOLDER / "figures" / "host_memcpy.svg").read_text()
    version = svg.split("Matplotlib v", 1)[1].split(",", 1)[0]
    if version != matplotlib.__version__:
        pytest.skip(f"the committed figures were drawn by matplotlib {version}, this is {matplotlib.__version__}")
    return version


def run_in_folder(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPORT_TOOL), *map(str, args)], cwd=FOLDER, capture_output=True,
                          text=True, timeout=300)


def differing(made: Path, committed: Path) -> str:
    """'' when the two files are byte for byte the same, else where they first differ."""
    a, b = made.read_bytes(), committed.read_bytes()
    if a == b:
        return ""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"{committed.name}: differs from byte {at} ({len(a)} bytes drawn, {len(b)} committed)"


def test_figures_are_redrawn_byte_for_byte(drawn_with, tmp_path):
    result = run_in_folder("plot", *REPORTS, "-o", tmp_path)
    assert result.returncode == 0, result.stderr
    made = sorted(p.name for p in tmp_path.glob("*.svg"))
    committed = sorted(p.name for p in (FOLDER / "figures").glob("*.svg"))
    assert made == committed, f"other figures than the committed ones; {REDRAW}"
    problems = [d for d in (differing(tmp_path / n, FOLDER / "figures" / n) for n in made) if d]
    assert not problems, f"{len(problems)} SVG figures changed: {problems[:5]}; {REDRAW}"


def rewritten_as_committed(tmp_path: Path, command: str, committed: Path) -> None:
    out = tmp_path / committed.name
    result = run_in_folder(command, *REPORTS, "-o", out)
    assert result.returncode == 0, result.stderr
    problem = differing(out, committed)
    assert not problem, f"{problem}; {REDRAW}"


def test_the_summary_is_rewritten_byte_for_byte(committed_here, tmp_path):
    """Any matplotlib: the summary draws nothing."""
    rewritten_as_committed(tmp_path, "summarize", SUMMARY)


def test_the_page_is_rewritten_byte_for_byte(drawn_with, tmp_path):
    """It holds the figures: the committed ones' matplotlib only."""
    rewritten_as_committed(tmp_path, "html", PAGE)
