"""hdbench_profile's diagnosis on recordings shaped after the H200 ones of 2026-11-26
(profile_fixtures.tutorial_h200 / well_written_h200, and small programs built here): what a
copy costs, where the GPU's idle time goes, and what each fix saves, alone and together.
Every expected value is worked by hand in its comment from the fixture's times (us) and
the synthetic baseline's round GB/s (profile_fixtures.py's docstring)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hdreport.profile.baseline import Ceilings
from hdreport.profile.findings import MIN_SAVING_OF_SPAN, gather_text, would_cost
from hdreport.profile.handover import FITTED, Handover, handover_of
from hdreport.profile.model import FIXES, Model, Step
from hdreport.profile.records import read_recording
from hdreport.profile.report import analyse_all, baseline_section, profile_section, reanalysed
from hdreport.profile.summary import model_lines, pace_text
from hdreport.profile.report import report as make_report
from profile_fixtures import BATCH_BYTES, PACKED_BATCH_BYTES, MiB, Program, baseline_report, tutorial, tutorial_h200, \
    well_written, well_written_graphed, well_written_h200, workers_and_pin, synchronize_every_step

ROOT = Path(__file__).resolve().parents[3]
US = 1e-6
STEPS = 20  # fixture steps; the model sees 19 (a step runs from one read's end to the next's)


def analyse_all_of(folder, program: Program, handover: Handover):
    """analyse_all of `program` written into `folder`, with `handover` as the probe's answer."""
    folder.mkdir(parents=True, exist_ok=True)
    program.write(folder)
    return analyse_all(read_recording(folder), Ceilings(baseline_report()), lambda shape, *_: handover)


def run(tmp_path, program: Program, baseline: bool = True):
    program.write(tmp_path)
    ceilings = Ceilings(baseline_report() if baseline else None)
    return analyse_all(read_recording(tmp_path), ceilings)


# --- what a copy costs -------------------------------------------------------------------

def test_a_pageable_copy_costs_its_call_not_its_dma_record(tmp_path):
    a, *_ = run(tmp_path, tutorial_h200(STEPS))
    images = [c for c in a.copies if c.bytes == BATCH_BYTES]
    # The call 2000-2403 staged it; CUPTI's record covers only the DMA, 2152-2403.
    assert {c.duration for c in images} == {251_000} and {c.cost for c in images} == {403_000}
    row = next(r for r in a.classes if r["mean_bytes"] == BATCH_BYTES)
    assert row["time_s"] == pytest.approx(STEPS * 403 * US) and row["dma_time_s"] == pytest.approx(STEPS * 251 * US)
    assert row["timed_by"] == "call and copy"
    # 3211264 B / 403 us = 7.968 GB/s, above the baseline's pageable 5.81 GB/s at 3.06 MiB (5 GB/s at
    # 1 MiB, 8 at 64 MiB: 5 + 3 x ln(3.0625)/ln(64) = 5.807): never published as a fraction above 1.
    assert row["achieved_GB/s"] == pytest.approx(BATCH_BYTES / 403e-6 / 1e9)
    assert row["ceiling_GB/s"] == pytest.approx(5.8074, abs=1e-4)
    assert row["fraction_of_ceiling"] is None and "the ceiling is wrong" in row["ceiling_problem"]


def test_a_pageable_copy_without_its_call_is_a_short_measurement(tmp_path):
    p = Program()
    for i in range(5):  # the DMA record alone: 4 MiB in 400 µs = 10.5 GB/s, above pageable 6.0 at 4 MiB
        p.copy(1000 * i, 400, 4 * MiB, call=None, async_api=True)
    a, *_ = run(tmp_path, p)
    (row,) = a.classes
    assert row["timed_by"] == "copy record" and row["fraction_of_ceiling"] is None
    assert "timed by CUPTI's DMA record alone" in row["ceiling_problem"]


def test_a_copy_queued_behind_kernels_is_not_charged_for_them(tmp_path):
    p = Program()
    p.kernel(0, 500)  # the stream is busy until 500
    p.copy(500, 100, MiB, call_at=(10, 20))  # a pageable copy issued at 10, queued behind the kernel
    p.sync(20, 600)
    a, *_ = run(tmp_path, p)
    # From the call (10) to the copy's end (600), less the 490 us the kernel held the stream: 100 us.
    assert a.copies[0].cost == 100_000


# --- where the GPU's idle time goes ------------------------------------------------------

def test_the_tutorials_idle_gpu_waits_for_its_input_pipeline(tmp_path):
    _, idle, _, _ = run(tmp_path, tutorial_h200(STEPS))
    causes = idle["by_cause_s"]
    # Each step the GPU idles from the read's end (2652) through the next batch's build
    # (2000 us of host work with no CUDA call) until the images' DMA starts 152 us into its
    # call, and 2 and 5 us before the labels' and weights' copy calls: 2007 x 19 steps. The
    # idle before the first step ends (the first read's sync, 2655) is outside the steps:
    # 16 + 18 + 19 us between the copies and the first kernel, 9 x 10 between kernels, 3 after
    # the read = 146 us.
    assert causes["input_pipeline"] == pytest.approx(19 * 2007 * US)
    assert causes["outside_steps"] == pytest.approx(146 * US)
    assert max(causes, key=causes.get) == "input_pipeline"
    # The staging before each DMA starts: 152 us of the call x 19, and the small copies' calls.
    assert causes["copy_call"] > 19 * 152 * US
    # Inside launch calls the GPU waited 5 us x 10 launches x 19 steps.
    assert causes["launching"] == pytest.approx(19 * 50 * US)
    assert idle["unattributed_s"] == 0
    assert sum(causes.values()) == pytest.approx(idle["gpu_idle_s"])


def test_the_well_written_loops_idle_gpu_waits_for_python(tmp_path):
    a, idle, _, found = run(tmp_path, well_written_h200(STEPS))
    causes = idle["by_cause_s"]
    # The gather (100 us a step, with no GPU work in flight) after the first step, whose gather
    # comes before the first GPU record: 19 x 100 us.
    assert causes["input_pipeline"] == pytest.approx(19 * 100 * US)
    assert max(causes, key=causes.get) == "host"  # Python between the launches
    assert found == []


# --- the step model and what each fix saves -------------------------------------------------

def test_the_tutorials_steps_are_cut_at_its_reads(tmp_path):
    _, _, model, _ = run(tmp_path, tutorial_h200(STEPS))
    s = model.summary()
    assert s["steps"] == STEPS - 1 and s["per_step_reads"] and s["batches"] == STEPS - 1
    per_step = {k: round(v * 1e3, 6) for k, v in s["per_step_ms"].items()}  # us
    # H: of O's 200 us, the 145 outside CUDA calls (less 50 of launches and the read's 5 us call);
    # X: from the first launch's start (2450) to the last's end (2635), launches and Python
    assert per_step == {"T": 2655, "B": 2007, "L_pg": 408, "L_pin": 0, "S": 30, "R": 10, "R_sync": 0, "O": 200,
                        "H": 145, "L_idle": 50, "launch_calls": 50, "X": 185, "G": 357}


def test_each_fix_alone_and_all_together(tmp_path):
    _, _, model, _ = run(tmp_path, tutorial_h200(STEPS))
    n = STEPS - 1
    # workers: the build (2007 us) becomes taking a batch of 3 tensors over from the workers at
    # 1000 us a batch and 290 us a tensor (1870 us): 137 us a step. Little, as on the H100, where
    # workers alone saved 1.8 s of 11.4.
    assert model.saving_s({"workers"}) == pytest.approx(n * 137 * US)
    # pin with num_workers=0: the 408 us of call and wait become pinning 3211264 B on the thread
    # at 10 GB/s (321.126 us), and the small copies lose their waits (30 -> 20): 96.874 us.
    assert model.saving_s({"pin"}) == pytest.approx(n * 96.874 * US)
    # pack: the two extra copies' calls and waits: 30 us. item: the 10 us read wait, hidden
    # behind the next build, and the read's 5 us call.
    assert model.saving_s({"pack"}) == pytest.approx(n * 30 * US)
    assert model.saving_s({"item"}) == pytest.approx(n * 15 * US)
    # graph: X's 185 us become a replay and a copy into its inputs, two 5 us launch calls (O:
    # 200 -> 25), and the read then waits for all the step's GPU work after the one launch,
    # the GPU's 357 us less the images' 251 us pageable DMA (R: 10 -> 106): 79 us a step.
    assert model.saving_s({"graph"}) == pytest.approx(n * 79 * US)
    assert model.saving_s({"overlap"}) == 0
    # workers and pin: the pin thread takes the batches over (the training thread waits 300 us:
    # 300 + 20 of the small copies' calls + 200 + 10 = 530 us of its own), but the two share the
    # GIL: the pin thread holds it 560 us a batch, 310 a tensor (930) and 321.126 us pinning,
    # 1811.126 us, and the training thread 145 us: 1956.126 us a step, 698.874 saved, far more
    # than the two alone (233.874).
    assert model.saving_s({"workers", "pin"}) == pytest.approx(n * 698.874 * US)
    # Everything: pack leaves the pin thread one tensor (560 + 310 + 321.126 = 1191.126 us), the
    # training thread 300 + 30 (O less X, the read's call, plus the replay's 10) of its own; the
    # GIL: the training thread's 145 less X's 135 of it, 10 + 1191.126 = 1201.126 us a step,
    # above the GPU's 357 - 251 + 114.387 (the images' DMA at the pinned 28.07 GB/s) = 220.4 us:
    # 1453.874 us saved.
    assert model.saving_s(FIXES) == pytest.approx(n * 1453.874 * US)


def test_a_hand_over_measured_here_prices_workers_and_pack_by_the_batch(tmp_path):
    """tools/handover_probe.py measured, for batches of the recorded shape: 1500 µs a batch as
    sent (3 tensors), 1200 µs packed as one (the pages are still faulted in), 250 µs with
    pin_memory."""
    measured = Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "measured here by the probe")
    p = tutorial_h200(STEPS)
    p.write(tmp_path)
    _, _, model, found = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()),
                                     lambda shape, *_: measured if shape == measured.tensor_bytes else FITTED)
    n = STEPS - 1
    assert model.batch_shape == (BATCH_BYTES, 8192, 4096) and model.handover is measured
    # workers: the build (2007 us) becomes one batch's hand-over, 1500 us: 507 us a step (the
    # constants said 3 x 650 = 1950 us, 57 us saved).
    assert model.saving_s({"workers"}) == pytest.approx(n * 507 * US)
    # workers and pack: 1200 us a batch, and the 30 us of extra copies gone: 837 us.
    assert model.saving_s({"workers", "pack"}) == pytest.approx(n * 837 * US)
    # workers and pin: the training thread waits 250 us a batch (480 us of its own with the small
    # copies' 20, the rest's 200 and the read's 10); the pin thread was not measured: its GIL time
    # is the constants' 560 us a batch and 310 a tensor with the 321.126 us pinning copy
    # (1811.126), beside the training thread's 145: 1956.126 us, 698.874 saved.
    assert model.saving_s({"workers", "pin"}) == pytest.approx(n * 698.874 * US)
    pipeline = next(f for f in found if f["id"] == "input_pipeline")
    assert "1.5 ms to take over" in pipeline["assumption"] and "1.2 ms packed as one tensor" in \
        pipeline["assumption"] and "250 µs a batch with pin_memory" in pipeline["assumption"]
    assert "measured here by the probe" in pipeline["assumption"]
    assert model.summary()["handover"]["measured"] is True


