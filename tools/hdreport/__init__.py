"""hdbench's report tools as a package; tools/hdbench_report.py is its command line.

Layers, each importing only those below it (tests/python/tools/test_python_layering.py):

    page.py                      the one-page HTML: figures, summary, machine, skips
    figures.py  summary.py       every figure / every answer, family by family
    families.py                  the list of families: (figures module, summary module)
    <family>_figures.py          SPECS, MAKERS, expand for transfer, loader, mlp, dataparallel
    <family>_summary.py          QUESTIONS for the same families
    facets.py bars.py style.py   line figures, bar figures, the look they share
    markdown.py noise.py         tables and names; how sure a number is
    compare.py                   new against base, per benchmark
    schema.py units.py writer.py reading (and checking) a report; sizes and counts as text;
                                 writing one (the PyTorch baselines' report entries)

Importing the package imports nothing heavy: matplotlib and numpy are imported where a
figure is drawn.
"""
