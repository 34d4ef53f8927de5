"""Every family the report tools know, found as rooms: each package under
hdreport/families/ (`figures.py`: SPECS, MAKERS, expand; `summary.py`: QUESTIONS;
`__init__.py` giving both and its PLACE). A new family adds its room and nothing here.
The rooms are taken in the order of their PLACE, the order the summary asks their
questions in (the order hdbench runs the families in, bench/families.cpp).

A family's QUESTIONS are asked of every report, and say "cannot answer" (and what to run)
where it has no runs; a summary module that names `ASKED_WHERE_RUN` (a tuple of families)
has its questions asked only of reports with entries of those families (run, skipped or
failed; a family all skipped answers with the reasons): the families that came after the
reference runs (issue 31), so reports without them read as before."""

from __future__ import annotations

import importlib
import pkgutil

from hdreport import families as rooms_package
from hdreport import profile


def _rooms() -> list:
    rooms = [importlib.import_module(f"{rooms_package.__name__}.{info.name}")
             for info in pkgutil.iter_modules(rooms_package.__path__) if info.ispkg]
    places = {}
    for room in rooms:
        place = getattr(room, "PLACE", None)
        if not isinstance(place, int):
            raise ImportError(f"{room.__name__} gives no PLACE (an int: where its questions come in the summary)")
        if place in places:
            raise ImportError(f"{room.__name__} and {places[place]} share PLACE {place}: each room needs its own")
        places[place] = room.__name__
    return sorted(rooms, key=lambda room: room.PLACE)


ROOMS = _rooms()
FAMILIES = [(room.figures, room.summary) for room in ROOMS]

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