def test_a_pin_thread_measured_here_replaces_the_constants(tmp_path):
    """The probe also measured the pin thread's GIL time a batch: 120 µs. It replaces the constants
    (PIN_THREAD_BATCH_S, PIN_THREAD_TENSOR_S and the pinning copy), and where the two threads' GIL
    time is less than the training thread's own path, the step is that path."""
    measured = Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "measured here by the probe",
                        pin_thread_batch_s=120e-6)
    p = tutorial_h200(STEPS)
    p.write(tmp_path)
    _, _, model, found = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: measured)
    n = STEPS - 1
    # workers and pin: 250 us waiting for the pin thread, the small copies' calls (20), the rest
    # (200) and the read (10): 480 us a step, above the GIL's 145 + 120: 2175 saved.
    assert model.saving_s({"workers", "pin"}) == pytest.approx(n * 2175 * US)
    assert model.batch_wait_s({"workers", "pin"}) == pytest.approx(n * 250 * US)
    # workers alone does not touch the pin thread: 507 us, as with the share.
    assert model.saving_s({"workers"}) == pytest.approx(n * 507 * US)
    assert model.summary()["handover"]["pin_thread_batch_s"] == 120e-6
    pipeline = next(f for f in found if f["id"] == "input_pipeline")
    assert "its pin thread holding the GIL 120 µs a batch, which the training thread shares" in pipeline["assumption"]
    assert "560 µs a batch" not in pipeline["assumption"]  # the constants' figure, where nothing was measured


def test_the_pin_threads_own_pace_bounds_the_step_and_the_wait_is_for_the_batch(tmp_path):
    """The probe's pin_cycle_batch_s: the pin thread hands a batch over no faster than that, so
    no step it feeds is shorter; the training thread spends the difference waiting for its batch.
    Packed, it is scaled as packing scales the pin thread's GIL time."""
    p = tutorial_h200(STEPS)
    p.write(tmp_path)
    handover = Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe",
                        pin_thread_batch_s=120e-6, packed_pin_thread_batch_s=60e-6, pin_cycle_batch_s=1000e-6)
    model = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: handover)[2]
    n = STEPS - 1
    # own path 480 us, the GIL 145 + 120 = 265, the pin thread's pace 1000: 1000 us a step, 1655
    # saved; the training thread waits 250 + (1000 - 480) = 770 us a step for its batches.
    assert model.saving_s({"workers", "pin"}) == pytest.approx(n * 1655 * US)
    assert model.batch_wait_s({"workers", "pin"}) == pytest.approx(n * 770 * US)
    # the 520 us the pin thread adds may be spent waiting for batches or in the training thread's
    # own work: the batch wait without it (the probe's 250 us hand-over, unslowed) is kept beside
    assert model.own_batch_wait_s({"workers", "pin"}) == pytest.approx((n * 250 * US, n * 250 * US))
    assert model.unslowed_s({"workers", "pin"}) == pytest.approx((n * 1000 * US, n * 1000 * US))
    summary = model.summary()
    assert summary["own_batch_wait_with_s"]["pin+workers"] == pytest.approx([n * 250 * US, n * 250 * US])
    assert "workers" not in summary["own_batch_wait_with_s"]  # no pin thread: nothing to place
    # packed, the pace is 1000 x 60 / 120 = 500 us against an own path of 460: 2155 saved.
    assert model.saving_s({"workers", "pin", "pack"}) == pytest.approx(n * 2155 * US)
    # workers alone has no pin thread: 507 us, as without the pace
    assert model.saving_s({"workers"}) == pytest.approx(n * 507 * US)
    # the pace measured packed (a probe since 2026-11-28's eighth session), 900 us: 1755 saved,
    # where the scaling said 2155; unpacked, the pace is the unpacked one still
    measured = Handover(**{**handover.__dict__, "packed_pin_cycle_batch_s": 900e-6})
    model = analyse_all_of(tmp_path / "packed", p, measured)[2]
    assert model.saving_s({"workers", "pin", "pack"}) == pytest.approx(n * 1755 * US)
    assert model.saving_s({"workers", "pin"}) == pytest.approx(n * 1655 * US)
    assert model.summary()["handover"]["packed_pin_cycle_batch_s"] == 900e-6
    assert handover_of(model.summary()["handover"]) == measured  # kept and read back as measured


def test_packed_the_pin_thread_costs_what_one_tensor_a_batch_costs_it(tmp_path):
    """With pack the pin thread pins one tensor a batch: its cost to the training thread is the
    probe's packed measurement, or where a probe older than it gave none, the measured cost
    scaled as packing scales the hand-over (1200 / 1500 µs). Seen on an H100: the model that
    kept the three-tensor cost under pack priced every habit fixed 37% under the measured saving."""
    p = tutorial_h200(STEPS)
    p.write(tmp_path)
    n = STEPS - 1

    def model_with(handover):
        return analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: handover)[2]

    scaled = model_with(Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe",
                                 pin_thread_batch_s=600e-6))
    # The training thread's own path: 250 us waiting for the pin thread, no extra copies with
    # pack, the rest (200) and the read (10): 460 us. The GIL: its 145 us and the pin thread's
    # 480 (600 x 1200 / 1500): 625 us a step where 2655 were, 2030 saved.
    assert scaled.saving_s({"workers", "pin", "pack"}) == pytest.approx(n * 2030 * US)
    packed = model_with(Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe",
                                 pin_thread_batch_s=600e-6, packed_pin_thread_batch_s=400e-6))
    assert packed.saving_s({"workers", "pin", "pack"}) == pytest.approx(n * 2110 * US)  # 145 + 400
    assert packed.saving_s({"workers", "pin"}) == pytest.approx(n * 1910 * US)  # not packed: 145 + 600
    summary = packed.summary()
    assert summary["handover"]["packed_pin_thread_batch_s"] == 400e-6
    # every combination of the example's habits is priced together, under its sorted name
    assert summary["saving_with_s"]["pack+pin+workers"] == pytest.approx(n * 2110 * US)
    # the habits tutorial_style.py fixes, two or more at a time: of the five data habits this
    # recording prices, 10 + 10 + 5 + 1 (gc is priced only where Python's collections were
    # timed), and all of them with the graph's (--fix all where gc is not priced)
    assert len(summary["saving_with_s"]) == 27 and "gather+item+pack+pin+workers" in summary["saving_with_s"]
    assert "gather+graph+item+pack+pin+workers" in summary["saving_with_s"]
    assert "gc" not in summary["saving_alone_s"] and summary["collections_timed"] is False


def test_batches_built_sample_by_sample_are_priced_against_one_gather(tmp_path):
    """The probe measured gathering a batch of the recorded shape whole (one index_select a
    tensor, 1024 rows) at 300 µs. The tutorial builds each in 2007 us: gathering them saves
    1707 µs a step alone, the largest fix; pinning then adds what it adds on its own. Workers,
    which alone save 507 µs (the 1500 µs hand-over), would undo the gather (the batches come
    through the worker queue again): left out, with what it saves alone."""
    measured = Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe", gather_batch_s=300e-6,
                        gather_rows=1024)
    p = tutorial_h200(STEPS)
    p.write(tmp_path)
    a, _, model, found = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: measured)
    n = STEPS - 1
    assert model.saving_s({"gather"}) == pytest.approx(n * 1707 * US)
    assert model.saving_s({"gather", "workers"}) == pytest.approx(model.saving_s({"workers"})) == \
        pytest.approx(n * 507 * US)
    # gather and pin: 300 + 321.126 (pinning on the thread) + 20 + 200 + 10 = 851.126 us a step, 1803.874 saved
    assert model.saving_s({"gather", "pin"}) == pytest.approx(n * 1803.874 * US)
    assert [(f["id"], f["fix"]) for f in found] == [("per_sample_batches", "gather"), ("pageable_to_pinned", "pin"),
                                                    ("launch_bound", "graph"), ("drop_blocking_reads", "item")]
    gather, pin, graph, item = found
    assert gather["saving_s"] == gather["saving_alone_s"] == pytest.approx(n * 1707 * US)
    assert pin["saving_s"] == pytest.approx(n * 96.874 * US)
    # then the graph: X's 185 us become 10 (O 200 -> 25), the read waits 106 us, not 10: 79 us.
    # The read, alone 15 us, then hides those 106 us and its call's 5 behind the next step's
    # 661 us of host work: it adds 111.
    assert graph["saving_s"] == pytest.approx(graph["saving_alone_s"]) == pytest.approx(n * 79 * US)
    assert item["saving_s"] == pytest.approx(n * 111 * US)
    assert "2.0 ms to get each batch, where gathering a batch whole on it takes 300 µs here" in gather["what"]
    # the probe's 1.5 ms hand-over is within twice the 2.0 ms wait: the workers may be what it is
    assert "or takes them over from DataLoader workers, which costs about as much: 1.5 ms a batch here" \
        in gather["what"] and "with no workers (num_workers=0)" in gather["advice"]
    assert "1024 random rows a batch" in gather["assumption"] and "index_select" in gather["advice"]
    section = profile_section(["python3", "t.py"], 0, None, 1.0, read_recording(tmp_path), {}, baseline_report(),
                              None, handover_for=lambda *_: measured)
    (workers,) = section["findings_left_out"]
    assert workers["id"] == "input_pipeline" and workers["saving_alone_s"] == pytest.approx(n * 507 * US)
    # workers beside the findings (pin, gather in the workers, the graph, no read): 10 us of the
    # training thread's GIL (145 less the graph's 135) and the pin thread's (not measured: 560 +
    # 3 x 310 + 321.126 us), 1821.126 us a step where the findings leave 661.126: it would cost time
    assert workers["saving_added_s"] == pytest.approx(n * (661.126 - 1821.126) * US)
    handover = section["model"]["handover"]
    assert handover["gather_batch_s"] == 300e-6 and handover["gather_rows"] == 1024


