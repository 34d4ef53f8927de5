"""The loader family: the input pipeline: samples/s by workers, pinning, batch and sample cost.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.loader import figures, summary

__all__ = ["figures", "summary"]
