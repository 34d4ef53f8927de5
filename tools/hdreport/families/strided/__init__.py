"""The strided family: a strided slice moved to the GPU: cudaMemcpy2D, a host pack, a kernel, contiguous.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.strided import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 60

__all__ = ["figures", "summary", "PLACE"]
