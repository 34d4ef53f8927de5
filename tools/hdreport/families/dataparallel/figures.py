"""The dataparallel family's figures.

Its one line figure (`dataparallel_step_us--…`): the GPU
data-parallel step's time against batch size, one line per exchange: gradients
all-reduced in buckets overlapped with the backward pass (`bucketed`, as DDP), one
all-reduce after the backward pass (`none`), and the same rank's step with no
all-reduce at all (`no_exchange`), the floor both are read against. Every GPU step
measures its no-exchange step (`step_no_exchange_us`) beside its own; `with_no_exchange`
adds each as a run of its own so the generic code (core/facets.py) draws it.
"""

from __future__ import annotations

from hdreport.core import style
from hdreport.core.facets import Spec

# The gradient exchange: overlapped buckets, one all-reduce after backward, none at all.
style.register_look(colours={"overlap": {"bucketed": "#59a14f", "none": "#e15759", "no_exchange": "#7f7f7f"}})

NO_EXCHANGE = "no_exchange"

SPECS = [
    Spec("dataparallel_step_us", "Data-parallel GPU step time against batch: gradients all-reduced in overlapped "
         "buckets, once after backward, or not at all", "batch", "step_us",
         where={"family": "dataparallel", "variant": "gpu_step"}, figure_by=("model",), cols="ranks",
         series=("overlap",), ylabel="step time (µs)", min_xs=2),
]


def with_no_exchange(benchmarks: list[dict]) -> list[dict]:
    """The benchmarks, and after them per successful GPU step a copy whose params say
    `overlap: no_exchange` and whose `step_us` is the step's `step_no_exchange_us`
    (the bucketed and the none run both measure it: the figure draws their median).
    A floor above its step beyond the step's noise is left out: an exchange adds work, so that
    reference is wrong (the summary says so), and drawn it showed the all-reduce making the step
    faster (the H200's one-rank steps of 2026-11-27: 134 µs with none, 99-103 µs with it)."""
    out = list(benchmarks)
    for b in benchmarks:
        p, counters = b.get("params", {}), b.get("counters", {})
        floor, step = counters.get("step_no_exchange_us"), counters.get("step_us")
        above = floor is not None and step is not None and floor > step * (1 + counters.get("noise_percent", 0) / 100)
        if p.get("family") == "dataparallel" and p.get("variant") == "gpu_step" and b.get("status") == "ok" \
                and floor is not None and not above:
            out.append({**b, "name": f"{b.get('name', '?')} (step_no_exchange_us)",
                        "params": {**p, "overlap": NO_EXCHANGE},
                        "counters": {"step_us": counters["step_no_exchange_us"]}})
    return out


MAKERS = ()
expand = with_no_exchange
