"""hdbench's report tools as a package; tools/hdbench_report.py is its command line.

Layers, each importing only those below it (tests/python/tools/test_python_layering.py):

    page.py                      the one-page HTML: figures, summary, machine, skips
    figures.py  summary.py       every figure / every answer, family by family
    families.py                  the list of families: (figures module, summary module), and
                                 of sections (a report's `profile`, hdbench_profile's)
    <family>_figures.py          SPECS, MAKERS, expand for transfer, device_local, latency, managed,
                                 batch_copy, strided, loader, mlp, dataparallel, profile
    <family>_summary.py          QUESTIONS for the same families; sections and title for profile
    movement.py                  what the data-movement families' answers share (their skips)
    facets.py bars.py style.py   line figures, bar figures, the look they share
    markdown.py noise.py         tables and names; how sure a number is
    compare.py                   new against base, per benchmark
    profile_compare.py           two profile reports, before and after, side by side
    profile_report.py            hdbench_profile (tools/hdbench_profile.py): the `profile` section
    profile_findings.py          its advice, each with the time it would save
    profile_model.py             the step model that prices each fix, alone and together
    profile_host.py              what each host thread did; the GPU's idle time by cause
    profile_analysis.py          a recording's copy classes, totals and costs
    profile_records.py           what libhdbench_inject.so wrote; profile_baseline.py: the
    profile_intervals.py         ceilings from a baseline report; interval unions and overlaps
    schema.py units.py writer.py reading (and checking) a report; sizes and counts as text;
                                 writing one (the PyTorch baselines' report entries)

Importing the package imports nothing heavy: matplotlib and numpy are imported where a
figure is drawn.
"""
