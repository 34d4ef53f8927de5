"""The device_local, latency, managed, batch_copy and strided families end to end: every
case in the report with its params; without a GPU each skipped with the reason, with one
each verified and measured (or skipped with a reason of its own: no concurrent managed
access, a driver without cudaMemcpyBatchAsync)."""

from __future__ import annotations

import pytest

FAMILIES = ("device_local", "latency", "managed", "batch_copy", "strided")
# Skips a GPU machine may still give, by family.
OWN_SKIPS = {"managed": "managed", "batch_copy": "cudaMemcpyBatchAsync"}


def entries(report, family):
    return [b for b in report["benchmarks"] if b["params"].get("family") == family]


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_reports_every_case(quick_report, family):
    _, report = quick_report
    found = entries(report, family)
    assert found, f"no {family} entries"
    system = report["context"]["hdbench"]["system"]
    for b in found:
        assert b["name"].startswith(f"{family}/"), b["name"]
        if not system["gpu_usable"]:
            assert b["status"] == "skipped" and b["skip_reason"] == system["gpu_unavailable_reason"], b
            continue
        if b["status"] == "skipped":
            assert OWN_SKIPS.get(family, "\0") in b["skip_reason"], b
            continue
        assert b["status"] == "ok", b
        assert b["counters"]["latency_us"] > 0, b
        if b["params"].get("method") != "pointer_chase":
            assert b["counters"]["bandwidth_GB/s"] > 0, b


def test_the_grid_follows_the_flags(quick_report):
    _, report = quick_report
    assert {b["params"]["bytes"] for b in entries(report, "device_local")} == {1 << 20, 16 << 20}
    assert {b["params"]["tensors"] for b in entries(report, "batch_copy")} == {1, 8}
    assert {b["params"]["matrix"] for b in entries(report, "strided")} == {"256x256"}
    chases = {b["params"]["memory"] for b in entries(report, "latency") if b["params"]["method"] == "pointer_chase"}
    assert chases == {"mapped_host", "device"}
    managed = {(b["params"]["direction"], b["params"]["variant"]) for b in entries(report, "managed")}
    assert ("d2h", "read_mostly") not in managed and ("h2d", "accessed_by_gpu") in managed
