"""The dataparallel family: the data-parallel step: its all-reduce, its scaling, its overlap.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.dataparallel import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 90

__all__ = ["figures", "summary", "PLACE"]
