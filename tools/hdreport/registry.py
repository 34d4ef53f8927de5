"""Every family the report tools know, each as its figures module and its summary module,
in the order the summary asks their questions. A new family adds its room,
hdreport/families/<family>/ (`figures.py`: SPECS, MAKERS, expand; `summary.py`: QUESTIONS;
`__init__.py` giving both), and one line here. (The list is not named after the families:
that name is the package of their rooms.)

A family's QUESTIONS are asked of every report, and say "cannot answer" (and what to run)
where it has no runs; a summary module that names `ASKED_WHERE_RUN` (a tuple of families)
has its questions asked only of reports with entries of those families (run, skipped or
failed; a family all skipped answers with the reasons): the families that came after the
reference runs (issue 31), so reports without them read as before."""

from __future__ import annotations

from hdreport import profile
from hdreport.families import (batch_copy, dataparallel, device_local, latency, loader, managed, mlp, strided,
                               transfer)

FAMILIES = [
    (transfer.figures, transfer.summary),  # transfer, pinning, staged, host_memcpy, streams
    # Data movement beyond plain copies (issue 31): asked only where they ran (ASKED_WHERE_RUN).
    (device_local.figures, device_local.summary),
    (latency.figures, latency.summary),
    (managed.figures, managed.summary),
    (batch_copy.figures, batch_copy.summary),
    (strided.figures, strided.summary),
    (loader.figures, loader.summary),
    (mlp.figures, mlp.summary),
    (dataparallel.figures, dataparallel.summary),
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
