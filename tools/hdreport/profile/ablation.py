"""tools/fashion_mnist_ablation.sh's JSON as `verify` reads it (issue 38, item 4): one file
checked (`load_ablation`) or several of the same program taken as one (`merged_ablations`),
and what each variant measured: its saving against plain's wall time, round by round
(`measured`), and on the runs' fastest stretches (`paced`, `pace_scale`); which habits a
variant fixed (`fixes_of`) and which program it ran (`ablation_step_wait`).
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

from hdreport.core.schema import ReportError, SchemaError, check_strings, read_input_bytes
from hdreport.profile.model import HABITS  # tutorial_style.py's --fix names, also the model's fixes


@dataclass
class Measured:
    median_s: float
    range_s: tuple | None  # the rounds' paired savings, (min, max); None with one round or none paired
    runs: int


def load_ablation(path: str) -> dict:
    """tools/fashion_mnist_ablation.sh's JSON, checked for the fields read here; ReportError
    (one line naming the file) otherwise."""
    try:
        data = check_strings(json.loads(read_input_bytes(path).decode()), show=True)  # lines the scripts printed
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, SchemaError) as e:
        raise ReportError(f"{path}: not the JSON of tools/fashion_mnist_ablation.sh ({e})") from None
    if not isinstance(data, dict) or not isinstance(data.get("variants"), dict) or \
            not isinstance(data.get("steps"), int) or isinstance(data.get("steps"), bool) or data["steps"] < 1:
        raise ReportError(f"{path}: not the JSON of tools/fashion_mnist_ablation.sh "
                          "(it needs `steps`, a positive integer, and `variants`, an object)")
    for name, v in data["variants"].items():
        if not isinstance(v, dict):
            raise ReportError(f"{path}: variants.{name}: expected an object")
        if v.get("failed"):
            continue
        if not number(v.get("wall_s")) or v["wall_s"] <= 0:
            raise ReportError(f"{path}: variants.{name}.wall_s: expected a number of seconds above 0")
        r = v.get("saved_s_range")
        if r is not None and not (isinstance(r, list) and len(r) == 2 and all(number(x) for x in r)):
            raise ReportError(f"{path}: variants.{name}.saved_s_range: expected [min, max]")
        for key in ("result_line", "step"):
            if v.get(key) is not None and not isinstance(v[key], str):
                raise ReportError(f"{path}: variants.{name}.{key}: expected a string (the script's own)")
    warmup = data.get("warmup")
    if warmup is not None and not (isinstance(warmup, dict) and (warmup.get("runs") is None or (
            isinstance(warmup["runs"], int) and not isinstance(warmup["runs"], bool) and warmup["runs"] >= 0))):
        raise ReportError(f"{path}: warmup: expected an object whose `runs` is a count of runs")
    plain = data["variants"].get("plain")
    if not plain or plain.get("failed"):
        raise ReportError(f"{path}: no plain run measured: every saving is plain's wall time minus a fixed run's")
    return data


def merged_ablations(loaded: list[tuple[str, dict]]) -> dict:
    """Several ablations of the same program (the same steps, batch and device; say, rounds
    measured in two calls of a GPU lease) as one: each variant's runs together, its wall
    time their median, its saving's range over the rounds paired within each file (plain's
    run against the variant's of the same round). One file comes back as it is."""
    if len(loaded) == 1:
        return loaded[0][1]
    for i, (path, _) in enumerate(loaded):  # one file twice would count its rounds twice
        for other, _ in loaded[:i]:
            if os.path.exists(path) and os.path.exists(other) and os.path.samefile(path, other):
                raise ReportError(f"{path}: given twice (as {other}): its rounds would count twice")
    first_path, first = loaded[0]
    for path, data in loaded[1:]:
        for key in ("steps", "batch", "device"):
            if data.get(key) != first.get(key):
                raise ReportError(f"{path}: {key} {data.get(key)!r}, where {first_path} has {first.get(key)!r}: "
                                  "only ablations of the same program, steps, batch and device are one measurement")
        if ablation_step_wait(data) != ablation_step_wait(first):
            raise ReportError(f"{path}: --step-wait {ablation_step_wait(data)}, where {first_path} has "
                              f"{ablation_step_wait(first)}: only ablations of the same program are one measurement")
    variants: dict = {}
    names = dict.fromkeys(n for _, data in loaded for n in data["variants"])
    for name in names:
        walls, paired = [], []
        for _, data in loaded:
            v, plain = data["variants"].get(name), data["variants"]["plain"]
            if not v or v.get("failed"):
                continue
            mine, theirs = rounds_of(v), rounds_of(plain)
            walls += [w for w in mine if w is not None]
            if len(mine) == len(theirs):
                paired += [p - w for p, w in zip(theirs, mine) if p is not None and w is not None]
        if not walls:
            variants[name] = {"failed": True, "runs": 0}
            continue
        fix = next((d["variants"][name]["fix"] for _, d in loaded if d["variants"].get(name, {}).get("fix")), None)
        waits = [w for _, d in loaded for w in runs_of(d["variants"].get(name) or {}, "batch_wait_s")]
        off_cpu = [w for _, d in loaded for w in runs_of(d["variants"].get(name) or {}, "rest_off_cpu_s")]
        paces = [w for _, d in loaded for w in runs_of(d["variants"].get(name) or {}, "pace_best_ms")]
        variants[name] = {"wall_s": statistics.median(walls), "runs": len(walls), "wall_s_runs": walls,
                          **({"batch_wait_s_runs": waits} if len(waits) == len(walls) else {}),
                          **({"rest_off_cpu_s_runs": off_cpu} if len(off_cpu) == len(walls) else {}),
                          **({"pace_best_ms": statistics.median(paces), "pace_best_ms_runs": paces}
                             if len(paces) == len(walls) else {}),
                          **({"saved_s_range": [min(paired), max(paired)]} if paired else {}),
                          **({"fix": fix} if fix else {})}
    stopped = "; ".join(f"{Path(p).name}: {d['stopped']}" for p, d in loaded if d.get("stopped"))
    cold = [d for _, d in loaded if not warmed_up(d)]
    return {"steps": first["steps"], "batch": first.get("batch"), "device": first.get("device", ""),
            "step_wait": ablation_step_wait(first),
            "repeat": max(len(v.get("wall_s_runs", [])) for v in variants.values()), "stopped": stopped,
            **({} if cold else {"warmup": {"runs": min(d["warmup"]["runs"] for _, d in loaded)}}),
            "variants": variants, "merged_from": [p for p, _ in loaded]}


