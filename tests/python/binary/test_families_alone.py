"""Each family run ALONE through the binary (`--hdbench_families=<family>`), its report read
by every subcommand of tools/hdbench_report.py: the reader accepts what the writer writes.

A family run alone leaves out what its derived rows compare against (staged without the
transfer family's pinned copies: no `fraction_of_pinned`; the H200's `streams_staged.json`
was refused by every tool for it, issue 39). Without a GPU the GPU families are reported as
skipped: still a report every tool must read."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import QUICK_ARGS, run_hdbench, run_report_tool

def described_families() -> list[str]:
    """Every family the binary under test has, from its own descriptions (no list here)."""
    binary = os.environ.get("HDBENCH_BIN")
    if not binary:
        return []  # the fixture below skips: run these tests through ctest
    out = subprocess.run([binary, "--hdbench_describe_families=-"], capture_output=True, text=True, timeout=60)
    return sorted(json.loads(out.stdout)) if out.returncode == 0 else ["(--hdbench_describe_families failed)"]


FAMILIES = described_families()


@pytest.fixture(scope="module", params=FAMILIES)
def alone(request, hdbench_bin, tmp_path_factory):
    family = request.param
    folder = tmp_path_factory.mktemp(f"alone-{family}")
    out = folder / f"{family}.json"
    # QUICK_ARGS starts from the full preset; the quick one keeps each family's run short.
    args = [a for a in QUICK_ARGS if not a.startswith("--hdbench_preset=")]
    result = run_hdbench(hdbench_bin, "--hdbench_preset=quick", *args, f"--hdbench_families={family}",
                         f"--hdbench_out={out}")
    assert result.returncode == 0, result.stderr[-2000:] + result.stdout[-2000:]
    assert out.exists()
    return family, folder, out


def test_summarize_reads_the_report_of_a_family_alone(alone):
    family, folder, report = alone
    result = run_report_tool("summarize", report, "-o", folder / "summary.md")
    assert result.returncode == 0, f"{family}: {result.stderr}"
    text = (folder / "summary.md").read_text()
    assert text.startswith("# hdbench: ")


def test_plot_reads_the_report_of_a_family_alone(alone):
    pytest.importorskip("matplotlib")
    family, folder, report = alone
    result = run_report_tool("plot", report, "-o", folder / "figures")
    assert result.returncode == 0, f"{family}: {result.stderr}"


def test_html_reads_the_report_of_a_family_alone(alone):
    pytest.importorskip("matplotlib")
    family, folder, report = alone
    result = run_report_tool("html", report, "-o", folder / "page.html")
    assert result.returncode == 0, f"{family}: {result.stderr}"
    assert (folder / "page.html").read_text().startswith("<!DOCTYPE html>")


def test_compare_reads_the_report_of_a_family_alone(alone):
    """A report compared with itself: no regression where its runs ran; where every one was
    skipped (a GPU family without a GPU), nothing was compared, which must not pass as a gate."""
    family, _, report = alone
    ran = any(b.get("status") == "ok" and b.get("run_type", "iteration") == "iteration"
              for b in json.loads(report.read_text())["benchmarks"])
    result = run_report_tool("compare", report, report)
    if ran:
        assert result.returncode == 0, f"{family}: {result.stderr}"
    else:
        assert result.returncode == 2 and "nothing to compare" in result.stderr, f"{family}: {result.stderr}"


def test_the_report_carries_the_description_of_its_family_only(alone):
    family, _, report = alone
    carried = json.loads(report.read_text())["context"]["hdbench"]["families"]
    assert sorted(carried) == [family]
    # every param of every entry (run or skipped) is one its family describes
    described = {p["key"] for p in carried[family]["params"]} | {"family"}
    for b in json.loads(report.read_text())["benchmarks"]:
        assert set(b["params"]) <= described, f"{b['name']}: {sorted(set(b['params']) - described)}"
