"""hdbench's report tools as a package; tools/hdbench_report.py and tools/hdbench_profile.py
are its command lines, which parse their arguments and call in here.

Rooms, each a folder, and what each may import (tests/python/tools/test_python_layering.py
reads the imports and fails on a sibling or an upward one):

    the top level        may import any room
        page.py          the one-page HTML: figures, summary, machine, skips
        figures.py       every figure, family by family, then section by section
        summary.py       every answer, the same way, under the page's headlines
        registry.py      the list of families (figures module, summary module) and of
                         sections (a report's `profile`)
        compare.py       new against base, per benchmark
    families/<family>/   imports the core and itself, never another family: figures.py
                         (SPECS, MAKERS, expand) and summary.py (QUESTIONS), one room a
                         family the registry lists (families/__init__.py)
    profile/             imports the core and itself: hdbench_profile's `profile` section,
                         its run, analysis, step model, findings, report, figure, answer and
                         comparison (profile/__init__.py)
    core/                imports only the core: reading (and checking) a report, writing one,
                         units, Markdown, how sure a number is, the figures' machinery and
                         look, and what two or more families share (core/__init__.py)

Outside the package: the standard library, and matplotlib and numpy only where a figure is
drawn, so importing the package (or any room) imports nothing heavy.
"""