def warmed_up(ablation: dict) -> bool:
    """Whether the ablation ran plain before its rounds, uncounted (fashion_mnist_ablation.sh
    since 2026-11-27): before that plain ran first in every round, cold."""
    return ((ablation.get("warmup") or {}).get("runs") or 0) >= 1


def rounds_of(variant: dict) -> list:
    """A variant's wall time round by round (None where a round's run failed)."""
    runs = variant.get("wall_s_runs")
    return list(runs) if isinstance(runs, list) and all(r is None or number(r) for r in runs) else [variant["wall_s"]]


def runs_of(variant: dict, field: str) -> list:
    """A variant's `field` round by round (`field`_runs), where every round of it says, else
    its one value, else []."""
    if variant.get("failed"):
        return []
    runs = variant.get(f"{field}_runs")
    if isinstance(runs, list) and runs and all(number(r) for r in runs):
        return list(runs)
    return [variant[field]] if number(variant.get(field)) else []


def fixes_of(ablation: dict, name: str, priced: dict) -> list[str]:
    """The habits variant `name` fixed: its result line's `fix` field, else its name
    (fix_workers+pin); `fix_all` without the field fixed every habit the model prices
    (`priced`: the model's saving_alone_s), as the script's --fix all did when it ran."""
    if not name.startswith("fix_"):
        return []
    fix = (ablation["variants"].get(name) or {}).get("fix")
    if isinstance(fix, str) and fix not in ("", "none"):
        # --fix graph asked for, the step run op by op (its capture failed): not a fix it made
        return [f for f in fix.split("+") if f != "graph" or not ran_eager(ablation, name)]
    if name == "fix_all":
        return [h for h in HABITS if h in priced]
    return name[len("fix_"):].split("+")


def run_name(ablation: dict, name: str, priced: dict) -> str:
    """How verify's tables name variant `name`: `--fix all` for fix_all, else its fixes in one
    order (the ablation's name says `workers+pin`, its result line `pin+workers`), so a run
    reads the same in every table."""
    if name == "fix_all":
        return "`--fix all`"
    fixes = sorted(fixes_of(ablation, name, priced))
    return f"`--fix {','.join(fixes)}`" if fixes else "plain"


