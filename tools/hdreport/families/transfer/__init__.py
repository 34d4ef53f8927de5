"""The transfer family: the copy families: transfer, pinning, staged, host_memcpy, streams.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.transfer import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 10

__all__ = ["figures", "summary", "PLACE"]
