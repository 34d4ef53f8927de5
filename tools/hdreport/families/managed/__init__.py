"""The managed family: managed memory: pages moved on demand, by a prefetch and under advice.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py)."""

from hdreport.families.managed import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 40

__all__ = ["figures", "summary", "PLACE"]
