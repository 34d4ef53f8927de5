"""Every family the report tools know, each as its figures module and its summary module,
in the order the summary asks their questions. A new family adds its two modules
(`<family>_figures.py`: SPECS, MAKERS, expand; `<family>_summary.py`: QUESTIONS) and one
line here."""

from __future__ import annotations

from hdreport import (dataparallel_figures, dataparallel_summary, loader_figures, loader_summary, mlp_figures,
                      mlp_summary, transfer_figures, transfer_summary)

FAMILIES = [
    (transfer_figures, transfer_summary),  # transfer, pinning, staged, host_memcpy, streams
    (loader_figures, loader_summary),
    (mlp_figures, mlp_summary),
    (dataparallel_figures, dataparallel_summary),
]
