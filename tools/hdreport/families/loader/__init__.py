"""The loader family: the input pipeline: samples/s by workers, pinning, batch and sample cost.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.loader import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 70

__all__ = ["figures", "summary", "PLACE"]
