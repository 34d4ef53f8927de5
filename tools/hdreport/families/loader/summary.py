"""The loader family's questions of `summarize` (see hdreport/summary.py): how many workers keep the
consumer fed (samples/s by batch, pinning and workers, hdbench's loader beside PyTorch's
DataLoader), what PyTorch's pin thread costs against collating straight into pinned
memory, and what workers sharing each batch in parts buy over a worker a batch."""

from __future__ import annotations

import statistics

from hdreport.core import noise
from hdreport.core.feeding import FED_FRACTION, PINNING_ORDER
from hdreport.core.markdown import name, sources, table
from hdreport.core.schema import ok_runs
from hdreport.families.loader.figures import SPLIT, WHOLE, build_of


def _loader_point(row: dict, workers: int) -> str:
    """The rest of a derived loader row's grid point, in words (no depth without workers;
    split builds said, whole ones, every report's before splitting, not)."""
    depth = f"prefetch depth {row['prefetch_depth']}, " if workers else ""
    split = "split batches, " if workers >= 2 and build_of(row) == SPLIT else ""
    return f"{split}{depth}{'shuffled' if row['shuffle'] else 'sequential'}, augment {row['augment']}"


def loader_run(report: dict, row: dict, pinning: str, workers: int, build: str | None = None) -> dict | None:
    """The successful loader run at a derived row's grid point. A 0-worker run has one depth
    only, and the derived rows count it at every depth, so its depth is not matched; runs
    of fewer than two workers build whole batches, and the derived rows count them in
    every build."""
    want = {k: row[k] for k in ("consumer", "batch", "sample_cost_us", "shuffle", "augment")}
    want.update(pinning=pinning, workers=workers)
    if workers:
        want["prefetch_depth"] = row["prefetch_depth"]
    want_build = WHOLE if workers < 2 else (build or build_of(row))
    return next((b for b in ok_runs(report, "loader") if all(b["params"].get(k) == v for k, v in want.items())
                 and build_of(b["params"]) == want_build
                 and b.get("_source", row.get("_source")) == row.get("_source", b.get("_source"))), None)


def _rate(report: dict, row: dict, pinning: str, workers: int, value: float) -> str:
    """A derived row's samples/s to the digits the noise of the run it came from supports."""
    return noise.rate(value, [loader_run(report, row, pinning, workers)])


def _sources(report: dict, row: dict, pinnings: tuple[str, ...], workers: int, table_name: str) -> str:
    """The benchmarks a derived loader row came from, or the row's table when one is missing."""
    runs = [loader_run(report, row, pinning, workers) for pinning in pinnings]
    return " vs ".join(map(name, runs)) if all(runs) else f"`derived.{table_name}`"


def best_scaling_rows(report: dict) -> dict:
    """{(consumer, sample cost): the loader_scaling row with the highest samples/s}."""
    best = {}
    for row in report.get("derived", {}).get("loader_scaling", []):
        key = (row["consumer"], row["sample_cost_us"])
        if key not in best or row["best_samples/s"] > best[key]["best_samples/s"]:
            best[key] = row
    return best


def unmeasured(report: dict, consumer: str, cost: float) -> list[str]:
    """The grid points of one consumer and sample cost that were not measured, in words
    ('batch 1024, direct, 8 workers: skipped (not run: … budget reached)'): the loader's
    skipped and failed entries (points cut by `--hdbench_max_minutes` are skipped ones).
    Where any is missing the best worker count is not known: the missing point may be it."""
    out = []
    measured = {b.get("name") for b in ok_runs(report, "loader")}  # another report given may have run it
    for b in report["benchmarks"]:
        p = b.get("params", {})
        if b.get("name") in measured:
            continue
        if p.get("family") != "loader" or b.get("status") == "ok" or b.get("run_type", "iteration") != "iteration":
            continue
        if p.get("consumer") != consumer or p.get("sample_cost_us") != cost:
            continue
        why = " ".join(str(b.get("skip_reason") or b.get("error_message") or "no reason given").split())
        out.append(f"batch {p.get('batch', '?')}, {p.get('pinning', '?')}, {p.get('workers', '?')} workers: "
                   f"{'skipped' if b.get('status') == 'skipped' else 'failed'} ({why})")
    return out


def unmeasured_text(missing: list[str], limit: int = 4) -> str:
    shown = "; ".join(missing[:limit]) + (f"; and {len(missing) - limit} more" if len(missing) > limit else "")
    return f"{len(missing)} point{'s' if len(missing) != 1 else ''} of the grid not measured ({shown})"


