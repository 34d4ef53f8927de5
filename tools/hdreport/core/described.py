"""What a report says of its families: `context.hdbench.families`, written by hdbench from each
family's description in C++ (lib/<area>/<family>_description.cpp; docs/report-format.md, whose
params and counters tables are generated from the same descriptions). Each family's params
(type, where required, the labels of its values), counters, the param that splits it into
kinds and the params that split its noise into groups: the report tools read them here, so no
tool keeps a table of families.

A report written before reports carried descriptions (every report of 2026-11-26 and earlier)
is read through the legacy snapshot, `legacy_families.json`: the descriptions as hdbench wrote
them on 2026-11-26, frozen, because it describes those reports and not today's code.

Value labels ("per_tensor" reads "one copy per tensor") are learned from the snapshot and from
every report the tools read (`learn`), so a figure labels values without holding the report.
"""

from __future__ import annotations

import json
from pathlib import Path

LEGACY: dict = json.loads(Path(__file__).with_name("legacy_families.json").read_text(encoding="utf-8"))
_labels: dict[tuple[str, str], str] = {}


def _learn_labels(families: dict) -> None:
    for family in families.values():
        for param in family.get("params", []):
            for v in param.get("values", []):
                _labels[(param["key"], v["value"])] = v["label"]


_learn_labels(LEGACY)


def carried(report: dict) -> dict:
    """The descriptions the report carries itself ({} for a report from before them)."""
    return report.get("context", {}).get("hdbench", {}).get("families") or {}


def families_of(report: dict) -> dict:
    """Every family's description as this report's runs were written: its own where it
    carries them, the legacy snapshot's for any other family."""
    return {**LEGACY, **carried(report)}


def learn(report: dict) -> None:
    """Takes the value labels of the report's own descriptions (a newer hdbench's words)."""
    _learn_labels(carried(report))


def label(key: str, value: str) -> str | None:
    """The label a family gives `value` of its param `key`, if one does."""
    return _labels.get((key, value))


def noise_groups(report: dict, family: str) -> tuple[str, ...]:
    return tuple(families_of(report).get(family, {}).get("noise_groups", ()))
