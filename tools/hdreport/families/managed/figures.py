"""The managed family's figure: migration bandwidth against size, a panel per direction and
a line per variant (demand faults, a prefetch, the memory-advice ones), with the pinned
copies of the same direction from the transfer family drawn beside them (a wide pale line:
the reference a managed buffer is measured against) and the PCIe link's rate."""

from __future__ import annotations

from hdreport.core import style
from hdreport.core.bandwidth import BANDWIDTH, link_rates
from hdreport.core.facets import Spec

# Its ways of moving pages (pinned copies, their reference, are blue as pinned memory).
style.register_look(
    colours={"variant": {"demand": "#e377c2", "prefetch": "#2ca02c", "read_mostly": "#ff7f0e",
                         "preferred_gpu": "#9467bd", "accessed_by_gpu": "#8c564b"}},
    order=("demand", "prefetch", "read_mostly", "preferred_gpu", "accessed_by_gpu"))

PINNED_COPIES = {"family": "transfer", "engine": "copy", "variant": "per_copy", "memory": "pinned",
                 "direction": frozenset({"h2d", "d2h"})}

SPECS = [
    Spec("managed", "Managed memory: pages moved on demand, by a prefetch and under advice, beside pinned copies",
         "bytes", "bandwidth_GB/s", where={"family": "managed"}, cols="direction", series=("variant",),
         ylabel=BANDWIDTH, references=link_rates, companions=(PINNED_COPIES,),
         title_alone="Managed memory: pages moved on demand, by a prefetch and under advice",
         missing_companions="no pinned copies of these sizes in the report (run `transfer` with the same sizes)"),
]
MAKERS = ()


def expand(benchmarks: list[dict]) -> list[dict]:
    return benchmarks