def test_a_packed_batchs_gather_says_the_rows_the_probe_cut_it_into():
    """A batch sent as one tensor (--fix pack: 256 samples of 3,144 B) does not say how many
    samples it holds: the probe gathered it as 192 rows of 4,192 B, and the assumption says so
    rather than "192 random rows a batch" beside the program's 256."""
    packed = gather_text(Handover(tensor_bytes=(804864,), gather_batch_s=69e-6, gather_rows=192))
    assert "the batch's 804,864 B as 192 random rows of 4,192 B (one tensor a batch does not say how " \
           "many samples it holds)" in packed
    parts = gather_text(Handover(tensor_bytes=(802816, 2048, 1024), gather_batch_s=69e-6, gather_rows=256))
    assert "256 random rows a batch, out of 256 MiB" in parts and "does not say" not in parts


def test_a_wait_far_from_a_workers_hand_over_is_not_said_to_be_one(tmp_path):
    """The H100's `--fix all` of 2026-11-28b waited 305 µs a batch it took from its workers,
    gathered whole there, and was told only to gather whole. A wait within twice the hand-over
    the probe measured may be that hand-over, and the advice says what to do then; the
    tutorial's 2007 µs per-sample build beside a 300 µs hand-over is not said to be one."""
    far = Handover(300e-6, 250e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe", gather_batch_s=300e-6,
                   gather_rows=1024)
    program = tutorial_h200(STEPS)
    program.write(tmp_path)
    from hdreport.profile.findings import handover_like_build_s, what_and_evidence

    _, _, model, _ = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: far)
    what, _ = what_and_evidence("gather", model, None, {"by_cause_s": {}})
    assert "sample by sample" in what and "DataLoader workers" not in what
    assert handover_like_build_s(model) is None  # and so no num_workers=0 in the advice


def forked_tutorial(folder: Path, workers: int | None, parent_said: bool = True):
    """tutorial_h200's recording with the site hook's files: its own (saying its parent where
    `parent_said`) and, with `workers`, a one-line file a forked worker wrote at its fork."""
    p = tutorial_h200(STEPS)
    folder.mkdir()
    p.write(folder)
    header = {"type": "pygc", "pid": p.pid, "clock": "monotonic", **({"parent": 1} if parent_said else {})}
    (folder / f"pygc-{p.pid}.jsonl").write_text(json.dumps(header) + "\n")
    for k in range(workers or 0):
        (folder / f"pygc-{90000 + k}.jsonl").write_text(
            json.dumps({"type": "pygc", "pid": 90000 + k, "parent": p.pid, "clock": "monotonic"}) + "\n")
    (folder / "pygc-89999.jsonl").write_text(  # another process's child: not this one's worker
        json.dumps({"type": "pygc", "pid": 89999, "parent": 7, "clock": "monotonic"}) + "\n")
    return read_recording(folder)


def test_the_workers_a_program_forked_are_read_from_their_first_lines(tmp_path):
    assert forked_tutorial(tmp_path / "three", 3).processes[0].forked == 3
    assert forked_tutorial(tmp_path / "none", 0).processes[0].forked == 0
    # an older hook's file says no parent: whether it had workers is not known
    assert forked_tutorial(tmp_path / "older", 2, parent_said=False).processes[0].forked is None


def test_a_program_with_workers_is_told_to_gather_without_them(tmp_path):
    """The recording says the tutorial's process forked 3 workers: its 2.0 ms batch wait is their
    hand-over (1.5 ms a batch here), not a per-sample build, and the advice is to gather on the
    training thread with no workers. A program that forked none is not told of workers, though
    its wait is within twice the hand-over."""
    from hdreport.profile.findings import what_and_evidence

    measured = Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe", gather_batch_s=300e-6,
                        gather_rows=1024)
    _, _, model, found = analyse_all(forked_tutorial(tmp_path / "workers", 3), Ceilings(baseline_report()),
                                     lambda shape, *_: measured)
    assert model.forked == 3 and model.summary()["forked"] == 3
    gather = next(f for f in found if f["fix"] == "gather")
    assert "it takes them over from the 3 Python processes it forked (its DataLoader workers), which costs 1.5 " \
           "ms a batch here" in gather["what"] and "sample by sample" not in gather["what"]
    assert "its batches come from DataLoader workers: gather on the training thread instead" in gather["advice"]
    # had more workers been priced, they would be more of them
    assert "it forked 3 Python processes (DataLoader workers), which did not keep up" in \
        what_and_evidence("workers", model, None, {"by_cause_s": {"input_pipeline": 0.5}})[0]
    _, _, model, _ = analyse_all(forked_tutorial(tmp_path / "alone", 0), Ceilings(baseline_report()),
                                 lambda shape, *_: measured)
    what, _ = what_and_evidence("gather", model, None, {"by_cause_s": {}})
    assert model.forked == 0 and "sample by sample" in what and "DataLoader workers" not in what
    _, _, model, _ = analyse_all(forked_tutorial(tmp_path / "older", None, parent_said=False),
                                 Ceilings(baseline_report()), lambda shape, *_: measured)
    assert model.forked is None and "forked" not in model.summary()  # not known: not said


def test_a_batch_built_near_a_gathers_cost_is_not_per_sample(tmp_path):
    """Without the probe a gather is priced at GATHER_GBPS: the tutorial's batch (images, labels
    and weights, 3,223,552 B) at 2.56 GB/s is 1259.2 µs, and its 2007 µs build is under three times that: no per_sample_batches
    finding (a program's gathers run slower than the probe's, up to well_written.py's 0.52 ms
    on an H200 host where an H100 host took 0.31). The well-written loop's 100 µs gathers
    against a probe's 60 µs likewise."""
    _, _, model, found = run(tmp_path, tutorial_h200(STEPS))
    assert model.handover.gather_batch_s is None
    assert model.saving_s({"gather"}) == pytest.approx((STEPS - 1) * (2007 - 3223552 / 2.56e3) * US)
    assert "per_sample_batches" not in {f["id"] for f in found}
    well = tmp_path / "well"
    well.mkdir()
    well_written_h200(STEPS).write(well)
    probe = Handover(1e-3, 1e-3, gather_batch_s=60e-6, gather_rows=256)
    _, _, model, found = analyse_all(read_recording(well), Ceilings(baseline_report()), lambda shape, *_: probe)
    assert model.saving_s({"gather"}) > 0 and found == []


def test_the_hand_over_is_asked_only_of_a_program_that_built_batches_itself(tmp_path):
    asked = []
    well_written_h200(STEPS).write(tmp_path)
    analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: asked.append(shape) or FITTED)
    # The well-written loop gathers each batch (100 us, input-pipeline time) and sends it in one
    # packed copy of 804864 B: asked once, with that batch.
    assert asked == [(804864,)]
    empty = tmp_path / "empty"
    empty.mkdir()
    Program().write(empty)
    asked.clear()
    analyse_all(read_recording(empty), Ceilings(baseline_report()), lambda shape, *_: asked.append(shape) or FITTED)
    assert asked == []


def test_findings_add_up_and_are_ranked_by_their_saving_alone(tmp_path):
    a, _, model, found = run(tmp_path, tutorial_h200(STEPS))
    n, span = STEPS - 1, a.totals["span_s"]
    # workers alone 137, pin alone 96.874, graph alone 79, pack alone 30 (under 2% of the span:
    # 53.6 us a step), but each adds more to the others, so all four are kept; item adds nothing
    # then (the pin thread's GIL sets the step), overlap nothing.
    assert [f["id"] for f in found] == ["input_pipeline", "pageable_to_pinned", "launch_bound", "pack_small_copies"]
    workers, pin, graph, pack = found
    # the graph after workers and pin: the training thread's share of the GIL 145 -> 10 us
    assert graph["saving_s"] == pytest.approx(n * 135 * US)
    assert workers["saving_alone_s"] == pytest.approx(n * 137 * US) == pytest.approx(workers["saving_s"])
    assert pin["saving_alone_s"] == pytest.approx(n * 96.874 * US)
    assert pin["saving_s"] == pytest.approx(n * (698.874 - 137) * US)
    assert pack["saving_alone_s"] == pytest.approx(n * 30 * US)
    # pin, workers, graph and pack: the training thread's own 300 + 25 + 106 = 431 us under the
    # GIL's 10 + 1191.126 (the pin thread's 560 + 310 + 321.126): 1201.126 us a step, 1453.874
    # saved, 620 of it added by pack.
    assert pack["saving_s"] == pytest.approx(n * 620 * US)
    assert sum(f["saving_s"] for f in found) == pytest.approx(n * 1453.874 * US)
    assert n * 1453.874 * US <= span
    # Build 2007 us a batch against 648 us for the rest of a step: 4 workers keep up, one spare.
    assert "num_workers=5" in workers["advice"] and "pin_memory=True" in workers["advice"]
    assert "290 µs a tensor to take over" in workers["assumption"] and "host memcpy" in pin["assumption"]
    assert "GIL 560 µs a batch and 310 µs a tensor" in workers["assumption"]
    for f in found:
        assert f["what"].endswith(".") and f["evidence"].endswith(".") and f["assumption"].endswith(".")


def test_pinning_alone_is_priced_at_the_staging_without_a_memcpy_rate(tmp_path):
    base = baseline_report()
    base["benchmarks"] = [b for b in base["benchmarks"] if b["params"].get("family") != "host_memcpy"]
    tutorial_h200(STEPS).write(tmp_path)
    _, _, model, found = analyse_all(read_recording(tmp_path),
                                                     Ceilings(base))
    # Pinning on the thread costs what the 403 us call did: 408 - 403 + 10 (the small waits) = 15 us.
    assert model.saving_s({"pin"}) == pytest.approx(19 * 15 * US) and model.pin_rate_source == ""
    # With workers the pin thread holds the GIL 560 + 3 x 310 us and pins (403 us): 1893 us, with
    # the training thread's 145 us, 2038 us of 2655 (its own path is 530): 617 us saved.
    assert model.saving_s({"workers", "pin"}) == pytest.approx(19 * 617 * US)
    pin = next(f for f in found if f["fix"] == "pin")
    assert "what the driver's staging took" in pin["assumption"]