def loader_workers(report: dict) -> list[str]:
    lines = []
    for (consumer, cost), row in sorted(best_scaling_rows(report).items()):
        workers, best, cells = row["best_workers"], row["best_samples/s"], row["by_workers"]
        missing = unmeasured(report, consumer, cost)
        if missing:
            lines.append(f"- {consumer} consumer, {cost:g} µs/sample: **not answered**: {unmeasured_text(missing)}, "
                         f"so the best worker count is not known (a point not measured may be it). The fastest "
                         f"measured, not an answer: batch {row['batch']}, {row['pinning']}, {workers} workers, "
                         f"{_rate(report, row, row['pinning'], workers, best)} samples/s "
                         f"({_sources(report, row, (row['pinning'],), workers, 'loader_scaling')}). "
                         "Run the grid in full (a larger `--hdbench_max_minutes`, or `--hdbench_families=loader` alone).")
            continue
        speedup = cells[str(workers)].get("speedup_vs_0_workers")
        if workers == 0:
            versus = "no worker count beat building batches on the consumer thread"
        elif speedup is None:
            versus = "no 0-worker run at that batch to compare with"
        else:
            versus = f"**{speedup:.2f}×** the rate with 0 workers at that batch"
        implementation = _loader_implementation(report, row)
        whose = "" if implementation == "hdbench" else f"{implementation}'s loader, "
        run = loader_run(report, row, row["pinning"], workers)
        line = (f"- {consumer} consumer, {cost:g} µs/sample: best batch {row['batch']} with **{workers}** workers, "
                f"{noise.rate(best, [run])} samples/s, {versus} ({whose}{row['pinning']}, "
                f"{_loader_point(row, workers)}; {_sources(report, row, (row['pinning'],), workers, 'loader_scaling')})"
                f"{noise.noise_note([run])}.")
        enough = min(int(w) for w, cell in cells.items() if cell["samples/s"] >= FED_FRACTION * best)
        if enough < workers:
            line += f" {enough} workers already reach {100 * cells[str(enough)]['samples/s'] / best:.0f}% of it."
        lines.append(line)
    return lines + split_build(report) + loader_tables(report)


def _loader_implementation(report: dict, row: dict) -> str:
    """Whose loader a derived row measured (hdbench's or the PyTorch baseline's), from the
    runs of the report it came from."""
    return next((b["params"].get("implementation", "hdbench") for b in ok_runs(report, "loader")
                 if b.get("_source") == row.get("_source")), "hdbench")


def loader_tables(report: dict) -> list[str]:
    """samples/s by batch x pinning (rows) and workers (columns), per consumer, cost and depth;
    with an implementation column when hdbench's and PyTorch's loaders are both there, and a
    build column when whole and split builds are."""
    groups = {}
    for row in report.get("derived", {}).get("loader_scaling", []):
        key = (row["consumer"], row["sample_cost_us"], row["prefetch_depth"], row["shuffle"], row["augment"])
        groups.setdefault(key, []).append(row)
    lines = []
    for (consumer, cost, depth, shuffle, augment), rows in sorted(groups.items(), key=lambda item: str(item[0])):
        workers = sorted({int(w) for row in rows for w in row["by_workers"]})
        implementations = {id(row): _loader_implementation(report, row) for row in rows}
        mixed = len(set(implementations.values())) > 1
        several_builds = len({build_of(row) for row in rows}) > 1
        body = []
        for row in sorted(rows, key=lambda r: (r["batch"], implementations[id(r)], PINNING_ORDER.get(r["pinning"], 9),
                                               build_of(r))):
            best = row["best_workers"]
            cells = {w: _rate(report, row, row["pinning"], w, row["by_workers"][str(w)]["samples/s"])
                     for w in workers if str(w) in row["by_workers"]}
            body.append([str(row["batch"])] + ([implementations[id(row)]] if mixed else []) + [row["pinning"]]
                        + ([build_of(row)] if several_builds else [])
                        + [f"**{cells[w]}**" if w == best else cells.get(w, "–") for w in workers])
        # One build in the table: split is said (0 and 1 workers build whole batches either way).
        built = ", split batches" if not several_builds and build_of(rows[0]) == SPLIT else ""
        lines += ["", f"Samples/s, {consumer} consumer, {cost:g} µs/sample, prefetch depth {depth}, "
                      f"{'shuffled' if shuffle else 'sequential'}, augment {augment}{built} "
                      "(bold: the best worker count):", ""]
        lines += table(["batch"] + (["loader"] if mixed else []) + ["pinning"] + (["build"] if several_builds else [])
                       + [f"{w} workers" for w in workers], body, keys=2 + mixed + several_builds)
        lines += ["", f"From `derived.loader_scaling` ({sources(report, rows)}): the "
                      f"`loader/{consumer}/<pinning>/batch:<batch>/workers:<workers>/…` runs."]
    return lines


