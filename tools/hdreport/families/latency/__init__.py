"""The latency family: one small copy's time, and a pointer chase over the link and in device memory.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.latency import figures, summary

__all__ = ["figures", "summary"]