def test_item_on_a_gpu_bound_loop(tmp_path):
    p = Program()
    for i in range(12):  # steps of 1200 us: build 300, a pinned async copy, a launch, the read waits 835 us
        t = 1200 * i
        p.copy(t + 305, 50, MiB, host="pinned", call_at=(t + 300, t + 305))
        p.kernel(t + 355, 800, launch=(t + 310, t + 315))
        p.copy(t + 1156, 2, 4, direction="DtoH", host="pinned", call_at=(t + 320, t + 325))
        p.sync(t + 325, t + 1160)
        p.api(t + 1190, t + 1200, "cudaMemsetAsync")  # something at the end of the step
    a, _, model, found = run(tmp_path, p)
    # A modelled step, from one read's end to the next: 30 us of host work and the 10 us memset,
    # the 300 us build (input), the copy call, launch and read call with 5 us of host work
    # between each (O = 1200 - 300 - 835 = 65), the 835 us wait (R). GPU: 50 + 800 + 2 = 852 us.
    s = model.summary()["per_step_ms"]
    assert {k: round(s[k] * 1e3) for k in ("T", "B", "R", "O", "G")} == {"T": 1200, "B": 300, "R": 835, "O": 65,
                                                                          "G": 852}
    # No blocking copy is left, so without the read the host runs ahead through its whole step
    # (300 + 65 = 365 us) and the wait shrinks to 470 us: 835 us a step, but the GPU's 852 us
    # bound it: 1200 - 852 = 348 us a step, over 11 steps.
    assert model.saving_s({"item"}) == pytest.approx(11 * 348 * US)
    assert found[0]["id"] == "drop_blocking_reads"


def test_a_pinned_blocking_copy_is_an_overlap_finding(tmp_path):
    p = Program()
    for i in range(12):  # .to(device) from pinned memory without non_blocking: the host waits 100 us
        t = 1000 * i
        p.copy(t + 5, 100, 4 * MiB, host="pinned", call_at=(t, t + 5))
        p.sync(t + 5, t + 106)
        p.kernel(t + 120, 700, launch=(t + 110, t + 115))
        p.copy(t + 822, 2, 4, direction="DtoH", host="pinned", call_at=(t + 120, t + 125))
        p.sync(t + 125, t + 825)
        p.api(t + 825, t + 1000, "cudaFree")  # the rest of the step in a call (no host work to hide)
    _, _, model, found = run(tmp_path, p)
    assert round(model.summary()["per_step_ms"]["L_pin"] * 1e3) == 101
    assert model.saving_s({"overlap"}) == pytest.approx(11 * 101 * US)
    assert "overlap_copies" in {f["id"] for f in found}


def test_a_well_written_loop_marked_in_steps_is_launch_bound(tmp_path):
    """well_written.py's loop as the H200 recorded it, each step in its NVTX range: the GPU
    busy 155 µs of each 1000, the rest the Python between 12 launches (X = 774 µs)."""
    _, _, model, found = run(tmp_path, well_written_h200(STEPS, ranges=True))
    assert model.steps_cut_at == "range step #" and len(model.steps) == STEPS
    # X's 774 µs become two 4 µs launch calls: the host's step 100 (the gather) + 900 - 774 + 8
    # = 234 µs, above the GPU's 155: 766 µs a step. No read: the steps do not wait for the GPU.
    assert model.saving_s({"graph"}) == pytest.approx(STEPS * 766 * US)
    assert [f["id"] for f in found] == ["launch_bound"] and "CUDA graph" in found[0]["advice"]
    assert found[0]["saving_s"] == pytest.approx(STEPS * 766 * US)
    assert "8 µs a step" in found[0]["assumption"] and "774 µs a step" in found[0]["what"]


def test_the_graph_priced_at_the_probes_replay(tmp_path):
    """Where the probe replayed a graph (CUDA there): 50 µs a batch to copy the batch into its
    input and replay it, in place of two of the step's 4 µs launch calls."""
    well_written_h200(STEPS, ranges=True).write(tmp_path)
    replayed = Handover(source="the probe", graph_replay_batch_s=50e-6)
    _, _, model, found = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: replayed)
    # the host's step 100 + 900 - 774 + 50 = 276 µs, above the GPU's 155: 724 µs a step saved
    assert model.saving_s({"graph"}) == pytest.approx(STEPS * 724 * US)
    assert "measured here at 50 µs a step (tools/handover_probe.py" in found[0]["assumption"]
    assert model.summary()["handover"]["graph_replay_batch_s"] == 50e-6


def test_a_loop_replayed_as_a_graph_is_not_launch_bound(tmp_path):
    """well_written.py as it is now: one cudaGraphLaunch a step, its kernels carrying the
    launch's correlation. A graph of it leaves what it has: nothing to save, nothing found."""
    a, _, model, found = run(tmp_path, well_written_graphed(STEPS))
    assert model.steps_cut_at == "range step #" and len(model.steps) == STEPS
    per_step = model.summary()["per_step_ms"]
    assert round(per_step["X"] * 1e3, 6) == 6 and round(per_step["B"] * 1e3, 6) == 100
    assert round(per_step["G"] * 1e3, 6) == 167  # the copies' DMA (45 + 2) and the graph's 120
    assert model.saving_s({"graph"}) == 0 and found == []


def test_a_marked_loop_that_logs_every_few_steps_is_cut_at_its_marks(tmp_path):
    """well_written.py --log-every 4 over 40 steps: 10 reads, as many as a loop reading every
    step would need, but 40 marked iterations, four times the reads. Cut at the reads, a step
    would be 4 iterations; cut at the marks, each read sits inside the step that logs it."""
    _, _, model, found = run(tmp_path, well_written_h200(40, ranges=True, log_every=4))
    assert model.steps_cut_at == "range step #" and len(model.steps) == 40
    assert model.summary()["per_step_reads"] is False and model.total("R") == 0
    # the graph as before: 766 µs a step, the reads' 15 µs staying in the steps that log
    assert model.saving_s({"graph"}) == pytest.approx(40 * 766 * US)
    assert [f["id"] for f in found] == ["launch_bound"]


def test_a_loop_not_cut_into_steps_has_no_step_to_graph(tmp_path):
    """The same loop without its ranges: one stretch of the whole run, which no graph captures."""
    _, _, model, found = run(tmp_path, well_written_h200(STEPS))
    assert model.steps_cut_at == "" and found == []


def test_a_gpu_bound_loop_is_not_launch_bound(tmp_path):
    """Steps marked by ranges whose kernels outlast their launches: a graph frees the host, but
    the GPU sets the step: it saves only the 10 µs the GPU idles a step, under the floor."""
    p = Program()
    for step in range(STEPS):
        t = 1000 * step
        p.range(t, t + 990, f"step {step}")
        for k in range(10):  # 5 µs launch calls 10 µs apart; 99 µs kernels back to back from 10 to 1000
            p.kernel(t + 10 + 99 * k, 99, launch=(t + 10 * k, t + 10 * k + 5))
    _, _, model, found = run(tmp_path, p)
    # X 95 µs (0-95) -> two 5 µs launch calls: the host's step 1000 - 95 + 10 = 915 µs, the GPU's 990
    assert model.saving_s({"graph"}) == pytest.approx(STEPS * 10 * US) and found == []


@pytest.mark.parametrize("make", [tutorial, well_written, tutorial_h200, well_written_h200])
def test_savings_never_exceed_the_span(tmp_path, make):
    a, _, model, found = run(tmp_path, make())
    assert sum(f["saving_s"] for f in found) <= a.totals["span_s"]
    assert model.saving_s(FIXES) <= a.totals["span_s"]
    for f in found:
        assert 0 <= f["saving_s"] and 0 < f["saving_alone_s"] <= a.totals["span_s"]


def test_the_summary_answers_with_the_savings_together_and_the_idle_gpus_causes(tmp_path):
    from hdreport.profile.summary import sections
    tutorial_h200(STEPS).write(tmp_path)
    base = baseline_report()
    baseline = baseline_section("b.json", "given", base, "", "synthetic")
    section = profile_section(["python3", "tutorial_style.py"], 0, None, 1.0,
                                             read_recording(tmp_path), baseline, base, None)
    report = make_report(section, base, [], "2026-11-26T00:00:00+0000", "x")
    parts = {key: lines for key, _, lines, _ in sections([("p.json", report)])}
    answer = "\n".join(parts["profile"])
    # 19 x 1453.874 us together, of the 50.945 ms span (first DMA at 2152 us to the last read's end).
    assert "4 changes would save **27.6 ms (54.2%)** of the program's 50.9 ms span together" in answer
    assert "Build batches off the training thread" in answer and "Assumes: Enough workers keep up" in answer
    # pinning pays more once workers build the batches: what a finding adds above its price alone leads
    assert "saves **10.7 ms, 21.0% of the span, once the changes above it are made** (1.84 ms alone)" in answer
    idle = "\n".join(parts["profile-idle"])
    first_row = next(line for line in idle.splitlines() if line.startswith("| the host's input pipeline"))
    assert "38.1 ms" in first_row
    assert "above it: see below" in "\n".join(parts["profile-copies"])  # 7.97 GB/s over a 5.81 GB/s ceiling


def test_a_profile_is_made_again_from_its_kept_records(tmp_path):
    tutorial_h200(STEPS).write(tmp_path)
    base = baseline_report()
    recording = read_recording(tmp_path)
    baseline = baseline_section("b.json", "given", base, "", "synthetic")
    section = profile_section(["python3", "t.py"], 0, None, 2.5, recording, baseline, base, None)
    section["findings"] = []  # as an older model might have said
    old = make_report(section, base, [], "2026-11-26T00:00:00+0000", "x")
    again = reanalysed(old, recording, base)
    assert [f["id"] for f in again["profile"]["findings"]] == ["input_pipeline", "pageable_to_pinned",
                                                               "launch_bound", "pack_small_copies"]
    assert again["profile"]["wall_s"] == 2.5 and again["profile"]["command"] == ["python3", "t.py"]
    assert "reanalysed" in again["context"]["hdbench"] and old["profile"]["findings"] == []


def test_a_read_whose_copy_beat_its_synchronize_still_ends_a_step(tmp_path):
    """On an H100 host 227 of the tutorial's 2,000 `.item()` copies ended before their
    cudaStreamSynchronize began (the GPU idle, waiting for the host): counted as no read,
    their steps merged into "stalls" of up to 300 calls. Every read ends a step."""
    p = Program()
    t = 0.0
    for i in range(STEPS):
        for k in range(5):
            p.kernel(t + 100 + 100 * k, 100, launch=(t + 10 * k, t + 10 * k + 5))
        if i % 3:  # the usual race: the sync waits for the step's kernels, then the read
            p.copy(t + 600, 2, 4, direction="DtoH", call_at=(t + 60, t + 61))
            p.sync(t + 61, t + 603)
        else:  # the read's copy done inside its call, 1 µs before the synchronize starts
            p.copy(t + 600, 2, 4, direction="DtoH", call_at=(t + 590, t + 603))
            p.sync(t + 604, t + 606)
        t += 1000
    a, _, model, _ = run(tmp_path, p)
    assert sum(c.is_blocking_read for c in a.copies) == STEPS
    assert len(model.steps) == STEPS - 1
    assert model.step_spread()["stalls"] == 0
    assert max(s.T for s in model.steps) < 1.01 * min(s.T for s in model.steps)


