"""The data-movement families' answers, figures and page (issue 31: device_local, latency,
managed, batch_copy, strided), from the synthetic reports of movement_reports.py: every
number below is worked by hand from that file's tables. Reports without these families read
as before (no question of theirs is asked); a family whose entries were all skipped answers
with the reason."""

from __future__ import annotations

import copy
import html as html_text
import json
import re

import pytest

import movement_reports as synth
from conftest import run_report_tool
from hdreport import figures as report_figures
from hdreport import page as report_page
from hdreport import summary as report_summary
from hdreport.core.schema import ReportError, validate
from report_figure_checks import bars, check_figure, close, panels, references, series
from summary_tables import cannot_answer

QUESTIONS = {
    "device_local": "What is this GPU's memory roof?",
    "latency": "How long does the smallest move take?",
    "managed": "Is managed memory a free lunch here?",
    "batch_copy": "Should I move my batch as one buffer?",
    "strided": "What does a strided slice cost to move?",
}
MiB, GiB = 1 << 20, 1 << 30


def summary_of(report: dict, file: str = "movement.json") -> str:
    return report_summary.summarize_reports([(file, validate(report, file))])


def section(text: str, question: str) -> str:
    assert f"## {question}\n" in text, question
    return text.split(f"## {question}\n")[1].split("\n## ")[0]


def bullets(text: str) -> list[str]:
    """The answer's list items, continuation lines joined."""
    out = []
    for line in text.splitlines():
        if line.startswith("- "):
            out.append(line[2:])
        elif line.startswith("  ") and out:
            out[-1] += " " + line.strip()
    return out


def table_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


@pytest.fixture(scope="module")
def full_text() -> str:
    return summary_of(synth.full(), "movement-full.json")


# --- the answers ---------------------------------------------------------------------------------

def test_the_summary_says_the_numbers_are_synthetic(full_text):
    assert full_text.startswith("# hdbench: NVIDIA H100 80GB HBM3 + Intel(R) Xeon(R) Platinum 8480+ (synthetic)\n")
    assert "**Synthetic**: `movement-full.json` made by a test generator, not measured." in full_text
    for question in QUESTIONS.values():
        assert section(full_text, question).lstrip().startswith("**Synthetic numbers**: made by "
                                                                "`tests/python/tools/movement_reports.py`")


def test_the_memory_roof_is_the_best_copy_within_device_memory(full_text):
    roof, link = bullets(section(full_text, QUESTIONS["device_local"]))
    # The SM kernel at 1 GiB: 1,500 GB/s of bytes copied, 3,000 GB/s of memory traffic.
    assert roof.startswith("**1,500 GB/s** by an SM copy kernel at 1 GiB (`device_local/sm/1GiB/manual_time`)")
    assert "so the memory moved 3,000 GB/s." in roof
    # The copy engine's best, 1,360 GB/s: 1360 / 1500 = 90.7%.
    assert "The copy engine's best: 1,360 GB/s at 1 GiB, 91% of it" in roof
    # The link against the roof: 55.0 / 1500 = 3.67%, 51.0 / 1500 = 3.40%.
    assert "H2D **3.7%** (55.0 GB/s at 1 GiB, `transfer/h2d/pinned/copy/1GiB/manual_time`)" in link
    assert "D2H **3.4%** (51.0 GB/s at 1 GiB" in link
    rows = table_rows(section(full_text, QUESTIONS["device_local"]))
    assert rows[0] == ["1 MiB", "300.0", "400.0"] and rows[-1] == ["1 GiB", "1,360", "1,500"]


