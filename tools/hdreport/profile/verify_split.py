"""How `verify` holds the model's prices as run without the recording, and each run's time
split into its batch wait and the rest, the model's parts beside the measured (verify.py)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from hdreport.profile.ablation import fixes_of, number, rounds_of, run_name, runs_of, trained_otherwise


def held_price(model: dict, key: str, price: float, scale: float) -> float:
    """A price (T_none - T_F, the profiled steps' time) as run without the recording: f x T_none
    less f x (T_F - P) + P, where P is the part of T_F the recording did not slow (the probe's
    hand-over, gather or pin thread: `unslowed_with_s`, keyed by the fixes sorted and joined by
    '+'): f x price - (1 - f) x P. On the H100 of 2026-11-26b (steps 1.20x as long recorded) the
    pin thread's 3.1 s scaled with the rest priced workers and pin 0.5 s high."""
    unslowed = model_pair(model, "unslowed_with_s", key)
    return price * scale - (1 - scale) * unslowed[0] if unslowed else price * scale


def once_s(model: dict, key: str | None) -> float:
    """What the fixes keyed `key` cost once a run, inside their price (`model.start_with_s`: the
    workers' start), 0 where nothing is priced so (a report made before it)."""
    once = (model.get("start_with_s") or {}).get(key) if key else None
    return once if number(once) else 0.0


def model_pair(model: dict, field: str, key: str) -> list | None:
    """`model[field][key]` where it is a pair of numbers ([step time, batch wait] parts), else None
    (a report made before the field; the schema checks only that it is a list of numbers)."""
    pair = (model.get(field) or {}).get(key)
    return pair if isinstance(pair, list) and len(pair) == 2 and all(number(x) for x in pair) else None


# --- the verdicts ---------------------------------------------------------------------

@dataclass
class Split:
    """A run's time in two parts, the model's beside the measured: the training thread's wait
    for its batches (the example's `batch_wait_s`) and the rest of its wall time."""
    what: str
    batch_model_s: float
    batch_measured_s: float
    rest_model_s: float
    rest_measured_s: float
    off: list  # the parts off by more than the tolerance and the floor: "the batch wait", "the rest"
    # of the rest, the training thread's time off the CPU (the GIL, autograd's device thread),
    # where the example says (tutorial_style.py's rest_off_cpu_s); the model does not price it
    off_cpu_s: float | None = None
    # where the pin thread's share of the GIL adds time the model cannot place (the batch wait or
    # the rest): the batch wait without it; the batch wait is then a range, from this to
    # batch_model_s, and the rest from rest_model_s up by as much
    batch_model_low_s: float | None = None


def split_rows(model: dict, ablation: dict, alone: dict, scale: float, tolerance: float, floor: float) -> list:
    """Each measured run of the program (plain and every fixed variant the model priced) split
    into its batch wait and the rest, the model's (`batch_wait_with_s`, and the run's time as
    plain's less the price, scaled as the prices are) beside the measured: a price can hold on
    the whole while its parts are off the other way (the H100's workers-and-pin of 2026-11-26,
    held at −5%: the pin thread's pull on the training thread priced at 2.4 s where the rest
    grew by 1.1 s, the batch wait priced at 0.12 s where it measured 0.84 s). Empty for a
    profile made before `batch_wait_with_s` or an ablation that gives no batch waits."""
    waits = model.get("batch_wait_with_s") or {}
    plain = ablation["variants"]["plain"]
    otherwise = trained_otherwise(ablation)
    out = []
    for name, v in ablation["variants"].items():
        if name != "plain" and not name.startswith("fix_"):
            continue  # well_written.py is another program: the model prices this one's fixes
        fixes = sorted(fixes_of(ablation, name, alone))
        key = "+".join(fixes) or "none"
        price = 0.0 if not fixes else alone.get(key) if len(fixes) == 1 else (model.get("saving_with_s") or {}).get(key)
        batch_waits = runs_of(v, "batch_wait_s")
        if key not in waits or price is None or not batch_waits or v.get("failed") or name in otherwise:
            continue
        walls = rounds_of(v)
        rests = [w - b for w, b in zip(walls, batch_waits) if w is not None] if len(walls) == len(batch_waits) else []
        batch = statistics.median(batch_waits)
        rest = statistics.median(rests) if rests else v["wall_s"] - batch
        unslowed = model_pair(model, "unslowed_with_s", key)
        batch_model = waits[key] * scale + ((1 - scale) * unslowed[1] if unslowed else 0.0)
        rest_model = plain["wall_s"] - held_price(model, key, price, scale) - batch_model
        own = model_pair(model, "own_batch_wait_with_s", key)
        low = own[0] * scale + (1 - scale) * own[1] if own else batch_model  # the GIL's time in the rest
        spans = (("the batch wait", low, batch_model, batch), ("the rest", rest_model, rest_model + batch_model - low,
                                                                rest))
        off = [part for part, lo, hi, theirs in spans if outside(lo, hi, theirs) > max(tolerance * abs(theirs), floor)]
        what = run_name(ablation, name, alone)
        off_cpu = runs_of(v, "rest_off_cpu_s")
        out.append(Split(what, batch_model, batch, rest_model, rest, off,
                         statistics.median(off_cpu) if off_cpu else None, low if own else None))
    return out


def outside(low: float, high: float, measured: float) -> float:
    """How far `measured` lies outside [low, high] (0 inside)."""
    return max(low - measured, measured - high, 0.0)