def _ratios_by_consumer(report: dict, table_name: str, ratio: str):
    """(consumer, its rows of derived `table_name`, their median `ratio`, the row with the
    highest) for each consumer, in order."""
    by_consumer: dict[str, list[dict]] = {}
    for row in report.get("derived", {}).get(table_name, []):
        by_consumer.setdefault(row["consumer"], []).append(row)
    for consumer, rows in sorted(by_consumer.items()):
        yield consumer, rows, statistics.median(r[ratio] for r in rows), max(rows, key=lambda r: r[ratio])


def pin_thread_cost(report: dict) -> list[str]:
    lines = []
    for consumer, rows, median, best in _ratios_by_consumer(report, "loader_pinning", "direct_over_pin_thread"):
        verdict = ("the pin thread's extra copy costs throughput" if median > 1
                   else "the pin thread costs no throughput here")
        workers = best["workers"]
        lines.append(
            f"- {consumer} consumer, direct collation into pinned memory over a pin thread's extra copy: "
            f"median **{median:.2f}×** over {len(rows)} grid points ({verdict}); "
            f"best **{best['direct_over_pin_thread']:.2f}×** at batch {best['batch']}, {workers} workers, "
            f"{best['sample_cost_us']:g} µs/sample, {_loader_point(best, workers)}: "
            f"{_rate(report, best, 'direct', workers, best['direct_samples/s'])} vs "
            f"{_rate(report, best, 'pin_thread', workers, best['pin_thread_samples/s'])} samples/s "
            f"({_sources(report, best, ('direct', 'pin_thread'), workers, 'loader_pinning')}).")
        if "pageable_samples/s" in best:
            lines.append(f"  Pageable batches (no pinning) at that point: "
                         f"{_rate(report, best, 'pageable', workers, best['pageable_samples/s'])} samples/s.")
        if len(rows) > 1:
            body = [[f"{r['sample_cost_us']:g}", str(r["batch"]), str(r["workers"])] +
                    [_rate(report, r, pinning, r["workers"], r[f"{pinning}_samples/s"])
                     if f"{pinning}_samples/s" in r else "–" for pinning in ("direct", "pin_thread", "pageable")] +
                    [f"**{r['direct_over_pin_thread']:.2f}×**"]
                    for r in sorted(rows, key=lambda r: (r["sample_cost_us"], r["batch"], r["workers"]))]
            lines += ["", f"Samples/s of the {consumer} consumer by pinning mode:", ""]
            lines += table(["µs/sample", "batch", "workers", "direct", "pin thread", "pageable", "direct ÷ pin thread"],
                           body, keys=3)
            lines += ["", f"From `derived.loader_pinning` ({sources(report, rows)}): the `loader/{consumer}/<pinning>/…` "
                          "runs."]
    return lines



def split_build(report: dict) -> list[str]:
    """What workers sharing each batch in parts bought over a worker a batch, per consumer:
    the median and best ratio of samples/s, and the wait for an epoch's first batch (the
    pipeline's fill, which splitting is meant to cut) at the best point."""
    lines = []
    for consumer, rows, median, best in _ratios_by_consumer(report, "loader_build", "split_over_whole"):
        workers = best["workers"]
        split_run = loader_run(report, best, best["pinning"], workers, SPLIT)
        whole_run = loader_run(report, best, best["pinning"], workers, WHOLE)
        verdict = "splitting helps" if median > 1 else "splitting does not help here"
        line = (f"- {consumer} consumer, split over whole batches: median **{median:.2f}×** over {len(rows)} grid "
                f"points ({verdict}); best **{best['split_over_whole']:.2f}×** at batch {best['batch']}, "
                f"{best['pinning']}, {workers} workers, {best['sample_cost_us']:g} µs/sample: "
                f"{noise.rate(best['split_samples/s'], [split_run])} vs "
                f"{noise.rate(best['whole_samples/s'], [whole_run])} samples/s")
        fills = [r.get("counters", {}).get("first_batch_us") for r in (split_run, whole_run) if r]
        if len(fills) == 2 and None not in fills:
            line += f"; first batch of an epoch after {fills[0]:,.0f} vs {fills[1]:,.0f} µs"
        runs = f"{name(split_run)} vs {name(whole_run)}" if split_run and whole_run else "`derived.loader_build`"
        lines.append(f"{line} ({runs}){noise.noise_note([r for r in (split_run, whole_run) if r])}.")
    return lines


QUESTIONS = [
    ("loader-workers", "How many loader workers keep the consumer fed?", loader_workers,
     "the `loader` family with 0 and more workers", ("loader--", "loader_heatmap", "loader_build")),
    ("pin-thread", "Does PyTorch's pin thread cost throughput?", pin_thread_cost,
     "the `loader` family on a GPU with `pin_thread` and `direct` pinning", ("loader_pinning",)),
]