def test_the_smallest_move_is_a_4_byte_copy_and_a_load_over_the_link(full_text):
    pinned, pageable, chase = bullets(section(full_text, QUESTIONS["latency"]))
    assert pinned.startswith("One 4 B copy from pinned memory: H2D **8.00 µs**, D2H **8.40 µs**")
    assert "`latency/copy/h2d/pinned/4B/manual_time` and `latency/copy/d2h/pinned/4B/manual_time`" in pinned
    # 10.0 / 8.0 = 1.25; 12.0 / 8.4 = 1.43.
    # time ratios said as times, beside the page's speed ratios
    assert pageable == ("From pageable memory (4 B): H2D 10.0 µs, 1.25× the time from pinned; D2H 12.0 µs, 1.43× "
                        "the time from pinned.")
    # 1.25 / 0.50 = 2.50; the copy 8.0 / 1.25 = 6.4 round trips.
    assert "**1.25 µs** (`latency/pointer_chase/mapped_host/manual_time`), against **0.50 µs** for a load " \
           "from device memory (2.50× as long;" in chase
    assert "The smallest copy takes 6.4 such round trips" in chase
    rows = table_rows(section(full_text, QUESTIONS["latency"]))
    assert rows[-1] == ["64 KiB", "9.70", "16.0", "10.1", "20.0"]


def test_managed_memory_is_set_beside_pinned_copies(full_text):
    h2d, d2h = [b for b in bullets(section(full_text, QUESTIONS["managed"]))]
    # Prefetch over pinned: 44.0/50.0 = 0.88, 51.3/54.0 = 0.95, 52.8/55.0 = 0.96.
    assert h2d.startswith("H2D: managed memory after a prefetch against a pinned copy of the same size: **0.88×** at "
                          "64 MiB, **0.95×** at 256 MiB, **0.96×** at 1 GiB (the target, within 10% of pinned at "
                          "64 MiB and more: met at 256 MiB and 1 GiB, missed at 64 MiB;")
    # Demand: 11.0/50.0 = 22%, 13.5/54.0 = 25%, 13.2/55.0 = 24%: the best 25% at 256 MiB, with its spread.
    assert "On demand (a kernel faulting the pages in) it reaches **25%** of pinned at 256 MiB: 13.5 vs 54.0 GB/s " \
           "(noise ±3.2%, CV 4.1%; `managed/h2d/demand/256MiB/manual_time`), 22–25% over 64 MiB, 256 MiB and " \
           "1 GiB." in h2d
    # D2H: 40.8/48.0 = 0.85, 46.0/50.0 = 0.92, 48.45/51.0 = 0.95; demand 2.4/48 = 5%, 3.0/50 = 6%, 2.91/51 = 5.7%.
    assert "**0.85×** at 64 MiB, **0.92×** at 256 MiB, **0.95×** at 1 GiB" in d2h
    assert "it reaches **6%** of pinned at 256 MiB: 3.0 vs 50.0 GB/s (noise ±2.5%, CV 3.0%;" in d2h
    rows = table_rows(section(full_text, QUESTIONS["managed"]).split("D2H GB/s")[0])
    assert rows == [["4 MiB", "6.0", "20.0", "5.0", "5.5", "15.0", "–", "–"],
                    ["64 MiB", "11.0", "44.0", "8.0", "9.0", "20.0", "50.0", "**0.88×**"],
                    ["256 MiB", "13.5", "51.3", "9.0", "10.5", "21.0", "54.0", "**0.95×**"],
                    ["1 GiB", "13.2", "52.8", "9.2", "11.0", "21.0", "55.0", "**0.96×**"]]


def test_managed_memory_without_the_transfer_family_says_so():
    text = section(summary_of(synth.without_transfer()), QUESTIONS["managed"])
    first, h2d, d2h = bullets(text)
    assert first.startswith("The `transfer` family did not run in these reports: there are no pinned copies")
    assert h2d.startswith("H2D: after a prefetch, 52.8 GB/s at 1 GiB (`managed/h2d/prefetch/1GiB/manual_time`).")
    assert "On demand (a kernel faulting the pages in): 13.2 GB/s at 1 GiB (noise ±3.2%, CV 4.1%;" in h2d
    assert "×" not in text.split("GB/s by variant")[0]  # no ratio made up
    # Nor does the roof read against a link it has no copies of.
    assert "Read the other GPU-side figures" not in summary_of(synth.without_transfer())