def marked_loop(steps: int, markers: bool = True) -> Program:
    """A loop with no per-step read (as well_written.py): 3 ms of set-up, then steps of
    1000 us: three launches (0-14 µs) of 100 µs kernels on the batch copied before, Python
    until an optimizer kernel's launch (600-605), the next batch built (605-995) and its
    pinned copy (call 995-996, DMA 997-1000); each step inside an NVTX range "step N" (its
    forward pass in a range of its own) when `markers`."""
    p = Program()
    p.kernel(-3000, 50, launch=(-3005, -3000))  # set-up: a warm-up kernel, then data loading
    t = 0.0
    for i in range(steps):
        if markers:
            p.range(t, t + 1000, f"step {i}")
            p.range(t, t + 15, "forward")
        for k in range(3):
            p.kernel(t + 20 + 100 * k, 100, launch=(t + 5 * k, t + 5 * k + 4))
        p.kernel(t + 610, 50, launch=(t + 600, t + 605))
        p.copy(t + 997, 3, 64 * 1024, host="pinned", call_at=(t + 995, t + 996))
        t += 1000
    return p


def test_a_loop_without_reads_is_cut_at_the_nvtx_ranges_marking_its_iterations(tmp_path):
    """With no per-step read, a loop whose iterations are marked by NVTX ranges is cut at
    their starts: each step priced on its own, and the set-up before the first left out."""
    _, idle, model, _ = run(tmp_path, marked_loop(STEPS))
    s = model.summary()
    assert s["steps"] == STEPS and not s["per_step_reads"] and s["steps_cut_at"] == "range step #"
    # each step: 1000 us; the batch built from the optimizer's launch to the copy call, 390 us;
    # the GPU busy 300 + 50 + 3 us
    assert {k: round(v * 1e3, 6) for k, v in s["per_step_ms"].items() if k in ("T", "B", "G")} == \
        {"T": 1000, "B": 390, "G": 353}
    assert model.window == (0, STEPS * 1000_000)
    # the GPU idle from the warm-up kernel's end (-2950 us) to the loop's start is set-up
    assert idle["by_cause_s"]["outside_steps"] == pytest.approx(2950 * US)
    assert s["step_spread"]["stalls"] == 0 and s["step_spread"]["median_ms"] == pytest.approx(1.0)


def test_without_reads_or_markers_a_loop_is_one_stretch(tmp_path):
    _, idle, model, _ = run(tmp_path, marked_loop(STEPS, markers=False))
    s = model.summary()
    assert s["steps"] == 1 and s["steps_cut_at"] == "" and model.window is None
    assert idle["by_cause_s"]["outside_steps"] == 0


def test_iteration_markers_are_one_name_repeated_never_overlapping_over_most_of_their_stretch():
    from hdreport.profile.steps import iteration_ranges

    steps = [(i * 1000, i * 1000 + 900, f"step {i}") for i in range(12)]
    assert iteration_ranges(steps) == ("step #", [(b, e) for b, e, _ in steps])
    forward = [(i * 1000 + 100, i * 1000 + 300, "forward") for i in range(12)]
    assert iteration_ranges(forward) is None  # 200 µs of every 1000: a part of the step
    assert iteration_ranges(forward + steps)[0] == "step #"  # the one that covers most
    assert iteration_ranges(steps[:9]) is None  # too few for a loop
    nested = [(b + 10, e - 10, "step") for b, e, _ in steps] + [(b, e, "step") for b, e, _ in steps]
    assert iteration_ranges(nested) is None  # a range inside one of its own name is no turn of a loop
    assert iteration_ranges([]) is None


def test_the_summary_says_where_the_steps_were_cut(tmp_path):
    from hdreport.profile.summary import model_lines

    model = {"steps": 20, "per_step_reads": False, "steps_cut_at": "range step #",
             "per_step_ms": {"T": 1.0, "B": 0.4}, "seconds": {"T": 0.02}}
    assert "20 steps, cut where the NVTX ranges that mark its iterations start (`step #`)" in \
        model_lines({"profile": {"model": model}})[0]
    model.update(steps=1, steps_cut_at="")
    assert "one stretch (no per-step blocking read or synchronize, or NVTX range" in \
        model_lines({"profile": {"model": model}})[0]


def loop_with_a_collection(tmp_path, with_collections: bool = True):
    """Steps of about 820 µs cut at their reads (500 µs building a batch, its pinned copy, a
    300 µs kernel, `.item()`), the 10th step's Python after the launch 20 ms longer, 15 ms of it
    a full garbage collection timed by tools/profile_site on CLOCK_MONOTONIC. The records'
    clock runs twice as fast as the monotonic one here (pairs (1000, 0) and (1000 + 1e8,
    2e8)), so the collection's monotonic times are half its records' times, plus 1000 ns."""
    p = Program()
    p.clock, p.clock_end = (1000, 0), (1000 + 10**8, 2 * 10**8)
    t = 0.0
    for i in range(STEPS):
        python = 20_000 if i == 10 else 0
        p.copy(t + 502, 2, 64 * 1024, host="pinned", call_at=(t + 500, t + 501))
        p.kernel(t + 510, 300, launch=(t + 502, t + 506))
        p.copy(t + python + 812, 1, 4, direction="DtoH", call_at=(t + python + 507, t + python + 508))
        p.sync(t + python + 508, t + python + 814)
        t += python + 820
    p.write(tmp_path)
    gc_start_us = 10 * 820 + 2_000  # in the 10th step's Python after its launch
    if with_collections:
        header = {"type": "pygc", "pid": p.pid, "clock": "monotonic"}
        full = {"generation": 2, "start_ns": 1000 + round(gc_start_us * 1000 / 2),
                "end_ns": 1000 + round((gc_start_us + 15_000) * 1000 / 2), "thread": 1, "collected": 9}
        memory = {"type": "memory", "rss_anon_bytes": 3 << 30}  # the eighth session's line: RssAnon at exit
        (tmp_path / f"pygc-{p.pid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (header, full, memory)))
        # a DataLoader worker's file (no records: it never used CUDA) is not read
        (tmp_path / "pygc-999999.jsonl").write_text(json.dumps(full) + "\n")
    return analyse_all(read_recording(tmp_path), Ceilings(baseline_report())), gc_start_us


def test_a_garbage_collection_is_put_on_the_records_clock_and_charged_the_gpus_idle(tmp_path):
    (a, idle, model, _), gc_start_us = loop_with_a_collection(tmp_path)
    recording = read_recording(tmp_path)
    assert [(c["generation"], c["start_ns"], c["end_ns"]) for c in recording.collections] == \
        [(2, gc_start_us * 1000, (gc_start_us + 15_000) * 1000)]
    assert idle["by_cause_s"]["python_gc"] == pytest.approx(15_000 * US)
    spread = model.step_spread()
    assert spread["stalls"] == 1 and spread["stalls_with_gc"] == 1
    assert spread["stall_gc_s"] == pytest.approx(15_000 * US) and spread["gc_s"] == pytest.approx(15_000 * US)


def test_the_program_says_its_footprint_and_the_probe_is_asked_for_it(tmp_path):
    """The training process's Python said at exit that it held 3 GiB of anonymous memory
    (tools/profile_site): the probe is asked to time the workers' start holding as much."""
    (tmp_path / "with").mkdir()
    loop_with_a_collection(tmp_path / "with")
    recording = read_recording(tmp_path / "with")
    # the memory line is no collection
    assert recording.footprint() == (3 << 30, "RssAnon") and len(recording.collections) == 1
    assert [p.memory.end_bytes for p in recording.processes] == [3 << 30]
    (tmp_path / "without").mkdir()
    loop_with_a_collection(tmp_path / "without", False)
    assert read_recording(tmp_path / "without").footprint() is None
    # sampled as it ran (today's line): what it held while its steps ran, not at its end. The
    # samples are on CLOCK_MONOTONIC, half the records' clock here, plus 1000 ns
    window = analyse_all(recording, Ceilings(baseline_report()))[2].window
    gc_file = tmp_path / "with" / f"pygc-{recording.processes[0].pid}.jsonl"
    lines = gc_file.read_text().splitlines()[:-1]
    at = [1000 + ns // 2 for ns in (window[0] - 10**6, window[0] + 10, window[0] + 20, window[1] - 10,
                                    window[1] + 10**6)]
    sampled = {"type": "memory", "measure": "RssAnon", "end_bytes": 200 << 20,
               "samples": [[at[0], 100 << 20], [at[1], 3 << 30], [at[2], (3 << 30) + 8], [at[3], (3 << 30) + 4],
                           [at[4], 5 << 30]]}
    gc_file.write_text("\n".join(lines + [json.dumps(sampled)]) + "\n")
    recording = read_recording(tmp_path / "with")
    assert recording.footprint(window) == ((3 << 30) + 4, "RssAnon")  # the median inside the steps
    assert recording.footprint() == (5 << 30, "RssAnon")  # no steps: the largest, the end's or a sample's
    # where the kernel says no more than VmRSS (gVisor), that, and said so
    gc_file.write_text("\n".join(lines + [json.dumps({**sampled, "measure": "VmRSS"})]) + "\n")
    assert read_recording(tmp_path / "with").footprint(window) == ((3 << 30) + 4, "VmRSS")
    for bad in ({**sampled, "measure": "Rss"}, {**sampled, "end_bytes": -1}, {"type": "memory"}):
        gc_file.write_text("\n".join(lines + [json.dumps(bad)]) + "\n")
        assert read_recording(tmp_path / "with").footprint(window) is None
    gc_file.write_text("\n".join(lines + [json.dumps({**sampled, "samples": [[1, "x"], [2], "y"]})]) + "\n")
    assert read_recording(tmp_path / "with").footprint(window) == (200 << 20, "RssAnon")  # the end alone
    asked = []
    p = tutorial_h200(STEPS)
    (tmp_path / "tutorial").mkdir()
    p.write(tmp_path / "tutorial")
    (tmp_path / "tutorial" / f"pygc-{p.pid}.jsonl").write_text(
        json.dumps({"type": "pygc", "pid": p.pid, "clock": "monotonic"}) + "\n"
        + json.dumps({"type": "memory", "measure": "RssAnon", "samples": [], "end_bytes": 2_000_000_000}) + "\n")
    analyse_all(read_recording(tmp_path / "tutorial"), Ceilings(baseline_report()),
                lambda *args: asked.append(args) or FITTED)
    assert [a[1:] for a in asked] == [(5, 2_000_000_000)]


