"""The batch_copy family: a batch of tensors moved to the GPU: a copy each, packed, the batch API, a kernel.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.batch_copy import figures, summary

__all__ = ["figures", "summary"]