def test_batch_packing_pays_from_k_4_and_the_packed_batch_is_read_whole_against_the_floor(full_text):
    packed, floor, api, mapped = bullets(section(full_text, QUESTIONS["batch_copy"]))
    # K=2: packed 10.5 > 10.0 per tensor; K=4: 12.0 < 14.0; K=8: 620 > 130 (the gather alone 500 µs).
    assert "beats one copy per tensor from **K = 4**: 12.0 µs against 14.0 µs a batch" in packed
    assert "It is slower again from K = 8 (620 against 130 µs: the gather of 5.33 MiB alone takes 500 µs)." in packed
    # K=32: moving the batch packed is gather + copy, 2450 µs, against one_copy's 420: 5.83x, missed
    # (the copy alone, 450 µs, would read 1.07x: the answer is about moving the batch, gather included).
    assert floor.startswith("At K = 32 (21.3 MiB), moving the batch packed takes 2,450 µs (2,000 µs of host gather + "
                            "450 µs of copy; the copy alone is 1.07× one copy, but a batch is not moved until it is "
                            "gathered) against 420 µs for one copy of a buffer already packed: **5.83×** (the target, "
                            "within 1.2×: missed;")
    # batch_api: 8.5 > 8.0 at K=1, below both from K=2; the mapped kernel below both at K=2 and 4 only (180 > 130 at 8).
    assert api.startswith("`cudaMemcpyBatchAsync` beats both at K = 2, 4, 8, 16, 32, 64, not at K = 1; at K = 32: "
                          "440 µs against 480 (per tensor) and 2,450 (packed)")
    assert mapped.startswith("The mapped gather kernel beats both at K = 2, 4, not at K = 1, 8, 16, 32, 64;")
    rows = table_rows(section(full_text, QUESTIONS["batch_copy"]))
    assert rows[3] == ["8", "5.33 MiB", "130", "620 (500 + 120)", "115", "180", "110"]


def test_a_strided_slice_is_read_against_the_same_bytes_contiguous(full_text):
    memcpy2d, pack, mapped, cheapest = bullets(section(full_text, QUESTIONS["strided"]))
    # memcpy2d: 14/35 = 0.40 (1024, columns) .. 50.35/53 = 0.95 (8192, rows).
    assert memcpy2d == ("`cudaMemcpy2DAsync`: **0.40×** (1024x1024, half the columns) to **0.95×** (8192x8192, every "
                        "other row) the GB/s of the same bytes already contiguous.")
    # pack: 7.42/53 = 0.14 .. 10.5/35 = 0.30; mapped: 10.5/35 = 0.30 .. 31.8/53 = 0.60.
    assert "**0.14×** (8192x8192, half the columns) to **0.30×** (1024x1024, every other row)" in pack
    assert "**0.30×** (1024x1024, half the columns) to **0.60×** (8192x8192, every other row)" in mapped
    assert cheapest == ("Cheapest here: `cudaMemcpy2DAsync`, never below 0.40× contiguous: a slice moved this way "
                        "takes at most 2.50× the time of the same bytes in one piece.")
    rows = table_rows(section(full_text, QUESTIONS["strided"]))
    # 32 MiB at 8.0 GB/s: 4194.3 µs, of which a contiguous copy at 50.0 GB/s is 671.1: the pack 3,523 µs.
    assert rows[2] == ["`4096x4096`", "every other row", "32 MiB: 2048 rows of 16 KiB", "50.0", "45.0 (**0.90×**)",
                       "8.0 (**0.16×**, pack 3,523 µs)", "30.0 (**0.60×**)"]


# --- skipped, failed and absent ------------------------------------------------------------------

def test_families_all_skipped_answer_with_the_reason():
    text = summary_of(synth.no_gpu())
    counts = {"device_local": 12, "latency": 22, "managed": 28, "batch_copy": 35, "strided": 24}
    for family, question in QUESTIONS.items():
        assert f"## {question}" not in text  # one section of the questions not answered, a line each
        assert cannot_answer(text, question) == (f"Its runs were skipped: {counts[family]} `{family}` runs (why: "
                                                 "see Not measured).")
    # the reason, some 300 characters, in the header's "No usable GPU" and under Not measured: not five times more
    assert text.count(synth.NO_DRIVER) == 2


def test_managed_memory_without_concurrent_access_answers_with_its_reason():
    text = summary_of(synth.full(managed_unsupported=True))
    assert cannot_answer(text, QUESTIONS["managed"]) == "Its runs were skipped: 28 `managed` runs (why: see Not " \
                                                        "measured)."
    assert synth.NO_CONCURRENT_MANAGED in text.split("\n## Not measured\n")[1]
    assert "**1,500 GB/s**" in section(text, QUESTIONS["device_local"])  # the rest is answered


