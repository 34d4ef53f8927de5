"""Each family run ALONE through the binary (`--hdbench_families=<family>`), its report read
by every subcommand of tools/hdbench_report.py: the reader accepts what the writer writes.

A family run alone leaves out what its derived rows compare against (staged without the
transfer family's pinned copies: no `fraction_of_pinned`; the H200's `streams_staged.json`
was refused by every tool for it, issue 39). Without a GPU the GPU families are reported as
skipped: still a report every tool must read."""

from __future__ import annotations

import re

import pytest

from conftest import QUICK_ARGS, run_hdbench, run_report_tool

FAMILIES = ["transfer", "pinning", "staged", "host_memcpy", "device_local", "latency", "managed", "batch_copy",
            "strided", "streams", "loader", "mlp", "dataparallel", "p2p"]


def test_the_list_is_every_family_the_binary_has(hdbench_bin):
    result = run_hdbench(hdbench_bin, "--hdbench_help")
    line = next(line for line in (result.stdout + result.stderr).splitlines() if "--hdbench_families=" in line)
    named = re.search(r"families to run: (.*?) \(default", line).group(1)
    assert [f.strip() for f in named.split(",")] == FAMILIES


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
    family, _, report = alone
    result = run_report_tool("compare", report, report)
    assert result.returncode == 0, f"{family}: {result.stderr}"
