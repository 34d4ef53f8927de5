"""The family rooms: one package a benchmark family (or a few that share their figures and
questions, as the copy families do), each importing only itself and the core, never another
family: what two families share lives in the core (movement.py, bandwidth.py, feeding.py).

    <family>/figures.py   SPECS (line figures, drawn by core/facets.py), MAKERS (bars, heat
                          maps), expand (the runs as its figures read them); ALSO_DRAWN and
                          notes where it has them (hdreport/figures.py)
    <family>/summary.py   QUESTIONS (anchor, question, answer, what to run, figure prefixes);
                          ASKED_WHERE_RUN where its questions are asked only of reports with
                          its entries (hdreport/summary.py)
    <family>/__init__.py  gives both, and PLACE: where its questions come in the summary

hdreport/registry.py finds every room here, so adding one touches nothing outside it
(transfer's room also answers for pinning, staged, host_memcpy and streams).
"""