def test_a_method_skipped_is_named_beside_the_answer():
    report = synth.full()
    why = "cudaMemcpyBatchAsync is not supported here (cudaErrorNotSupported): the driver predates CUDA 12.8"
    for i, b in enumerate(report["benchmarks"]):
        if b["params"].get("method") == "batch_api":
            report["benchmarks"][i] = synth.entry(b["name"].removesuffix("/manual_time"),
                                                  {k: v for k, v in b["params"].items() if k != "device"}, skipped=why)
    text = section(summary_of(report), QUESTIONS["batch_copy"])
    assert "cudaMemcpyBatchAsync` beats" not in text
    assert f"- 7 runs skipped (`batch_api`): {why}" in text
    assert "beats one copy per tensor from **K = 4**" in text


def test_reports_without_these_families_ask_none_of_their_questions():
    transfer_only = synth.report(synth.transfer_entries(), ["transfer"])
    text = summary_of(transfer_only)
    for question in QUESTIONS.values():
        assert question not in text
    assert not any(q in QUESTIONS.values() for _, q, *_ in report_summary.QUESTIONS)  # asked where run only
    html = report_page.page([("t.json", validate(transfer_only, "t.json"))])
    assert "q-memory-roof" not in html and "q-strided-slice" not in html
    assert "Not measured here" not in text


def test_a_family_with_entries_is_asked_even_when_the_others_are_absent():
    report = synth.report(synth.strided_entries(), ["strided"])
    text = summary_of(report)
    assert QUESTIONS["strided"] in text
    assert [q for q in QUESTIONS.values() if q in text] == [QUESTIONS["strided"]]


# --- the figures ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def full_figures():
    built, left_out = report_figures.build_figures([("movement-full.json", validate(synth.full(), "f.json"))])
    yield built, left_out
    for fig in built.values():
        close(fig)


def test_every_figure_keeps_the_rules(full_figures):
    built, left_out = full_figures
    assert {"device_local", "latency", "managed", "batch_copy", "strided", "transfer"} <= set(built)
    assert left_out == []
    for name, fig in built.items():
        check_figure(name, fig)
        assert "(synthetic)" in fig._suptitle.get_text()


def test_the_roof_figure_draws_each_engine_against_the_link(full_figures):
    fig = full_figures[0]["device_local"]
    ax = panels(fig)[""]
    lines = series(ax)
    assert sorted(lines) == ["SM engine", "copy engine"]
    assert lines["SM engine"][-1] == (GiB, 1500.0) and lines["copy engine"][0] == (MiB, 300.0)
    assert references(ax) == {"best pinned H2D copy over PCIe (transfer) 55.0 GB/s": 55.0}


def test_the_latency_figure_marks_the_pointer_chase(full_figures):
    fig = full_figures[0]["latency"]
    for title in ("host → device", "device → host"):
        ax = panels(fig)[title]
        assert sorted(series(ax)) == ["pageable", "pinned"]
        assert references(ax) == {"one load over PCIe (pointer chase, mapped host memory): 1.25 µs": 1.25,
                                  "one load from device memory (pointer chase): 0.50 µs": 0.5}
    assert series(panels(fig)["device → host"])["pinned"][0] == (4, 8.4)


def test_the_managed_figure_draws_the_variants_beside_pinned_copies(full_figures):
    fig = full_figures[0]["managed"]
    h2d, d2h = panels(fig)["host → device"], panels(fig)["device → host"]
    assert sorted(series(h2d)) == sorted(["demand faults", "cudaMemPrefetchAsync", "read-mostly advice",
                                          "preferred location GPU", "accessed-by-GPU advice",
                                          "pinned copy (transfer)"])
    assert series(h2d)["pinned copy (transfer)"] == [(64 * MiB, 50.0), (256 * MiB, 54.0), (GiB, 55.0)]
    assert sorted(series(d2h)) == ["cudaMemPrefetchAsync", "demand faults", "pinned copy (transfer)"]
    assert series(d2h)["cudaMemPrefetchAsync"][-1] == (GiB, 48.45)


