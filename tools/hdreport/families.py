"""Every family the report tools know, each as its figures module and its summary module,
in the order the summary asks their questions. A new family adds its two modules
(`<family>_figures.py`: SPECS, MAKERS, expand; `<family>_summary.py`: QUESTIONS) and one
line here."""

from __future__ import annotations

from hdreport import (dataparallel_figures, dataparallel_summary, loader_figures, loader_summary, mlp_figures,
                      mlp_summary, profile_figures, profile_summary, transfer_figures, transfer_summary)

FAMILIES = [
    (transfer_figures, transfer_summary),  # transfer, pinning, staged, host_memcpy, streams
    (loader_figures, loader_summary),
    (mlp_figures, mlp_summary),
    (dataparallel_figures, dataparallel_summary),
]

# Sections a report carries besides its benchmarks: hdbench_profile's `profile` (another
# program's copies, judged against this machine's report; its report has no benchmarks).
# Their figures are made as a family's are (the figures module: SPECS, MAKERS, expand), but
# a family's QUESTIONS are asked of every report, and say "cannot answer" where it has no
# runs, while a section is shown only where a report has one, and first. So the summary
# module gives `sections(reports)`, [(anchor, heading, Markdown lines, figure names)] ([] for
# reports without the section), and `title(reports)`, the page's title when the reports
# hold no benchmarks at all.
SECTIONS = [
    (profile_figures, profile_summary),
]
