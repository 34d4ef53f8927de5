"""The mlp family: the MLP's training step and epoch: GPU against CPU, hdbench against PyTorch.
figures.py draws its figures, summary.py answers its questions (hdreport/families/__init__.py),
the one beside PyTorch from versus_pytorch.py."""

from hdreport.families.mlp import figures, summary

# Where its questions come in the summary (hdreport/registry.py): the order hdbench runs families in.
PLACE = 80

__all__ = ["figures", "summary", "PLACE"]