def test_the_batch_figure_is_log_log_with_a_line_per_method(full_figures):
    ax = panels(full_figures[0]["batch_copy"])[""]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    lines = series(ax)
    assert len(lines) == 5 and lines["gather + one copy"][2] == (4, 12.0)
    assert [x for x, _ in lines["one copy per tensor"]] == synth.BATCH_KS
    assert ax.get_xlabel() == "tensors per batch (K)"


def test_the_batch_methods_over_the_floor_part_where_their_times_coincide(full_figures):
    """Each method's time over one packed copy's at the same K, from the same report: on the
    log-log time figure the methods near the floor drew as one line (an H200, 2026-11-27)."""
    report = synth.full()  # what the fixture drew: made up the same way each call
    runs = {(b["params"]["method"], b["params"]["tensors"]): b["counters"]["batch_us"]
            for b in report["benchmarks"] if b["params"].get("family") == "batch_copy" and b["status"] == "ok"}
    fig = full_figures[0]["batch_copy_over_floor"]
    check_figure("batch_copy_over_floor", fig)
    ax = panels(fig)[""]
    lines = series(ax)
    assert "one copy, already packed" not in lines  # the floor is the reference line at 1
    assert references(ax) == {"one copy, already packed (the floor)": 1.0}
    for label, method in (("one copy per tensor", "per_tensor"), ("gather + one copy", "packed")):
        assert lines[label] == [(k, pytest.approx(runs[(method, k)] / runs[("one_copy", k)])) for k in synth.BATCH_KS]
    # the report drawn is left as measured
    kept = validate(synth.full(), "f.json")
    for fig in report_figures.build_figures([("f.json", kept)])[0].values():
        close(fig)
    assert not any("over_one_copy" in b.get("counters", {}) for b in kept["benchmarks"])


def test_the_strided_figure_has_a_panel_per_matrix_and_marks_each_share(full_figures):
    fig = full_figures[0]["strided"]
    assert sorted(panels(fig)) == ["1024x1024 fp32 matrix", "4096x4096 fp32 matrix", "8192x8192 fp32 matrix"]
    drawn = {(panel[1], group, s): value for panel, group, s, value, _ in fig.hdbench["bars"]}
    assert drawn[("4096x4096 fp32 matrix", "every other row", "cudaMemcpy2DAsync")] == 45.0
    assert drawn[("4096x4096 fp32 matrix", "half the columns", "contiguous (reference)")] == 50.0
    ax = panels(fig)["4096x4096 fp32 matrix"]
    assert set(bars(ax)) == {"cudaMemcpy2DAsync", "host pack + copy", "mapped gather kernel", "contiguous (reference)"}
    marks = sorted(t.get_text() for t in ax.texts if t.get_gid() == "ratio")
    assert marks == ["0.15×", "0.16×", "0.55×", "0.60×", "0.80×", "0.90×"]


def test_more_than_three_matrices_make_a_second_strided_figure():
    report = synth.full()
    extra = [b for b in synth.strided_entries() if b["params"]["matrix"] == "1024x1024"]
    for b in copy.deepcopy(extra):
        b["params"]["matrix"] = "2048x2048"
        b["name"] = b["name"].replace("1024x1024", "2048x2048")
        report["benchmarks"].append(b)
    built, _ = report_figures.build_figures([("r.json", validate(report, "r.json"))])
    try:
        assert "strided--part-2" in built
        assert sorted(panels(built["strided--part-2"])) == ["8192x8192 fp32 matrix"]
        for name, fig in built.items():
            check_figure(name, fig)
    finally:
        for fig in built.values():
            close(fig)


def test_skipped_runs_draw_nothing_and_are_listed():
    built, left_out = report_figures.build_figures([("n.json", validate(synth.no_gpu(), "n.json"))])
    assert built == {}
    # Every skipped entry a figure would draw: all of them (the chase as marked lines, strided as bars).
    assert len(left_out) == 12 + 22 + 28 + 35 + 24
    assert all(": skipped (no CUDA driver: " in line for line in left_out)


# --- the page, the files and the schema ----------------------------------------------------------