def number(v) -> bool:
    """A JSON number that is one: NaN and Infinity (which json.loads lets through) are not."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


# How far a variant's mean loss may be from plain's and still be the same training, relative.
# Every variant visits the same samples in the same order from the same weights: on every GPU
# lease so far all of them printed plain's losses to the last digit (.4f). A variant that did
# not (a graph replaying stale inputs, a batch split wrong) ran other work, and its time is
# no fix's saving.
LOSS_TOLERANCE = 1e-3


def trained_otherwise(ablation: dict) -> dict[str, str]:
    """The variants whose mean loss is not plain's (beyond LOSS_TOLERANCE), each with a note;
    none where plain gives no mean loss (an ablation made before it was kept)."""
    plain = (ablation["variants"].get("plain") or {}).get("mean_loss")
    if not number(plain) or plain == 0:
        return {}
    return {name: f"mean loss {v['mean_loss']:.4f} against plain's {plain:.4f}"
            for name, v in ablation["variants"].items()
            if name != "plain" and not v.get("failed") and number(v.get("mean_loss"))
            and abs(v["mean_loss"] / plain - 1) > LOSS_TOLERANCE}


def measured(ablation: dict, name: str) -> Measured | None:
    """Plain's median wall time less variant `name`'s, with the rounds' range; None where the
    variant failed or trained to other losses than plain (`trained_otherwise`)."""
    v = ablation["variants"].get(name)
    if not v or v.get("failed") or name in trained_otherwise(ablation):
        return None
    saved = ablation["variants"]["plain"]["wall_s"] - v["wall_s"]
    r = v.get("saved_s_range")
    runs = int(v.get("runs", 1))
    return Measured(saved, tuple(r) if r is not None and runs > 1 else None, runs)


def paced(ablation: dict, name: str, base: str = "plain") -> Measured | None:
    """The saving on the runs' fastest stretches: `base`'s fastest `--log-every` stretch's time a
    step (the examples' `pace_best_ms`, the first stretch left out) less variant `name`'s, times
    the steps, the rounds paired as the wall times are; None where either does not give it. A
    host's slow stretches (on every GPU host so far a run's stretches differed by 1.3-1.8x, in
    plain and fixed runs alike) are left out of it; a fix's cost at the start (workers starting)
    is too."""
    plain, v = ablation["variants"].get(base) or {}, ablation["variants"].get(name)
    if not v or v.get("failed") or plain.get("failed") or not number(plain.get("pace_best_ms")) or \
            not number(v.get("pace_best_ms")) or name in trained_otherwise(ablation):
        return None
    per_step_s = ablation["steps"] / 1e3  # ms a step, times the steps, in seconds
    mine, theirs = runs_of(v, "pace_best_ms"), runs_of(plain, "pace_best_ms")
    paired = [(p - w) * per_step_s for p, w in zip(theirs, mine)] if len(mine) == len(theirs) > 1 else []
    return Measured((plain["pace_best_ms"] - v["pace_best_ms"]) * per_step_s,
                    (min(paired), max(paired)) if paired else None, int(v.get("runs", 1)))


def pace_scale(ablation: dict, scale: float, base: str = "plain") -> float | None:
    """What a price is multiplied by to be held on the fastest stretches: its share of `base`'s
    median wall time (`scale`) applied to `base`'s fastest pace over the steps instead; None where
    it gives no pace."""
    plain = ablation["variants"].get(base) or {}
    if not number(plain.get("pace_best_ms")) or not plain.get("wall_s"):
        return None
    return scale * plain["pace_best_ms"] * ablation["steps"] / 1e3 / plain["wall_s"]


STEP_WAIT = re.compile(r"(?:^| )step_wait=(\w+)")


def ablation_step_wait(ablation: dict) -> str:
    """How the ablation's tutorial_style.py waited every step (its `--step-wait`): what its plain
    run's result line says (where it is not the plain tutorial's `item`; the script's option or
    `--step-wait` among its SCRIPT_ARGS put it there), else the JSON's `step_wait` (a merged
    ablation keeps it there), else `item`."""
    m = STEP_WAIT.search((ablation["variants"].get("plain") or {}).get("result_line") or "")
    return m.group(1) if m else ablation.get("step_wait") or "item"


def ran_eager(ablation: dict, name: str) -> bool:
    """Whether variant `name` says it ran its step op by op (`step=eager` in its result line):
    tutorial_style.py under --fix graph where the capture failed, well_written.py with --eager."""
    v = ablation["variants"].get(name) or {}
    return v.get("step") == "eager" or " step=eager" in f" {v.get('result_line') or ''}"


def well_written_graphed(ablation: dict) -> bool:
    """Whether well_written.py replayed its step as one CUDA graph (its result line's
    `step=graph`, since 2026-11-28's sixth session). Before, and with --eager, it ran its step
    op by op: then no variant held against it made the graph fix."""
    line = (ablation["variants"].get("well_written") or {}).get("result_line") or ""
    return " step=graph" in f" {line}"

