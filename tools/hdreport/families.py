"""Every family the report tools know, each as its figures module and its summary module,
in the order the summary asks their questions. A new family adds its two modules
(`<family>_figures.py`: SPECS, MAKERS, expand; `<family>_summary.py`: QUESTIONS) and one
line here.

A family's QUESTIONS are asked of every report, and say "cannot answer" (and what to run)
where it has no runs; a summary module that names `ASKED_WHERE_RUN` (a tuple of families)
has its questions asked only of reports with entries of those families (run, skipped or
failed; a family all skipped answers with the reasons): the families that came after the
reference runs (issue 31), so reports without them read as before."""

from __future__ import annotations

from hdreport import (batch_copy_figures, batch_copy_summary, dataparallel_figures, dataparallel_summary,
                      device_local_figures, device_local_summary, latency_figures, latency_summary, loader_figures,
                      loader_summary, managed_figures, managed_summary, mlp_figures, mlp_summary, profile,
                      strided_figures, strided_summary, transfer_figures, transfer_summary)

FAMILIES = [
    (transfer_figures, transfer_summary),  # transfer, pinning, staged, host_memcpy, streams
    # Data movement beyond plain copies (issue 31): asked only where they ran (ASKED_WHERE_RUN).
    (device_local_figures, device_local_summary),
    (latency_figures, latency_summary),
    (managed_figures, managed_summary),
    (batch_copy_figures, batch_copy_summary),
    (strided_figures, strided_summary),
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
    (profile.figures, profile.summary),
]