def test_collections_move_no_price_but_their_own(tmp_path):
    """The step model keeps a collection in the host work it interrupted: every other price is
    the same with the collections timed or not, and the GPU's idle is split finer. Freezing
    set-up's objects (`gc`) removes the full collection from the host-bound step: 15 ms."""
    (tmp_path / "with").mkdir()
    (tmp_path / "without").mkdir()
    (_, idle, model, found), _ = loop_with_a_collection(tmp_path / "with")
    (_, idle_without, model_without, found_without), _ = loop_with_a_collection(tmp_path / "without", False)
    alone, alone_without = model.summary()["saving_alone_s"], model_without.summary()["saving_alone_s"]
    assert alone.pop("gc") == pytest.approx(15_000 * US) and "gc" not in alone_without  # not timed: unpriced
    assert alone == alone_without
    # the six data habits two or more at a time: 15 + 20 + 15 + 6 + 1; all seven, and all but gc
    assert len(model.summary()["saving_with_s"]) == 59 and model.summary()["collections_timed"]
    assert model.saving_s({"gc", "workers"}) == pytest.approx(model.saving_s({"workers"}) + 15_000 * US)
    assert {f["id"] for f in found} == {f["id"] for f in found_without} | {"full_collections"}
    gc_finding = next(f for f in found if f["id"] == "full_collections")
    assert gc_finding["fix"] == "gc" and gc_finding["saving_alone_s"] == pytest.approx(15_000 * US)
    assert "gc.freeze()" in gc_finding["advice"] and "15.0 ms" in gc_finding["what"]
    assert gc_finding["evidence"].startswith("1 full collection over 19 steps, 15.0 ms each on average")
    assert idle_without["by_cause_s"]["python_gc"] == 0
    assert "stalls_with_gc" not in model_without.step_spread()
    moved = idle_without["by_cause_s"]["host"] - idle["by_cause_s"]["host"]
    assert moved == pytest.approx(15_000 * US)


def test_collections_without_a_clock_pair_are_said_not_placed(tmp_path):
    p = Program()
    p.copy(10, 5, 1024, call_at=(0, 1))
    p.write(tmp_path)
    (tmp_path / f"pygc-{p.pid}.jsonl").write_text('{"generation": 0, "start_ns": 1, "end_ns": 2, "thread": 1}\n')
    recording = read_recording(tmp_path)
    assert recording.collections == []
    assert "its records carry no clock to place them on" in recording.processes[0].note()
    assert not recording.processes[0].collections_timed


def test_timed_without_a_full_collection_gc_is_priced_at_nothing(tmp_path):
    """Timed, and no full collection in the steps: gc saves nothing (not: unpriced)."""
    p = tutorial_h200(STEPS)
    p.clock, p.clock_end = (0, 0), (10**9, 10**9)
    p.write(tmp_path)
    (tmp_path / f"pygc-{p.pid}.jsonl").write_text('{"type": "pygc", "pid": %d, "clock": "monotonic"}\n'
                                                 '{"generation": 0, "start_ns": 5, "end_ns": 9, "thread": 1}\n'
                                                 % p.pid)
    _, _, model, found = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()))
    summary = model.summary()
    assert summary["collections_timed"] and summary["saving_alone_s"]["gc"] == 0
    assert summary["step_spread"]["gc_s"] == 0 and "full_collections" not in [f["id"] for f in found]


def test_stalls_are_steps_over_five_times_the_median():
    """An H100 host's profiled tutorial: steps of about 3 ms, and 13 of 16-126 ms that held
    4.6% of the steps' time. Said, never hidden in a mean."""
    from hdreport.profile.model import Model, Step

    times_us = [3000] * 9 + [2900] * 8 + [14000, 16000, 225000]  # 20 steps, median 3000
    model = Model([Step(T=t * 1000) for t in times_us], None, [0] * 20, "", True)
    spread = model.step_spread()
    assert spread["median_ms"] == pytest.approx(3.0) and spread["max_ms"] == pytest.approx(225.0)
    assert spread["stalls"] == 2  # 14 ms is under 5 x 3 ms; 16 and 225 ms are over
    assert spread["stall_excess_s"] == pytest.approx((16000 - 3000 + 225000 - 3000) * US)
    assert model.summary()["step_spread"] == spread
    assert Model([], None, [], "", False).step_spread() == {}


def test_the_summary_says_how_much_of_the_steps_stalls_hold(tmp_path):
    from hdreport.profile.summary import model_lines

    report = {"profile": {"model": {"steps": 20, "per_step_reads": True, "per_step_ms": {"T": 4.0, "B": 2.0},
                                    "seconds": {"T": 0.08}, "step_spread": {"median_ms": 3.0, "max_ms": 225.0,
                                                                            "stalls": 2, "stall_excess_s": 0.02,
                                                                            "stall_factor": 5}}}}
    text = model_lines(report)[0]
    assert "Half the steps took under 3,000 µs; 2 took over 5x that (the longest 225.0 ms)" in text
    assert "25.0% of the steps' time" in text
    assert "garbage collection" not in text  # not timed: not said
    report["profile"]["model"]["step_spread"].update(stalls_with_gc=2, stall_gc_s=0.015, gc_s=0.04)
    assert ("2 of them held a Python garbage collection (15 ms of collections in them; 40 ms in all "
            "the steps).") in model_lines(report)[0]
    report["profile"]["model"]["step_spread"].update(stalls_with_gc=0)
    assert "None of them held a Python garbage collection (40 ms in all the steps)." in model_lines(report)[0]
    del report["profile"]["model"]["step_spread"]  # a report made before it
    assert model_lines(report)[0].endswith("4,000 µs a step on average.")


def test_a_findings_evidence_says_stretches_where_the_summary_does():
    """The H100's `--fix all` recording read its loss every 100 turns: 11 "steps" of 82 batches
    each. Its evidence said "900 batches over 11 steps", as if 11 turns of the loop had made
    them; stretches, as the step table says, and per stretch where it gives a time."""
    from hdreport.profile.findings import what_and_evidence

    stretches = Model([Step(T=191_000_000, B=25_000_000, batches=82, batch_bytes=82 * 804864) for _ in range(11)],
                      (0, 1), [0] * 11, "", True, steps_cut_at="reads")
    _, evidence = what_and_evidence("gather", stretches, None, {"by_cause_s": {}})
    assert "902 batches of 805 kB over 11 stretches" in evidence
    _, evidence = what_and_evidence("workers", stretches, None, {"by_cause_s": {"input_pipeline": 0.27}})
    assert "25.0 ms of input pipeline a stretch over 11 stretches against 191.0 ms a stretch in all" in evidence
    steps = Model([Step(T=2_000_000, B=300_000, batches=1, batch_bytes=804864) for _ in range(11)],
                  (0, 1), [0] * 11, "", True, steps_cut_at="reads")
    assert "a step over 11 steps" in what_and_evidence("workers", steps, None,
                                                        {"by_cause_s": {"input_pipeline": 0.0}})[1]


def test_steps_of_many_batches_read_per_batch():
    """A loop that reads its loss every 100 turns is cut into steps of about 100 batches (the
    H200's `--fix all` recording: 11 steps of 82 batches, 155,519 µs each): the step table
    then reads per batch, the step's figure beside it; one stretch of a whole run too."""
    from hdreport.profile.summary import model_lines

    per = {"T": 164.0, "B": 20.5, "R": 0.0082, "O": 143.4918, "G": 9.02}
    report = {"profile": {"model": {"steps": 10, "batches": 820, "per_step_reads": True, "per_step_ms": per,
                                    "seconds": {"T": 1.64}}}}
    lines = model_lines(report)
    # "10 steps" of an 820-turn loop read as 10 of its turns: they are stretches of it
    assert lines[0] == ("The thread that feeds the GPU, 10 stretches, cut at the blocking read that ends each, 82 "
                        "batches a stretch on average: 2,000 µs a batch (164 ms a stretch).")
    rows = "\n".join(lines[2:])
    assert "| a batch | time | share |" in rows
    assert "| building batches (input pipeline) | 250 µs | 12.5% |" in rows
    assert "| waiting in the step's read | 0.1 µs | 0.0% |" in rows
    assert "| GPU busy (a bound) | 110 µs |  |" in rows
    report["profile"]["model"].update(steps=1, per_step_reads=False, steps_cut_at="")
    report["profile"]["model"]["per_step_ms"] = {k: v * 10 for k, v in per.items()}
    assert model_lines(report)[0].endswith("to cut steps at), 820 batches: 2,000 µs a batch (1.64 s in all).")
    report["profile"]["model"].update(steps=820, per_step_reads=True)  # a batch a step: as before
    report["profile"]["model"]["per_step_ms"] = {k: v / 82 for k, v in per.items()}
    assert model_lines(report)[0].endswith("2,000 µs a step on average.")
    assert "| a step | time | share |" in "\n".join(model_lines(report))


def test_pinning_on_the_training_thread_measured_by_the_probe_replaces_the_memcpy_rate(tmp_path):
    """The probe pinned a batch of the recorded shape on one thread in 500 µs (PyTorch's pinned
    allocator and copy; an H100 host's pinning alone cost 0.3-0.9 ms a batch, where a memcpy of
    the batch takes 0.03 ms). Pinning alone then costs more than the staging it removes: priced
    nothing, not the 96.874 µs a step the memcpy rate gave."""
    measured = Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe", gather_batch_s=300e-6,
                        gather_rows=1024, pin_here_batch_s=500e-6)
    tutorial_h200(STEPS).write(tmp_path)
    _, _, model, found = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: measured)
    n = STEPS - 1
    # pin alone: the 408 us of staging call and wait become 500 us of pinning (the small copies'
    # waits 30 -> 20): 2655 + 92 - 10 = 2737 us, longer than plain: nothing saved
    assert model.saving_s({"pin"}) == 0
    # gather and pin: 300 + 500 (pinning on the thread) + 20 + 200 + 10 = 1030 us a step, 1625 saved
    assert model.saving_s({"gather", "pin"}) == pytest.approx(n * 1625 * US)
    # with workers the pin thread pins: the training thread's pinning is gone, as before
    assert model.summary()["handover"]["pin_here_batch_s"] == 500e-6
    # gather and pin together save less than gather alone (1707 us): pinning is not advised; the
    # graph (79 us) and then dropping the read (111 us) are, as without the probe's pinning
    assert [f["id"] for f in found] == ["per_sample_batches", "launch_bound", "drop_blocking_reads"]
    # and the report says what pinning would cost: 82 us a step longer, above the floor (2% of
    # the 20 steps' 53 ms span), with why
    span = 20 * 2655 * US
    (costly,) = would_cost(model, span)
    assert costly["id"] == "pageable_to_pinned" and costly["cost_s"] == pytest.approx(n * 82 * US)
    assert "pins each batch on the training thread, 500 µs a batch (measured here" in costly["why"]
    assert "staging and waiting for its pageable copies take 408 µs a batch now" in costly["why"]
    assert would_cost(model, 2 * n * 82 * US / MIN_SAVING_OF_SPAN) == []  # under the floor of a longer span
    # pinned in 100 us a batch, pinning pays alone (408 + 10 - 100 us), and says what it assumed
    again = Handover(**{**measured.__dict__, "pin_here_batch_s": 100e-6})
    _, _, model, found = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), lambda shape, *_: again)
    assert model.saving_s({"pin"}) == pytest.approx(n * (96.874 + 321.126 - 100) * US)
    pin = next(f for f in found if f["fix"] == "pin")
    assert "100 µs a batch, measured here by pinning a batch of its shape on one thread" in pin["assumption"]


