"""hdbench_profile's analysis (tools/hdreport/profile_*.py) on synthetic recordings
(profile_fixtures.py: made up, not measured) against the synthetic baseline, whose GB/s
are round numbers so every expected value below is worked by hand in its comment.
Times in the fixtures are microseconds; the analysis reports seconds."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from hdreport.core import schema
from hdreport.profile.analysis import analyse as analyse_recording
from hdreport.profile.analysis import is_blocking_call, size_bucket
from hdreport.profile.baseline import Ceilings
from hdreport.profile.intervals import Calls, Union
from hdreport.profile.records import Recording, read_recording
from hdreport.profile.report import NO_CUDA, analyse_all, baseline_section, not_recorded_reason, profile_section
from hdreport.profile.report import report as make_report
from hdreport.profile.report import write as write_report
from profile_fixtures import MiB, KiB, Program, baseline_report, tutorial, well_written

ROOT = Path(__file__).resolve().parents[3]

US = 1e-6


def recording_of(tmp_path, *programs, **write):
    for p in programs:
        p.write(tmp_path, **write)
    return read_recording(tmp_path)


def analyse(tmp_path, *programs, baseline=True):
    ceilings = Ceilings(baseline_report() if baseline else None)
    return analyse_recording(recording_of(tmp_path, *programs), ceilings), ceilings


def findings_of(tmp_path, *programs, baseline=True):
    ceilings = Ceilings(baseline_report() if baseline else None)
    *_, found = analyse_all(recording_of(tmp_path, *programs), ceilings)
    return {f["id"]: f for f in found}


# --- interval arithmetic --------------------------------------------------------------

def test_union_overlap_and_idle_gaps():
    u = Union([(20, 30), (0, 10), (5, 15)])
    assert u.spans == [(0, 15), (20, 30)]
    assert u.length() == 25  # 15 + 10
    assert u.overlap(12, 22) == 5  # 12..15 and 20..22
    assert u.overlap(15, 20) == 0
    assert u.idle_after(15) == 5  # the gap until 20
    assert u.idle_after(10) == 0  # still busy until 15
    assert u.idle_after(30) == 0  # nothing after: nothing starved
    assert Union([(0, 5), (5, 8)]).spans == [(0, 8)]  # touching stretches are one


def test_calls_find_the_call_in_flight_even_when_calls_nest():
    calls = Calls([(0, 100, "outer"), (10, 20, "inner"), (150, 160, "later")])
    assert calls.covering(50) == "outer"  # after the inner one ended, the outer still runs
    assert calls.covering(15) in ("outer", "inner")
    assert calls.covering(120) is None and calls.covering(-1) is None
    assert calls.covering(160) == "later"  # ends are inclusive


# --- the baseline's ceilings ----------------------------------------------------------

def test_ceiling_is_interpolated_in_log_size_and_clamped():
    c = Ceilings(baseline_report())
    # pinned H2D: 1 MiB 20 GB/s, 64 MiB 50 GB/s. 8 MiB is log2 3 of the 6 steps: 20 + 0.5 * 30 = 35.
    assert c.gbps("h2d", "pinned", 8 * MiB)[0] == pytest.approx(35.0)
    # 4 MiB: 2 of 6 steps: 20 + 30 / 3 = 30; pageable 5 + 3 / 3 = 6.
    assert c.gbps("h2d", "pinned", 4 * MiB)[0] == pytest.approx(30.0)
    assert c.gbps("h2d", "pageable", 4 * MiB)[0] == pytest.approx(6.0)
    # 32 KiB between 4 KiB (1.0) and 1 MiB (20.0): log2 3 of 8 steps: 1 + 0.375 * 19 = 8.125.
    assert c.gbps("d2h", "pinned", 32 * KiB)[0] == pytest.approx(8.125)
    assert c.gbps("h2d", "pinned", MiB) == (20.0, "baseline pinned H2D per-copy runs: 20.0 GB/s measured at 1 MiB")
    rate, source = c.gbps("h2d", "pinned", 512 * MiB)
    assert rate == 50.0 and "largest size measured" in source  # clamped, not extrapolated
    # Below the smallest size, that copy's time (4 KiB at 0.4 GB/s): a 4-byte read, a thousandth the rate
    rate, source = c.gbps("d2h", "pageable", 4)
    assert rate == pytest.approx(0.4 * 4 / 4096) and "in the time of the smallest size measured" in source
    assert c.gbps("d2h", "pageable", 4096)[0] == 0.4  # at it, measured
    # The per-copy overhead: the smallest pinned copy's time, 4096 B at 1.0 GB/s = 4.096 us.
    assert c.per_copy_overhead_s("h2d") == pytest.approx(4.096 * US)
    # The reference-loop run (99 GB/s) and the skipped one are not ceilings.
    assert max(g for _, g in c.points[("h2d", "pinned")]) == 50.0


@pytest.mark.parametrize("direction, kind, why", [
    ("h2d", "managed", "managed memory"),
    ("d2d", "device", "host-device copies only"),
    ("h2d", "unknown", "pageable and pinned memory only"),
])
def test_no_ceiling_says_why(direction, kind, why):
    rate, source = Ceilings(baseline_report()).gbps(direction, kind, MiB)
    assert rate is None and why in source
    assert Ceilings(None).gbps("h2d", "pinned", MiB) == (
        None, "no baseline: fractions and savings need one")


# --- classification -------------------------------------------------------------------

def blocking_program() -> Program:
    p = Program()
    p.copy(5, 10, MiB, host="pinned", call="cudaMemcpy", call_at=(0, 20))  # a: synchronous call: blocking
    p.copy(32, 13, MiB, host="pinned", call_at=(30, 31))  # b: .to(device): async call, then a sync
    p.sync(31, 50)
    p.copy(62, 8, MiB, host="pinned", call_at=(60, 61))  # c: async, nobody waits: not blocking
    p.copy(82, 8, MiB, host="pinned", call_at=(80, 81))  # d: another thread waits: not blocking
    p.sync(81, 100, thread=2)
    p.copy(110, 5, MiB, host="pinned", call=None, async_api=False)  # e: no call recorded, sync API: blocking
    p.copy(120, 5, MiB, host="pinned", call=None, async_api=True)  # f: no call recorded, async API: not
    # g: the sync starts after the copy ended, but it is the thread's next call: the program waited
    # for the copy all the same, and the GPU won the race (an idle GPU's `.item()`)
    p.copy(132, 3, MiB, host="pinned", call_at=(130, 131))
    p.sync(140, 150)
    p.copy(162, 8, MiB, host="pinned", call_at=(160, 161))  # h: any *Synchronize counts: blocking
    p.sync(161, 175, name="cudaDeviceSynchronize")
    p.copy(182, 8, MiB, host="pinned", call_at=(180, 200))  # i: an async call outlasting its copy: not
    return p


def test_blocking_rules(tmp_path):
    a, _ = analyse(tmp_path, blocking_program())
    blocking = {round(c.start / 1000): c.blocking for c in a.copies}
    assert blocking == {5: True, 32: True, 62: False, 82: False, 110: True, 120: False, 132: True, 162: True,
                        182: False}
    # Blocking calls: cudaMemcpy 0-20 (20), syncs 31-50 (19), 81-100 on thread 2 (19), 140-150 (10),
    # cudaDeviceSynchronize 161-175 (14): 82 us. The copies that ended in them ran 5-15 (10),
    # 32-45 (13) and 162-170 (8) inside them (g ended before its sync began): 31 us on copies,
    # 51 us on the rest.
    assert a.totals["host_blocked_s"] == pytest.approx(82 * US)
    assert a.costs["host_blocked_on_copies_s"] == pytest.approx(31 * US)
    assert a.costs["host_blocked_on_sync_s"] == pytest.approx(51 * US)


def test_correlation_ids_and_threads_are_per_process(tmp_path):
    one, two = Program(pid=10), Program(pid=20)
    one.copy(0, 10, MiB, host="pinned", call_at=(-2, -1))  # correlation 1 in process 10, thread 1
    two.sync(-5, 100)  # process 20's thread 1 waits through it, but it is another process's thread
    a, _ = analyse(tmp_path, one, two)
    assert [c.blocking for c in a.copies] == [False]


def test_copy_classes_rate_against_the_ceiling(tmp_path):
    p = Program()
    for i in range(10):  # 10 pageable H2D copies of 4 MiB, 800 us each, after a synchronous call
        p.copy(1000 * i, 800, 4 * MiB, call="cudaMemcpy")
    p.copy(20000, 100, 4, direction="DtoH", host="managed", call=None, async_api=True)
    a, _ = analyse(tmp_path, p)
    big, managed = a.classes  # by time, longest first
    assert (big["direction"], big["src"], big["dst"], big["blocking"], big["size_bucket"]) == (
        "h2d", "pageable", "device", True, "1-16 MiB")
    # Each costs its synchronous call, 1 us before the copy to 1 us after: 802 us.
    assert big["count"] == 10 and big["bytes"] == 40 * MiB and big["time_s"] == pytest.approx(8020 * US)
    assert big["dma_time_s"] == pytest.approx(8000 * US) and big["timed_by"] == "call and copy"
    # 4194304 B / 800 us = 5.24288 GB/s against pageable 6.0 GB/s at 4 MiB: 0.873813.
    assert big["achieved_GB/s"] == pytest.approx(41.943040 / 8.020)
    assert big["ceiling_GB/s"] == pytest.approx(6.0)
    assert big["fraction_of_ceiling"] == pytest.approx(41.943040 / 8.020 / 6.0) and big["ceiling_problem"] == ""
    assert big["pinned_ceiling_GB/s"] == pytest.approx(30.0)
    assert "interpolated in log(size) at 4 MiB" in big["ceiling_source"]
    assert managed["ceiling_GB/s"] is None and managed["fraction_of_ceiling"] is None
    assert "managed memory" in managed["ceiling_source"] and managed["size_bucket"] == "<=4 KiB"


@pytest.mark.parametrize("size, bucket", [(4096, "<=4 KiB"), (4097, "4-64 KiB"), (64 * KiB, "4-64 KiB"),
                                          (MiB, "64 KiB-1 MiB"), (16 * MiB, "1-16 MiB"), (256 * MiB, "16-256 MiB"),
                                          (256 * MiB + 1, ">256 MiB")])
def test_size_buckets(size, bucket):
    assert size_bucket(size) == bucket


def test_totals_union_and_overlap_per_device(tmp_path):
    p = Program()
    for start, end in ((0, 10), (5, 15), (20, 30)):
        p.kernel(start, end - start)  # device 0: busy 0-15 and 20-30, 25 us of kernels
    p.copy(12, 10, MiB, host="pinned")  # 12-22: under kernels 12-15 and 20-22, 5 us
    p.memset(40, 5, 1024)
    p.kernel(10, 10, device=1)  # device 1's kernel 10-20 does not hide device 0's copy
    a, _ = analyse(tmp_path, p)
    t = a.totals
    assert t["span_s"] == pytest.approx(45 * US) and t["devices"] == 2
    # device 0: 0-30 and 40-45 = 35 us; device 1: 10 us.
    assert t["gpu_busy_s"] == pytest.approx(45 * US)
    assert t["kernel_s"] == pytest.approx(35 * US)  # 25 + 10
    assert t["gpu_idle_s"] == pytest.approx((2 * 45 - 45) * US)
    assert t["copy_s"] == pytest.approx(10 * US) and t["copies"] == 1 and t["copy_bytes"] == MiB
    assert a.classes[0]["overlapped_s"] == pytest.approx(5 * US)
    assert a.costs["copies_not_overlapped_s"] == pytest.approx(5 * US)


# --- findings -------------------------------------------------------------------------------
# What each fix saves is tested in test_profile_model.py on recordings shaped after the H200's.

def test_fewer_than_ten_reads_do_not_cut_steps(tmp_path):
    p = Program()
    for i in range(9):  # a 100 us kernel, then loss.item() waiting for it, 9 times
        t = 400 * i
        p.kernel(t, 100, launch=(t - 5, t - 1))
        p.copy(t + 100, 2, 4, direction="DtoH", call_at=(t + 10, t + 11))
        p.sync(t + 11, t + 103)
    assert findings_of(tmp_path, p) == {}


def test_well_written_loop_gets_no_finding(tmp_path):
    assert findings_of(tmp_path, well_written()) == {}


def test_without_a_baseline_the_findings_that_need_no_ceiling(tmp_path):
    ceilings = Ceilings(None)
    a, _, model, found = analyse_all(recording_of(tmp_path, tutorial()), ceilings)
    # Pinning (priced at what the staging took) and dropping the read remove the same wait:
    # the first is advised, the second, worth as much alone, adds nothing after it.
    assert [f["id"] for f in found] == ["pageable_to_pinned"]
    assert model.saving_s({"item"}) == model.saving_s({"pin"}) == model.saving_s({"pin", "item"}) > 0
    assert all(c["ceiling_GB/s"] is None for c in a.classes)
    assert a.classes[0]["ceiling_source"] == "no baseline: fractions and savings need one"
    assert a.costs["small_copies"]["overhead_s"] is None and model.pin_rate_source == ""


# --- reading the records ----------------------------------------------------------------

def test_a_killed_process_torn_last_line(tmp_path):
    rec = recording_of(tmp_path, tutorial(steps=3), end=False, torn=True)
    (process,) = rec.processes
    assert not process.complete and "killed" in process.note() and "torn last line" in process.note()
    # A step: the batch copy and its call, a sync, 16 label copies and their calls, 10 kernels,
    # the read and its call, a sync: 2 + 1 + 32 + 10 + 2 + 1 = 48 records; the torn one is lost.
    whole = 3 * 48
    assert process.records == whole - 1 == len(rec.copies) + len(rec.kernels) + len(rec.apis)


def test_records_lacking_fields_or_of_unknown_type_are_skipped(tmp_path):
    p = Program()
    p.kernel(0, 10)
    path = p.write(tmp_path)
    lines = path.read_text().splitlines()
    lines.insert(1, json.dumps({"type": "copy", "start_ns": 0, "end_ns": 5, "device": 0}))  # no bytes
    lines.insert(1, json.dumps({"type": "future_thing", "start_ns": 0}))
    lines.insert(1, "{not json")
    path.write_text("\n".join(lines) + "\n")
    rec = read_recording(tmp_path)
    assert len(rec.kernels) == 1 and not rec.copies
    note = rec.processes[0].note()
    assert "1 unreadable lines skipped" in note and "2 records lacking" in note and rec.processes[0].complete


def test_an_injection_error_is_the_reason_nothing_was_recorded(tmp_path):
    rec = recording_of(tmp_path, Program(), error="no CUDA-capable device is detected")
    assert not_recorded_reason(rec) == "CUPTI could not start: no CUDA-capable device is detected"
    assert not_recorded_reason(Recording()) == NO_CUDA


# --- the report -------------------------------------------------------------------------

def test_the_report_is_a_valid_hdbench_report(tmp_path):
    rec = recording_of(tmp_path, tutorial())
    base = baseline_report()
    baseline = baseline_section("b.json", "given", base, "", "another-host")
    section = profile_section(["python3", "train.py"], 0, None, 1.5, rec, baseline, base, None)
    whole = make_report(section, base, ["--hdbench_baseline=b.json"], "2026-11-20T10:00:00+0000", "x")
    path = tmp_path / "profile.json"
    write_report(str(path), whole)
    loaded = schema.load(str(path))
    assert loaded["benchmarks"] == [] and loaded["context"]["hdbench"]["program"] == "hdbench_profile"
    assert loaded["context"]["hdbench"]["system"]["gpus"][0]["name"] == "Synthetic GPU"  # the baseline's machine
    profile = loaded["profile"]
    assert list(profile) == ["schema", "synthetic", "command", "exit", "wall_s", "recorded", "not_recorded_reason",
                             "processes", "baseline", "trace", "totals", "copy_classes", "costs", "idle", "model",
                             "findings", "findings_left_out", "would_cost"]
    assert profile["schema"] == 2 and profile["synthetic"] is True and profile["recorded"] is True
    assert profile["baseline"]["note"] == "measured on host synthetic, not this one (another-host)"
    assert profile["findings"]
    for f in profile["findings"]:
        assert list(f) == ["id", "fix", "saving_s", "saving_alone_s", "saving_fraction_of_span",
                           "saving_alone_fraction_of_span", "what", "advice", "assumption", "evidence"]
    assert sum(f["saving_s"] for f in profile["findings"]) == pytest.approx(profile["model"]["saving_together_s"])
    numbers = [v for c in profile["copy_classes"] for v in c.values() if isinstance(v, float)]
    assert all(math.isfinite(v) for v in numbers)


def test_the_end_line_names_the_gpus_and_what_the_trace_or_the_budget_left_out(tmp_path):
    lines = [{"type": "process", "pid": 7, "ppid": 1, "command": "train", "host": "h", "gpus": [], "origin_ns": 0},
             {"type": "copy", "start_ns": 10, "end_ns": 20, "device": 0, "stream": 1, "direction": "HtoD",
              "src": "pinned", "dst": "device", "bytes": 4096, "async_api": True, "correlation": 3},
             {"type": "end", "records": 1, "over_budget": 5, "beyond_trace_size": 2, "cupti_dropped": 0,
              "gpus": ["NVIDIA H100 80GB HBM3"], "trace": "trace-7.json"}]
    (tmp_path / "records-7.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    process = read_recording(tmp_path).processes[0]
    assert process.complete and process.gpus == ["NVIDIA H100 80GB HBM3"]  # named at exit
    assert process.over_budget == 5 and process.beyond_trace_size == 2
    assert "5 records beyond the budget were neither analysed nor traced" in process.note()
    assert "2 records were analysed but left out of the trace" in process.note()


@pytest.mark.parametrize("name, blocking", [
    ("cudaMemcpy", True), ("cudaMemcpy_v3020", True), ("cudaMemcpy2D_v3020", True),
    ("cudaMemcpyAsync", False), ("cudaMemcpyAsync_v3020", False), ("cudaMemcpyAsync_ptsz_v7000", False),
    ("cudaStreamSynchronize_v3020", True), ("cudaDeviceSynchronize", True), ("cudaLaunchKernel_v7000", False),
])
def test_blocking_calls_by_name_with_or_without_cuptis_version_tail(name, blocking):
    assert is_blocking_call(name) is blocking


def test_gzipped_records_read_as_plain_ones(tmp_path):
    import gzip
    plain, zipped = tmp_path / "plain", tmp_path / "zipped"
    plain.mkdir()
    zipped.mkdir()
    path = tutorial(steps=3).write(plain)
    (zipped / (path.name + ".gz")).write_bytes(gzip.compress(path.read_bytes()))
    a, b = read_recording(plain), read_recording(zipped)
    assert len(b.copies) == len(a.copies) > 0 and b.processes[0].complete and b.processes[0].pid == a.processes[0].pid


# --- a class timed by DMA records against a DMA rate ------------------------------------------

def test_pinned_copies_timed_by_their_dma_records_are_held_against_the_rate_bytes_flow_at(tmp_path):
    """The fixture's 4 MiB pinned batches, 140 us DMA records each (29.96 GB/s): against the
    per-copy runs around 4 MiB (1 MiB at 20 GB/s, 52.43 us; 64 MiB at 50 GB/s, 1342.18 us)
    bytes flow at 63 MiB / 1289.75 us = 51.22 GB/s once a copy runs; the per-copy rate at
    4 MiB (30.0 GB/s) would hold a copy that leaves its fixed cost out against one that pays it."""
    well_written(10).write(tmp_path)
    a = analyse_recording(read_recording(tmp_path), Ceilings(baseline_report()))
    row = next(r for r in a.classes if r["src"] == "pinned" and r["mean_bytes"] == 4 * MiB)
    assert row["timed_by"] == "copy record"
    assert row["ceiling_GB/s"] == pytest.approx(63 * MiB / 1289.75e-6 / 1e9, rel=1e-4)
    assert row["fraction_of_ceiling"] == pytest.approx(row["achieved_GB/s"] / row["ceiling_GB/s"])
    assert "the rate bytes flow at between 1 MiB (52.4 µs) and 64 MiB (1.34 ms)" in row["ceiling_source"]


def test_the_h100_all_fixed_batches_get_a_fraction_not_a_ceiling_problem():
    """The H100 of 2026-11-28b: the all-fixed tutorial's 786 KiB pinned batches ran at 45.3 GB/s
    by their DMA records, over the baseline's per-copy 38.9 GB/s at that size (so no fraction
    was published, and the report blamed the baseline). Between its 64 KiB (5.73 us) and 1 MiB
    (25.12 us) runs bytes flow at 50.7 GB/s: 0.89 of it."""
    baseline = json.loads((ROOT / "reports" / "reference" / "h100-2026-11-28b" / "profiles" / "baseline.json")
                          .read_text())
    ceilings = Ceilings(baseline)
    rate, source = ceilings.dma_gbps("h2d", "pinned", 804864)
    assert rate == pytest.approx(50.7, abs=0.1) and "fixed cost left out" in source
    assert ceilings.gbps("h2d", "pinned", 804864)[0] == pytest.approx(38.85, abs=0.01)
    assert 45.33 / rate == pytest.approx(0.894, abs=0.005)
