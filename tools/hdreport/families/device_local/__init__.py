"""The device_local family: copies within one GPU's memory: the copy engine against an SM kernel.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.device_local import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 20

__all__ = ["figures", "summary", "PLACE"]
