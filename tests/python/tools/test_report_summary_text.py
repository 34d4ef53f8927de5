"""How the summary page writes what it found, from an audit of the pages drawn from the real GPU
reports: rates to the digits their noise supports, each CPU pair's thread counts, one dtype in
the batch-copy list, a column of one value said once, and a glossary of the terms the page uses.
The reports here are made up for the tests (not measured) unless a reference report is named."""

from __future__ import annotations

import json
from pathlib import Path

from hdreport import summary as report_summary
from hdreport.core import noise
from hdreport.core.markdown import table
from hdreport.core.units import short_number
from summary_tables import tables_of
from test_report_summary import (TRAINING_QUESTION, VS_PYTORCH, mlp_epoch, mlp_step, pytorch_twin, section,
                                 synthetic_report)

REFERENCE = Path(__file__).resolve().parents[3] / "reports" / "reference"
THREADS = "threads (hdbench / PyTorch)"


def with_noise(b: dict, percent: float, samples: int = 40) -> dict:
    b["counters"].update(noise_percent=percent, samples=samples, stopped_at_timeout=0)
    return b


def test_a_rate_is_written_to_the_digits_its_noise_supports():
    # The figures' short form is unchanged; a measured rate keeps its measured zeros.
    assert short_number(9202597) == "9.2M" and short_number(9202597, 3) == "9.20 M"
    assert short_number(999_600, 3) == "1.00 M" and short_number(845.3, 3) == "845"
    run = mlp_epoch("gpu", 1024, 8, 9202597.0, busy=57.0)
    assert noise.rate(9202597.0, [with_noise(run, 0.9)]) == "9.20 M"  # ±0.9%: the rest is noise
    assert noise.rate(9202597.0, [with_noise(run, 0.05)]) == "9.203 M"  # quiet enough for a fourth digit
    assert noise.rate(9202597.0, [with_noise(run, 0.05, samples=1)]) == "9.20 M"  # one sample: noise unknown
    assert noise.rate(9202597.0) == "9.20 M"  # no run (a derived row): three digits

    report = synthetic_report()
    report["benchmarks"] = [with_noise(mlp_epoch("gpu", 1024, 8, 9202597.0, busy=57.0), 0.9),
                            with_noise(mlp_epoch("gpu", 128, 2, 1543101.0, busy=81.0), 0.9)]
    page = report_summary.summarize_reports([("r.json", report)])
    assert "batch 1024 with **8** loader workers (pinned): 9.20 M samples/s" in section(page, TRAINING_QUESTION)
    assert "9,202,597" not in page and "1,543,101" not in page
    assert "| 1.54 M (81%) |" in page  # the epoch table too


def test_each_cpu_pair_says_the_threads_of_both_sides():
    """The H100 of 2026-11-23: hdbench's sweep chose 8 threads for one step and 16 for the others, PyTorch ran 16;
    the pairs' table said neither."""
    hd = synthetic_report()
    cpu = mlp_step("cpu", "784x32x10", 128, 94.0)
    cpu["params"]["threads"] = "auto"
    cpu["counters"]["threads"] = 8.0
    hd["benchmarks"] = [cpu, mlp_step("gpu", "784x32x10", 128, 87.0)]
    pt = {"context": {"host_name": "synthetic-h100", "hdbench": {"implementation": "pytorch"}}, "benchmarks": [
        pytorch_twin("cpu", "784x32x10", 128, 516.0, threads=16), pytorch_twin("gpu", "784x32x10", 128, 997.0)]}
    text = section(report_summary.summarize_reports([("hd.json", hd), ("pt.json", pt)]), VS_PYTORCH)
    pairs = tables_of(text)[0]
    assert {r["processor"]: r[THREADS] for r in pairs} == {"GPU": "–", "CPU": "8 (auto) / 16"}


def copy_step(dtype: str, data: str, batch: int, step_us: float) -> dict:
    return mlp_step("gpu", "784x32x10", batch, step_us, dtype=dtype, data=data)


def test_what_copying_the_batch_costs_is_listed_in_one_dtype():
    """The H200 of 2026-11-27: the fastest step at each point was bf16, but at batch 1024 from pageable memory
    fp32's, so one line of eight read fp32 among bf16 ones."""
    report = synthetic_report()
    report["benchmarks"] = [copy_step(dtype, data, batch, us) for dtype, data, batch, us in (
        ("fp32", "device", 128, 72.0), ("fp32", "pinned", 128, 76.0), ("fp32", "pageable", 128, 107.0),
        ("fp32", "device", 1024, 75.0), ("fp32", "pinned", 1024, 127.0), ("fp32", "pageable", 1024, 376.0),
        ("bf16", "device", 128, 64.0), ("bf16", "pinned", 128, 68.0), ("bf16", "pageable", 128, 103.0),
        ("bf16", "device", 1024, 66.0), ("bf16", "pinned", 1024, 120.0), ("bf16", "pageable", 1024, 380.0))]
    text = section(report_summary.summarize_reports([("r.json", report)]),
                   "What does moving the batch to the GPU cost each step?")
    items = [line for line in text.splitlines() if line.startswith("- ") and "copying the batch" in line]
    assert len(items) == 4
    # Every item is one dtype's: said once above the list, and the benchmark each names is of it.
    assert text.strip().startswith("Every step below is fp32, eager:")
    assert all("/fp32/" in line and "/bf16/" not in line for line in items)
    assert "- 784x32x10, batch 1024: copying the batch from pageable memory makes a step **5.01×** as long " \
           "(376.0 vs 75.0 µs;" in text
    # The other dtype is said in one line, not mixed into the list.
    assert "- Also measured, not listed: bf16, eager: 1.06×–5.76× as long (4 steps)." in text