def test_the_page_has_each_families_section_and_figure():
    html = report_page.page([("movement-full.json", validate(synth.full(), "movement-full.json"))])
    assert "<title>hdbench: NVIDIA H100 80GB HBM3 + Intel(R) Xeon(R) Platinum 8480+ (synthetic)</title>" in html
    for key, figure in (("memory-roof", "device_local"), ("smallest-move", "latency"), ("managed", "managed"),
                        ("batch-one-buffer", "batch_copy"), ("strided-slice", "strided")):
        block = re.search(rf"<section id='q-{key}'>.*?</section>", html, re.S)
        assert block, key
        assert f"<figure id='fig-{figure}'>" in block.group(0)
        assert "<strong>Synthetic numbers</strong>" in block.group(0)
    # the questions it cannot answer are the other families', in one section
    folded = re.search(r"<section id='cannot-answer'>.*?</section>", html, re.S).group(0)
    movement = {"memory-roof", "smallest-move", "managed", "batch-one-buffer", "strided-slice"}
    questions = {anchor: html_text.escape(q) for anchor, q, *_ in report_summary.QUESTIONS + report_summary.QUESTIONS_WHERE_RUN}
    assert folded.count("<li>") >= 1 and not [a for a in movement if questions[a] in folded]


def test_the_generator_writes_reports_the_tools_read(tmp_path):
    written = synth.write_all(tmp_path)
    assert sorted(p.name for p in written) == sorted(synth.REPORTS)
    full = tmp_path / "movement-full.json"
    for command, out in (("plot", tmp_path / "figures"), ("html", tmp_path / "page.html"),
                         ("summarize", tmp_path / "summary.md")):
        result = run_report_tool(command, full, "-o", out)
        assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "figures").glob("*.png")) == \
        ["batch_copy.png", "batch_copy_over_floor.png", "device_local.png", "latency.png", "managed.png",
         "strided.png", "transfer.png"]
    for path in written:
        result = run_report_tool("summarize", path)
        assert result.returncode == 0 and "(synthetic)" in result.stdout, result.stderr


@pytest.mark.parametrize("change, problem", [
    (lambda r: r["context"]["hdbench"].update(synthetic="yes"), "context.hdbench.synthetic: expected true or false"),
    (lambda r: next(b for b in r["benchmarks"] if b["params"]["family"] == "device_local")["counters"]
     .pop("bandwidth_GB/s"), 'missing field "bandwidth_GB/s" (every successful device_local run has it)'),
    (lambda r: next(b for b in r["benchmarks"] if b["params"].get("method") == "packed")["counters"]
     .pop("gather_us"), 'missing field "gather_us" (every successful batch_copy/packed run has it)'),
    (lambda r: next(b for b in r["benchmarks"] if b["params"].get("method") == "copy"
                    and b["params"]["family"] == "latency")["params"].pop("bytes"),
     'missing field "bytes" (every successful latency/copy run has it)'),
    (lambda r: next(b for b in r["benchmarks"] if b["params"]["family"] == "batch_copy")["params"]
     .update(tensors="32"), "params.tensors: expected an integer, got a string"),
    (lambda r: next(b for b in r["benchmarks"] if b["params"]["family"] == "strided")["params"].pop("matrix"),
     'missing field "matrix" (every successful strided run has it)'),
])
def test_the_schema_checks_what_the_tools_read(change, problem):
    report = synth.full()
    change(report)
    with pytest.raises(ReportError) as error:
        validate(json.loads(json.dumps(report)), "r.json")
    assert problem in str(error.value)


def test_a_real_gpu_less_run_answers_each_family_with_its_skip_reason(quick_report, tmp_path):
    _, report = quick_report
    if report["context"]["hdbench"]["system"]["gpu_usable"]:
        pytest.skip("a GPU ran these families: the answers are measured")
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    result = run_report_tool("summarize", path)
    assert result.returncode == 0, result.stderr
    reason = report["context"]["hdbench"]["system"]["gpu_unavailable_reason"]
    for family, question in QUESTIONS.items():
        if any(b["params"].get("family") == family for b in report["benchmarks"]):
            assert cannot_answer(result.stdout, question).startswith("Its runs were skipped: "), family
    assert reason in result.stdout.split("\n## Not measured\n")[1]