# --- a program with workers and pin already: the pin thread's share of the GIL ---------------

PIN_PROBE = Handover(1.2e-3, 1.1e-3, 134e-6, (PACKED_BATCH_BYTES,), "the probe", pin_thread_batch_s=900e-6,
                     gather_batch_s=70e-6, gather_rows=256)


def test_a_pin_thread_is_a_pinning_thread_that_launches_nothing_beside_pinned_batches(tmp_path):
    _, _, model, _ = analyse_all_of(tmp_path / "a", workers_and_pin(STEPS), PIN_PROBE)
    assert model.pin_thread and model.summary()["pin_thread"]
    _, _, model, _ = analyse_all_of(tmp_path / "b", workers_and_pin(STEPS, pinning_thread=False), PIN_PROBE)
    assert not model.pin_thread
    launching = workers_and_pin(STEPS)
    launching.kernel(50, 5, launch=(40, 45), thread=2)  # it launches: a thread of the loop, not a pin thread
    _, _, model, _ = analyse_all_of(tmp_path / "c", launching, PIN_PROBE)
    assert not model.pin_thread
    _, _, model, _ = analyse_all_of(tmp_path / "d", tutorial_h200(STEPS), PIN_PROBE)  # pageable batches
    assert not model.pin_thread


def test_gathering_on_the_training_thread_frees_the_pin_threads_gil_time(tmp_path):
    """A step of 1420 us: B 300 (the wait for the batch), O 1105, H 1040, R 15. The probe's pin
    thread holds the GIL 900 us a batch: 300 of it inside the wait, 600 in the training thread's
    own Python. Gathered on the training thread (70 us) the step is 70 + (1105 - 600) + 15 =
    590 us, 830 us a step saved: the pin thread's 900 less the gather's 70. Workers and pin
    are the recording's own: they save nothing."""
    _, _, model, found = analyse_all_of(tmp_path, workers_and_pin(STEPS), PIN_PROBE)
    n = STEPS - 1
    assert model.saving_s({"gather"}) == pytest.approx(n * 830 * US)
    assert model.saving_s({"workers"}) == model.saving_s({"pin"}) == model.saving_s({"workers", "pin"}) == 0
    assert model.pin_thread_s() == pytest.approx(n * 900 * US)
    # the freed 600 us are the probe's, not the recording's: off the step unscaled
    assert model.unslowed_s({"gather"}) == pytest.approx((n * (70 - 600) * US, n * 70 * US))
    # The graph (X 905 us of O, H 1040 of which X 855) alone: the pin thread stays and holds the
    # GIL 900 us a batch, the training thread 1040 - 855 = 185 of its own: 1085 us a step, 335
    # saved. After the gather it adds 398: 70 + (1105 - 905 + 10, all of it freed GIL time) + the
    # read's wait, now the GPU's whole 122 us: 192 us a step. Dropping the read then hides 70 of it.
    assert model.saving_s({"graph"}) == pytest.approx(n * 335 * US)
    assert [f["id"] for f in found] == ["pin_thread_gil", "launch_bound", "drop_blocking_reads"]
    finding, graph, item = found
    assert graph["saving_s"] == pytest.approx(n * 398 * US) and item["saving_s"] == pytest.approx(n * 70 * US)
    assert finding["id"] == "pin_thread_gil" and finding["fix"] == "gather"
    assert finding["saving_alone_s"] == pytest.approx(n * 830 * US)
    assert "DataLoader's pin_memory thread" in finding["what"] and "holds the GIL about 900 µs a batch" in \
        finding["what"] and "waited 300 µs a batch for its batches" in finding["what"]
    assert "The pin thread holds the GIL 900 µs a batch (the probe), time the training thread" in finding["assumption"]
    assert "well_written.py" in finding["advice"] and "no pin_memory thread" in finding["advice"]


def test_the_summary_says_a_pin_thread_fed_the_steps(tmp_path):
    for name, program, said in (("pin", workers_and_pin(STEPS), True), ("plain", tutorial_h200(STEPS), False)):
        (tmp_path / name).mkdir()
        program.write(tmp_path / name)
        section = profile_section(["python3", "t.py"], 0, None, 1.0, read_recording(tmp_path / name), {},
                                  baseline_report(), None, handover_for=lambda *_: PIN_PROBE)
        text = " ".join(model_lines({"profile": section}))
        assert ("Its batches came from a pin thread" in text and "PyTorch's pin_memory thread" in text) == said, name


def test_the_pin_threads_gil_time_from_the_constants_where_no_probe_ran(tmp_path):
    """No probe: the pin thread's GIL time is 560 us a batch and 310 a tensor (870 us for the
    one-tensor batch), 570 us of it beyond the 300 us wait, freed from the training thread's
    own Python; a gather of 804,864 B at 2.56 GB/s (314.4 us) replaces the wait though it is
    slower, as the pin thread that fed it is gone: 870 less 314.4, 555.6 us a step saved."""
    _, _, model, found = analyse_all_of(tmp_path, workers_and_pin(STEPS), FITTED)
    n = STEPS - 1
    assert model.saving_s({"gather"}) == pytest.approx(n * 555.6 * US)
    # the graph alone: 870 + 185 (the training thread's Python left, 1040 - 855) = 1055 us a step
    assert model.saving_s({"graph"}) == pytest.approx(n * 365 * US)
    assert [f["id"] for f in found] == ["pin_thread_gil", "launch_bound", "drop_blocking_reads"]
    finding = found[0]
    assert "560 µs a batch and 310 µs a tensor" in finding["assumption"]


def test_without_the_pin_thread_the_same_loop_is_per_sample_batches(tmp_path):
    """The same loop with no pinning thread seen: its 300 us wait is over three times the 70 us
    gather, priced as batches built slowly (230 us a step), nothing freed besides."""
    _, _, model, found = analyse_all_of(tmp_path, workers_and_pin(STEPS, pinning_thread=False), PIN_PROBE)
    assert model.saving_s({"gather"}) == pytest.approx((STEPS - 1) * 230 * US)
    # no pin thread to bound it: the graph leaves 300 + 210 + the read's 122 us, 788 saved
    assert model.saving_s({"graph"}) == pytest.approx((STEPS - 1) * 788 * US)
    assert [f["id"] for f in found] == ["launch_bound", "per_sample_batches", "drop_blocking_reads"]


# --- steps that end in a synchronize -------------------------------------------------------

def test_steps_end_at_a_per_step_synchronize_where_there_is_no_read(tmp_path):
    """A step of 870 us cut at its torch.cuda.synchronize(): B 203, R 327 (the wait), O 340,
    G 640. Dropping the synchronize, the host runs ahead (no blocking copy left): the step is
    the larger of the GPU's 640 and the host's own 543, 230 us a step saved, found as
    drop_step_synchronizes with the advice to time with events."""
    _, _, model, found = analyse_all_of(tmp_path, synchronize_every_step(STEPS), PIN_PROBE)
    n = STEPS - 1
    summary = model.summary()
    assert summary["steps_cut_at"] == "synchronizes" and not summary["per_step_reads"] and summary["steps"] == n
    per = summary["per_step_ms"]
    assert (per["B"], per["R"], per["O"], per["G"]) == pytest.approx((0.203, 0.327, 0.340, 0.640))
    assert model.saving_s({"item"}) == pytest.approx(n * 230 * US)
    (finding,) = found
    assert finding["id"] == "drop_step_synchronizes" and finding["fix"] == "item"
    assert "in a blocking synchronize at the end of every step" in finding["what"]
    assert "torch.cuda.synchronize()" in finding["advice"] and "torch.cuda.Event" in finding["advice"]


def test_a_stream_synchronize_ends_steps_and_an_event_synchronize_does_not(tmp_path):
    _, _, model, _ = analyse_all_of(tmp_path / "s", synchronize_every_step(STEPS, name="cudaStreamSynchronize_v3020"),
                                    PIN_PROBE)
    assert model.steps_cut_at == "synchronizes" and len(model.steps) == STEPS - 1
    # well_written.py's event synchronize waits for its double buffer's copy, not for the step
    _, _, model, found = analyse_all_of(tmp_path / "e", synchronize_every_step(STEPS, name="cudaEventSynchronize"),
                                        PIN_PROBE)
    assert model.steps_cut_at == "" and len(model.steps) == 1 and not found
    _, _, model, _ = analyse_all_of(tmp_path / "w", well_written_h200(STEPS), PIN_PROBE)
    assert model.steps_cut_at == "" and len(model.steps) == 1


def test_a_synchronize_a_copy_ended_in_is_that_copys_wait_not_a_steps_end(tmp_path):
    """The plain tutorial's .to(device) is cudaMemcpyAsync then cudaStreamSynchronize: those
    synchronizes are the copies' waits, and its steps end at its reads."""
    _, _, model, _ = analyse_all_of(tmp_path, tutorial_h200(STEPS), PIN_PROBE)
    assert model.steps_cut_at == "reads"
    reads_removed = tutorial_h200(STEPS)
    reads_removed.records = [r for r in reads_removed.records if not (r.get("type") == "copy" and r["bytes"] == 4)]
    _, _, model, _ = analyse_all_of(tmp_path / "b", reads_removed, PIN_PROBE)
    assert model.steps_cut_at == "synchronizes"  # each read's synchronize, its copy gone, is bare


