"""The managed family: managed memory: pages moved on demand, by a prefetch and under advice.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.managed import figures, summary

__all__ = ["figures", "summary"]
