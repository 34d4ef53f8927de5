"""The strided family: a strided slice moved to the GPU: cudaMemcpy2D, a host pack, a kernel, contiguous.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.strided import figures, summary

__all__ = ["figures", "summary"]
