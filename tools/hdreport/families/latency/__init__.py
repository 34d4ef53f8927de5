"""The latency family: one small copy's time, and a pointer chase over the link and in device memory.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.latency import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 30

__all__ = ["figures", "summary", "PLACE"]
