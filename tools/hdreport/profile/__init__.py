"""The profile room: hdbench_profile's `profile` section of a report (a program's data
movement, recorded, judged against a baseline, written, shown and compared). It imports
only itself and the core.

    launch.py     the run: the command under the injection library, the baseline chosen,
                  the report written, the top findings said (tools/hdbench_profile.py)
    report.py     the report hdbench_profile writes: the `profile` section, assembled
    findings.py   its advice, each with the time it would save
    model.py      the step model that prices each fix, alone and together
    steps.py      the feeding thread's steps, cut from a recording, part by part
    handover.py   what a batch from a worker, the pin thread or a gather costs (the probe's, or constants)
    host.py       what each host thread did; the GPU's idle time by cause
    analysis.py   a recording's copy classes, totals and costs
    records.py    what libhdbench_inject.so wrote
    baseline.py   the ceilings from a baseline report
    intervals.py  interval unions and overlaps
    figures.py    the section's figure (`profile_copy_classes`), as a family's figures module
    summary.py    the section's answer on the page, as a family's summary module
    compare.py    two profile reports, before and after, side by side
    compare_findings.py  compare's findings: resolved, new, better, worse; predicted against realized
    compare_text.py  how compare writes its numbers
    verify.py     a profile's prices against the savings measured by fixing each habit alone
    verify_split.py  verify's prices as run without the recording, and each run split into
                  its batch wait and the rest
    verify_text.py  how verify's result reads: its answer line and tables
    ablation.py   what tools/fashion_mnist_ablation.sh measured, as verify reads it

The registry (hdreport/registry.py, SECTIONS) lists the section as `figures` and `summary`,
as each family's package gives its own.
"""

from hdreport.profile import figures, summary

__all__ = ["figures", "summary"]