def test_a_loop_that_synchronizes_every_step_and_logs_every_few_is_cut_at_the_synchronizes(tmp_path):
    """tutorial_style.py --step-wait sync: a synchronize every step and the loss read every 5th
    (60 steps: 12 reads, at least MIN_BLOCKING_READS, 60 synchronizes, SYNCS_PER_READ times as
    many or more). Cut at the reads, its steps would be 5 of the loop's; cut at the
    synchronizes, 59 steps, each read inside one (its 5 us kept in O: --fix item keeps the log
    reads). Dropping the synchronizes saves what the fixture's steps without a read save, 230 us
    (870 - 640), and 240 us where the step holds a read (880 - 640)."""
    from hdreport.profile.steps import SYNCS_PER_READ

    _, _, model, found = analyse_all_of(tmp_path, synchronize_every_step(60, read=True, read_every=5), PIN_PROBE)
    assert SYNCS_PER_READ * 12 <= 60
    assert model.steps_cut_at == "synchronizes" and len(model.steps) == 59
    assert 59 * 230 * US <= model.saving_s({"item"}) <= 59 * 240 * US
    (finding,) = found
    assert finding["id"] == "drop_step_synchronizes"
    # a read every step beside the synchronize: as many reads as synchronizes, cut at the reads
    _, _, model, _ = analyse_all_of(tmp_path / "every", synchronize_every_step(60, read=True), PIN_PROBE)
    assert model.steps_cut_at == "reads" and len(model.steps) == 59


def test_a_synchronize_every_step_beside_the_read_is_dropped_with_it(tmp_path):
    """loss.item() and torch.cuda.synchronize() every step: cut at the reads (B 207, R 2,
    R_call 3), the synchronize's 327 us in O (671). Dropping the read alone would leave the
    host waiting in the synchronize (5 us saved); the item fix drops both: O' = 671 - 3 - 327 =
    341, the host's own 548 under the GPU's 641 (the read's copy with the rest), 239 us a step
    saved, and the finding says so."""
    _, _, model, found = analyse_all_of(tmp_path, synchronize_every_step(STEPS, read=True), PIN_PROBE)
    n = STEPS - 1
    summary = model.summary()
    assert summary["steps_cut_at"] == "reads" and summary["steps"] == n
    per = summary["per_step_ms"]
    assert (per["B"], per["R"], per["R_sync"], per["O"]) == pytest.approx((0.207, 0.002, 0.327, 0.671))
    assert model.saving_s({"item"}) == pytest.approx(n * 239 * US)
    (finding,) = found
    assert finding["id"] == "drop_blocking_reads"
    assert "and 6.2 ms in a synchronize (no copy in it) every step besides" in finding["what"]  # 19 x 327 us
    assert "nor torch.cuda.synchronize(), every step" in finding["advice"]
    # without the synchronizes the read's finding says nothing of them
    _, _, model, _ = analyse_all_of(tmp_path / "t", tutorial_h200(STEPS), PIN_PROBE)
    assert model.total("R_sync") == 0


def test_the_summary_says_the_steps_end_in_a_synchronize(tmp_path):
    from hdreport.profile.summary import model_lines

    model = {"steps": 20, "per_step_reads": False, "steps_cut_at": "synchronizes",
             "per_step_ms": {"T": 1.0, "B": 0.4, "R": 0.3}, "seconds": {"T": 0.02}}
    text = model_lines({"profile": {"model": model}})
    assert "20 steps, cut at the synchronize (no copy in it) that ends each" in text[0]
    assert any("waiting in the step's synchronize" in line for line in text)


# --- the pace over the run -------------------------------------------------------------------

def test_the_pace_is_each_tenths_median_step_and_batch_wait():
    """40 steps: the first 20 of 1 ms (a batch wait of 0.5 ms), the last 20 of 2 ms (1.5 ms):
    tenths of 4 steps, their medians 1 ms five times and then 2 ms; the summary says it."""
    steps = [Step(T=1_000_000, B=500_000) for _ in range(20)] + [Step(T=2_000_000, B=1_500_000) for _ in range(20)]
    spread = Model(steps, (0, 1), [0] * 40, "", True).step_spread()
    assert spread["pace_median_ms"] == pytest.approx([1.0] * 5 + [2.0] * 5)
    assert spread["pace_batch_wait_ms"] == pytest.approx([0.5] * 5 + [1.5] * 5)
    text = pace_text(spread)
    assert "their median steps took 1 ms to 2 ms (2.00x)" in text
    assert "the batch wait 500 µs to 1.5 ms (3.00x), which makes no CUDA call" in text
    even = Model([Step(T=1_000_000, B=500_000) for _ in range(40)], (0, 1), [0] * 40, "", True).step_spread()
    assert pace_text(even) == "" and pace_text({}) == ""
    assert "pace_median_ms" not in Model(steps[:19], (0, 1), [0] * 19, "", True).step_spread()  # under 2 a tenth


def test_the_h100_2026_11_28b_tutorial_ran_at_two_paces():
    """Its recording, made again: the tenths' median steps 3.04 to 5.12 ms, the batch building
    (no CUDA call) 1.68 to 3.39 ms. Its fastest stretches ran as fast as the fastest plain run
    of that lease (3.06 ms a step): the 1.24x between whole runs carries the host's slow
    stretches."""
    run = ROOT / "reports" / "reference" / "h100-2026-11-28b" / "profiles"
    kept = json.loads((run / "prof-tutorial.json").read_text())["profile"]["model"]["handover"]
    _, _, model, _ = analyse_all(read_recording(run / "records" / "tutorial"),
                                 Ceilings(json.loads((run / "baseline.json").read_text())),
                                 lambda *_: handover_of(kept))
    spread = model.step_spread()
    assert min(spread["pace_median_ms"]) == pytest.approx(3.04, abs=0.01)
    assert max(spread["pace_median_ms"]) == pytest.approx(5.12, abs=0.01)
    assert max(spread["pace_batch_wait_ms"]) / min(spread["pace_batch_wait_ms"]) == pytest.approx(2.02, abs=0.01)


def test_the_workers_start_is_taken_off_the_workers_fix_once(tmp_path):
    """The probe timed starting the advised workers at 2 ms to their first batch: the workers fix
    saves its 507 µs a step (test_a_hand_over_measured_here_prices_workers_and_pack_by_the_batch)
    less that, once; the run pays it in its first batch wait, a part the recording did not slow.
    hdbench_profile asks the probe for the count the input_pipeline finding advises."""
    plain = Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe")
    started = Handover(**{**plain.__dict__, "workers_start_s": 2e-3, "start_workers": 5})
    p = tutorial_h200(STEPS)
    p.write(tmp_path)
    asked = []

    def probe(shape, workers, footprint):
        asked.append(workers)
        return started

    _, _, model, found = analyse_all(read_recording(tmp_path), Ceilings(baseline_report()), probe)
    n = STEPS - 1
    # the build 2007 µs a batch against the rest of a step's 648 µs: 4 workers keep up, and one spare
    assert asked == [5]
    assert model.saving_s({"workers"}) == pytest.approx(n * 507 * US - 2e-3)
    assert model.net_saving_s({"workers"}) == pytest.approx(n * 507 * US - 2e-3)
    assert model.batch_wait_s({"workers"}) == pytest.approx(n * 1500 * US + 2e-3)
    assert model.unslowed_s({"workers"}) == pytest.approx((n * 1500 * US + 2e-3, n * 1500 * US + 2e-3))
    assert model.saving_s({"gather"}) == analyse_all_of(tmp_path / "plain", p, plain)[2].saving_s({"gather"})
    summary = model.summary()
    assert summary["start_with_s"]["workers"] == summary["start_with_s"]["pin+workers"] == 2e-3
    assert "gather+pin" not in summary["start_with_s"] and summary["handover"]["start_workers"] == 5
    pipeline = next(f for f in found if f["id"] == "input_pipeline")
    assert "the workers' start, once a run with persistent_workers (every epoch without), is taken off: 2.0 ms " \
           "to the first batch for 5 workers, measured here in the probe's process" in pipeline["assumption"]
    # timed holding the program's footprint (its Python said it at exit): said
    held = Handover(**{**started.__dict__, "start_footprint_bytes": 2_000_000_000})
    pipeline = next(f for f in analyse_all_of(tmp_path / "held", p, held)[3] if f["id"] == "input_pipeline")
    assert "for 5 workers, measured here in the probe's process holding 2 GB of anonymous memory (each worker a " \
        "fork of it" in pipeline["assumption"]
    held = Handover(**{**held.__dict__, "start_footprint_measure": "VmRSS"})  # gVisor says no RssAnon
    pipeline = next(f for f in analyse_all_of(tmp_path / "gvisor", p, held)[3] if f["id"] == "input_pipeline")
    assert "holding 2 GB of resident memory (VmRSS: this kernel does not say the anonymous part)" in \
        pipeline["assumption"]
    assert held.summary()["start_footprint_measure"] == "VmRSS"
    assert handover_of(held.summary()).start_footprint_measure == "VmRSS"
    # a start the probe timed for its own workers, not the count advised (a probe older than
    # start_workers): said, not priced
    own = Handover(**{**plain.__dict__, "workers_start_s": 2e-3})
    model = analyse_all_of(tmp_path / "own", p, own)[2]
    assert model.saving_s({"workers"}) == pytest.approx(n * 507 * US) and "start_with_s" not in model.summary()
    text = next(f for f in analyse_all_of(tmp_path / "own2", p, own)[3] if f["id"] == "input_pipeline")["assumption"]
    assert "the workers' start (once a run, with persistent_workers; 2.0 ms here for the probe's own workers, not " \
           "the count advised) is not counted" in text
    # a start longer than what the workers save in the steps: nothing saved, not a negative saving
    slow = Handover(**{**plain.__dict__, "workers_start_s": 1.0, "start_workers": 5})
    model = analyse_all_of(tmp_path / "slow", p, slow)[2]
    assert model.saving_s({"workers"}) == 0.0 and model.net_saving_s({"workers"}) < 0


def test_a_run_too_short_for_its_workers_start_is_told_they_would_cost(tmp_path):
    """19 steps save 507 µs each with workers (9.6 ms), where starting them takes 50 ms: the
    profile says the fix would cost 40.4 ms, and why."""
    slow = Handover(1500e-6, 1200e-6, 250e-6, (BATCH_BYTES, 8192, 4096), "the probe", workers_start_s=50e-3,
                    start_workers=5)
    a, _, model, found = analyse_all_of(tmp_path, tutorial_h200(STEPS), slow)
    assert "input_pipeline" not in [f["id"] for f in found]
    (cost,) = [c for c in would_cost(model, a.totals["span_s"]) if c["fix"] == "workers"]
    assert cost["cost_s"] == pytest.approx(50e-3 - 19 * 507 * US)
    assert cost["why"] == ("starting 5 DataLoader workers takes 50.0 ms once (measured here by "
                           "tools/handover_probe.py), more than the 9.6 ms they would save in the steps: a run this "
                           "short pays more for their start than it gains")