def test_a_describing_column_of_one_value_is_said_once_above_its_table():
    header = ["model", "optimizer", "batch", "µs", "note"]
    rows = [["784x32x10", "sgd", "128", "2.0", "–"], ["784x4096x10", "sgd", "1024", "2.0", "–"]]
    assert table(header, rows, keys=3) == [
        "On every row: optimizer = sgd.", "",
        "| model | batch | µs | note |", "|---:|---:|---:|---:|",
        "| 784x32x10 | 128 | 2.0 | – |", "| 784x4096x10 | 1024 | 2.0 | – |"]  # a measured column stays
    assert table(header, rows) == table(header, rows, keys=0)  # tables that do not ask keep every column
    assert not table(header, rows)[0].startswith("On every row")
    # one row: its columns are its description
    assert table(header, rows[:1], keys=3)[0] == "| model | optimizer | batch | µs | note |"
    # A column with no value on any row stays; where every describing column is one value, the first labels the rows.
    assert table(["size", "ranks"], [["–", "1"], ["–", "1"]], keys=2)[0] == "On every row: ranks = 1."
    assert table(["model", "ranks", "µs"], [["a", "1", "2"], ["a", "1", "3"]], keys=2)[:3] == \
        ["On every row: ranks = 1.", "", "| model | µs |"]


def test_the_h100_pairs_table_says_its_one_optimizer_once():
    folder = REFERENCE / "h100-2026-11-23b"
    reports = [(str(folder / n), json.loads((folder / n).read_text()))
               for n in ("default-h100.json", "../h100-2026-11-23/pytorch-h100.json")]
    text = section(report_summary.summarize_reports(reports), VS_PYTORCH)
    assert "On every row: optimizer = sgd." in text and "| model | processor | dtype |" in text
    assert all(r["optimizer"] == "sgd" for r in tables_of(text)[0])


def glossary_of(page: str) -> list[str]:
    assert page.count("\n## Glossary\n") <= 1
    return page.split("\n## Glossary\n")[1].strip().splitlines() if "\n## Glossary\n" in page else []


def test_the_glossary_says_only_the_terms_the_page_uses():
    """The page's last section: a line for each of its terms, none for a term it does not use."""
    report = synthetic_report()  # its pipeline is 93% of its ideal
    report["benchmarks"].append(mlp_epoch("gpu", 1024, 8, 9.2e6, busy=57.0))
    page = report_summary.summarize_reports([("r.json", report)])
    assert page.rstrip().split("\n## ")[-1].startswith("Glossary")
    terms = [line.split("**")[1] for line in glossary_of(page)]
    assert terms == ["noise", "GPU busy", "of ideal"]  # no CV, no profile's span or ceiling on this page

    # A profile's page: its span and its copies' share of the ceiling.
    profile = REFERENCE / "h100-2026-11-28b" / "profiles" / "prof-tutorial.json"
    page = report_summary.summarize_reports([(str(profile), json.loads(profile.read_text()))])
    terms = [line.split("**")[1] for line in glossary_of(page)]
    assert "span" in terms and "of ceiling" in terms and "of ideal" not in terms

    # A question that names the GPU's being busy is not the measure; a page of no term has no glossary.
    assert report_summary.glossary(["## Which batch size and loader workers keep the GPU busy in training?"]) == []


def test_the_html_page_closes_with_the_same_glossary():
    """The HTML page says the terms its text uses, as the summary does (it had no glossary)."""
    import pytest

    pytest.importorskip("matplotlib")
    from hdreport import page as report_page

    profile = REFERENCE / "h100-2026-11-28b" / "profiles" / "prof-tutorial.json"
    text = report_page.page([(str(profile), json.loads(profile.read_text()))])
    glossary = text[text.index("<section id=glossary>"):]
    assert "<strong>span</strong>" in glossary and "<strong>of ceiling</strong>" in glossary
    assert "<strong>of ideal</strong>" not in glossary and glossary.index("</section>") < glossary.index("</body>")


def test_the_html_page_folds_the_questions_it_cannot_answer_into_one_section():
    """The H100's large step beside PyTorch (2026-11-28b) answers two questions: the page lists the
    others in one section, linked once from its questions, as the summary does."""
    import pytest

    pytest.importorskip("matplotlib")
    from hdreport import page as report_page

    folder = REFERENCE / "h100-2026-11-28b" / "overhead"
    reports = [(str(folder / n), json.loads((folder / n).read_text())) for n in ("gpu-large.json",
                                                                              "pytorch-gpu-large.json")]
    text = report_page.page(reports)
    assert text.count("<li><a href='#cannot-answer'>What these reports cannot answer</a></li>") == 1
    folded = text[text.index("<section id='cannot-answer'>"):].split("</section>")[0]
    assert folded.count("<li>") == len(report_summary.QUESTIONS) - 2 and "No successful runs of" in folded
    assert "This report cannot answer it" not in text
