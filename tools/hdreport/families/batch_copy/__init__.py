"""The batch_copy family: a batch of tensors moved to the GPU: a copy each, packed, the batch API, a kernel.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.batch_copy import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 50

__all__ = ["figures", "summary", "PLACE"]
