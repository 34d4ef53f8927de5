"""`verify PROFILE ABLATION... [--well PROFILE]`: hdbench_profile's prices held against the
savings measured by fixing each habit alone, the proof that makes its findings worth acting
on (issue 38, item 4).

PROFILE is the profile of the program as it is (the plain `tutorial_style.py`); ABLATION is
what `tools/fashion_mnist_ablation.sh` measured: the program plain, with each habit fixed
alone (`fix_<habit>`), with all fixed (`fix_all`) and the well-written program
(`well_written`), in rounds; several such files of the same program, steps, batch and
device are taken as one, their rounds together (ablation.py). Each row holds a prediction against a measurement:

- each habit fixed alone: the model's price of that fix alone (`model.saving_alone_s`, or in
  a report made before that field the finding's `saving_alone_s`) against the measured
  saving, plain's median wall time minus the fixed run's. A finding holds when its price is
  within the tolerance (25%) of the measured saving; a habit the profile did not recommend
  holds when fixing it measured less than the profile's floor (2% of its recorded span);
- a habit another finding makes pointless (`findings_left_out`: workers, once batches are
  gathered whole) is held on its price alone, as a finding is;
- a habit the profile says would make the steps longer (`would_cost`: pinning on the training
  thread) is held as a negative price against the measured (negative) saving;
- the findings' sum (`model.saving_together_s`) against `well_written.py`, and against the
  variant that made exactly the findings' fixes where there is one, within the tolerance; a
  `well_written.py` that ran its step op by op (before its graph, or --eager) made no graph
  fix, so against it the findings are chosen again without it (`held_findings`);
- every variant that fixed several habits (`fix_all`, `fix_workers+pin`; the habits from its
  result line's `fix` field) against the model's price for them together (`saving_with_s`);
- the top finding is the habit whose fix alone measured the largest saving;
- the workers' start, where the probe timed it (`model.start_with_s`), against `fix_workers`'
  first batch wait less plain's (the examples' `first_batch_s`): `workers_start_row`;
- with `--well`, the well-written program's profile has no finding;
- with `--fixed`, the profile of the program with every habit fixed (`fix_all`): its findings
  together against what `well_written.py` measured faster than it (`fixed_row`; nothing worth
  fixing holds when that is under its floor). Workers and pin are the tutorials' advice, and
  what they leave behind (the pin thread's share of the GIL) is what that profile must find;
- with `--eager`, the profile of `well_written.py --eager` (its step op by op): its price of
  the graph alone against what `well_written.py`, its step replayed as a graph, ran faster
  than it (`eager_row`).

Prices are scaled to the ablation's steps from the steps the profiled command ran (its
`--steps`; unscaled when it has none). Where the model cut the steps, the recorded part of a
price is scaled as the recording slowed the steps and the part the recording did not slow
(`model.unslowed_with_s`: a hand-over, a gather or a pin thread measured by the probe) is
held as it was measured (`held_price`).
Each verdict is taken on the medians; where the rounds' paired savings (`saved_s_range`)
would give another verdict, the row says the rounds disagree: more rounds would settle it.
Where the runs give their fastest stretch's pace (`pace_best_ms`), each claim is also held on
the fastest stretches (`paced`, `Paces`): a host's slow stretches, as long in a plain run as in
a fixed one, are left out there; the exit code follows the wall times' verdicts alone.
One round has no spread to show. The exit code is 1 when a verdict misses, else 0; bad
input is 2 (the command line's ReportError), a profile and an ablation of tutorial_style.py
run with different `--step-wait` among it (`same_program`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hdreport.core.schema import ReportError
from hdreport.profile.ablation import (Measured, ablation_step_wait, fixes_of, measured, number, pace_scale,
                                      paced, ran_eager, rounds_of, run_name, runs_of, trained_otherwise, warmed_up,
                                      well_written_graphed)
from hdreport.profile.findings import IDS, MIN_SAVING_OF_SPAN, chosen
from hdreport.profile.model import HABITS, cut_into_steps  # HABITS: tutorial_style.py's --fix names
from hdreport.profile.verify_split import held_price, once_s, split_rows
from hdreport.profile.verify_text import seconds

DEFAULT_TOLERANCE = 0.25
FINDING_OF = {habit: IDS[habit] for habit in HABITS}


@dataclass
class Row:
    what: str  # what was fixed
    claim: str  # what the profile said, its price included
    measured: Measured | None
    verdict: str  # held, missed, beyond the recording, or not measured
    note: str = ""  # how far off, the rounds disagreeing
    # the same claim held on the runs' fastest stretches (`paced`): None where the ablation gives
    # no paces for this row (well_written.py without --log-every gives none; an ablation made before 2026-11-28)
    paced: Measured | None = None
    paced_verdict: str = ""
    paced_note: str = ""

    @property
    def missed(self) -> bool:
        return self.verdict == "missed"


# --- reading the inputs -----------------------------------------------------------------

def command_option(command: list, name: str) -> str | None:
    """The last value a command line gives option `name` (`--steps N` or `--steps=N`), or None."""
    found = None
    for i, arg in enumerate(command):
        if arg == name and i + 1 < len(command):
            found = command[i + 1]
        elif arg.startswith(name + "="):
            found = arg[len(name) + 1:]
    return found


def profiled_steps(profile: dict) -> int | None:
    """The steps the profiled command ran (its `--steps N`), or None when it does not say.
    Not the model's steps: those are cut at the blocking reads it recognised (before
    2026-11-27 it missed reads whose copy ended before their synchronize began: an H100
    recording had 2,647 steps for 3,000 reads), or at NVTX ranges, or are one stretch."""
    value = command_option(profile.get("command") or [], "--steps")
    return int(value) if value is not None and re.fullmatch(r"\d+", value) and int(value) > 0 else None


def same_program(profile_path: str, profile: dict, ablation: dict) -> None:
    """ReportError unless the profiled command and the ablation ran tutorial_style.py with the
    same `--step-wait` (a read, a synchronize or both every step are programs of their own)."""
    ran, timed = command_option(profile.get("command") or [], "--step-wait") or "item", ablation_step_wait(ablation)
    if ran != timed:
        raise ReportError(f"{profile_path}: profiled with --step-wait {ran}, where the ablation ran --step-wait "
                          f"{timed}: one program's prices cannot be held against another's savings (run "
                          f"tools/fashion_mnist_ablation.sh with `--step-wait {ran}`)")


def price_scale(model: dict, ablation: dict, steps: int | None, variant: str = "plain") -> tuple[float, float | None]:
    """(what a price is multiplied by to be held against the ablation, the profiled steps' time
    it is a share of, or None). Where the model cut the program into steps (at its per-step
    reads, or at NVTX ranges marking its iterations), its steps' time T is the profiled
    loop's: a price is that share of it, applied to the median wall time of the ablation's
    run of the profiled program (`variant`: plain, or fix_all for the all-fixed program's
    profile), so the recording's own slowing of the program (both sides of every price) does
    not count as a saving; else prices are scaled by steps alone."""
    T = (model.get("seconds") or {}).get("T")
    if cut_into_steps(model) and number(T) and T > 0:
        return ablation["variants"][variant]["wall_s"] / T, T
    return (ablation["steps"] / steps if steps else 1.0), None


# --- the verdicts ---------------------------------------------------------------------

def held_band(predicted: float, tolerance: float) -> tuple[float, float]:
    """The measured savings a price holds against: |predicted - saving| <= tolerance x |saving|
    (a cost, `would_cost`, is a negative price, held against a negative saving)."""
    if predicted == 0:
        return (1.0, 0.0)  # empty: a price of nothing is no finding
    if predicted < 0:
        return (predicted / (1 - tolerance), predicted / (1 + tolerance))
    return (predicted / (1 + tolerance), predicted / (1 - tolerance))


def judged(m: Measured, band: tuple[float, float]) -> tuple[str, str]:
    """(verdict on the median, "rounds disagree" when the rounds' paired savings reach both
    sides of the verdict: some round inside the band the median missed, or outside the band
    the median is in)."""
    lo, hi = band
    held = lo <= m.median_s <= hi
    verdict = "held" if held else "missed"
    if m.range_s is not None:
        a, b = m.range_s
        if (held and (a < lo or b > hi)) or (not held and a <= hi and b >= lo):
            return verdict, "rounds disagree"
    return verdict, ""


def off_by(predicted: float, saving: float) -> str:
    if saving <= 0 and (predicted >= 0 or saving == 0):
        return "the fix measured no saving"
    if saving > 0 and predicted < 0:
        return "the fix measured a saving"
    if predicted < 0:  # a cost against a measured cost: + where the cost was priced high
        return f"{(saving - predicted) / abs(saving) * 100:+.0f}%".replace("-", "−")
    return f"{(predicted - saving) / saving * 100:+.0f}%".replace("-", "−")


# What the recording allows a fix that leaves the host's batch building alone to save, from
# the model's parts (profile.model.seconds): dropping the per-step reads lets the host run
# ahead of the GPU, so a step shrinks by at most the reads' wait (R) and the GPU's busy time
# (G); pinning removes the pageable copies' staging (L_pg) and at most the GPU's time;
# packing removes the small copies' calls (S) and at most all staging and GPU time. Freezing
# the objects set-up made (gc) removes host time and nothing else: at most every collection
# the steps held (model.step_spread.gc_s, where the collections were timed). Totals over the
# profiled steps, scaled as the prices are.
RECORDING_BOUND = {"item": (("R", "G"), "the reads' wait R and the GPU's busy time G"),
                   "pin": (("L_pg", "G"), "the pageable copies' staging L_pg and the GPU's busy time G"),
                   "pack": (("S", "L_pg", "G"), "the small copies' calls S, the staging L_pg and the GPU's time G"),
                   "gc": (("gc_s",), "the steps' garbage collections")}


def recording_parts(model: dict) -> dict:
    """The model's parts a bound may name: its seconds, and the collections' time where timed."""
    parts = dict(model.get("seconds") or {})
    gc_s = (model.get("step_spread") or {}).get("gc_s")
    if model.get("collections_timed") and number(gc_s):
        parts["gc_s"] = gc_s
    return parts


def beyond_the_recording(habit: str, m: Measured, model: dict, scale: float, tolerance: float) -> str | None:
    """Why a measured saving larger than the recording allows (RECORDING_BOUND, with the tolerance)
    is no verdict on the price, or None: the fixed run and plain differ by more than the fix (a cold
    or noisy plain run: the H200's one round of 2026-11-27 "saved" 1.72 s by dropping reads bounded
    at 0.26 s, and 2.11 s by freezing set-up's objects where the steps' collections took 0.30 s)."""
    parts, words = RECORDING_BOUND.get(habit, ((), ""))
    have = recording_parts(model)
    if not parts or any(k not in have for k in parts):
        return None
    bound = sum(have[k] for k in parts) * scale
    if m.median_s <= bound * (1 + tolerance):
        return None
    return f"saved more than {words} allow ({seconds(bound)}): plain and the fixed run differ by more than the fix"


def priced_verdict(m: Measured, price: float, tolerance: float) -> tuple[str, str]:
    """A price held against a measured saving: the verdict, and how far off and whether the
    rounds disagree."""
    verdict, note = judged(m, held_band(price, tolerance))
    return verdict, "; ".join(x for x in (off_by(price, m.median_s), note) if x)


def priced_row(what: str, claim: str, m: Measured, price: float, tolerance: float) -> Row:
    return Row(what, claim, m, *priced_verdict(m, price, tolerance))


@dataclass
class Paces:
    """What holds a row's claim on the runs' fastest stretches: the ablation, the model, the
    scale (`pace_scale`) and the floor there."""
    ablation: dict
    model: dict
    scale: float | None
    floor: float
    tolerance: float
    base: str = "plain"  # the run the savings are taken from

    @classmethod
    def of(cls, ablation: dict, model: dict, scale: float, floor: float, tolerance: float,
           base: str = "plain") -> "Paces":
        """The prices' `scale` and the wall's `floor` carried over to `base`'s fastest pace."""
        fast = pace_scale(ablation, scale, base)
        return cls(ablation, model, fast, floor * fast / scale if fast is not None and scale else 0.0, tolerance, base)

    def hold(self, row: Row, name: str | None, key: str | None = None, price: float | None = None,
             habit: str | None = None) -> Row:
        """`row` with its claim held on variant `name`'s fastest stretches: `price` (a recorded
        price, keyed for `held_price` by `key`) as a price, or without one against the floor;
        `habit`, a fix alone, is first held against what the recording allows. `row` unchanged
        where there are no paces to hold it on."""
        m = paced(self.ablation, name, self.base) if name and self.scale is not None else None
        if m is None:
            return row
        row.paced = m
        if habit and (why := beyond_the_recording(habit, m, self.model, self.scale, self.tolerance)) is not None:
            row.paced_verdict, row.paced_note = "beyond the recording", why
        elif price is None:
            row.paced_verdict, row.paced_note = judged(m, (float("-inf"), self.floor))
        else:  # the fastest stretches leave the first out, and with it what the fixes cost once (once_s)
            row.paced_verdict, row.paced_note = priced_verdict(
                m, held_price(self.model, key, price, self.scale) + once_s(self.model, key), self.tolerance)
        return row


def held_findings(profile: dict, graphed: bool) -> tuple[list, float]:
    """The findings' fixes, sorted, and their price together (as profiled), to hold against
    well_written.py. Where it ran its step op by op (`graphed` false) neither side of the
    comparison made the graph fix: the fixes are then chosen again without it (findings.chosen)
    on the report's own prices (a fix alone `saving_alone_s`, several `saving_with_s`) from the
    findings and those left out beside them (with the graph, the pin thread's GIL time may no
    longer add the floor)."""
    findings = profile.get("findings") or []
    model = profile.get("model") or {}
    fixes = sorted(fix_of(f) for f in findings)
    if graphed or "graph" not in fixes:
        return fixes, model.get("saving_together_s", sum(f["saving_s"] for f in findings))

    def price(fixes) -> float | None:
        key = "+".join(sorted(fixes))
        return 0.0 if not fixes else (model.get("saving_alone_s") or {}).get(key) if len(fixes) == 1 else \
            (model.get("saving_with_s") or {}).get(key)

    floor = MIN_SAVING_OF_SPAN * (profile.get("totals") or {}).get("span_s", 0.0)
    candidates = [f for f in fixes + [f.get("fix") for f in profile.get("findings_left_out") or []]
                  if f != "graph" and number(price([f]))]
    kept = chosen(price, candidates, floor)
    return sorted(kept), price(kept)


def fix_of(finding: dict) -> str | None:
    """A finding's fix, or in a report older than that field the habit its id names."""
    return finding.get("fix") or next((h for h, i in FINDING_OF.items() if i == finding.get("id")), None)


def faster(slow: dict, fast: dict) -> Measured:
    """How much faster ablation variant `fast` ran than `slow`: their medians' difference, and
    the rounds paired where both ran as many."""
    mine, theirs = rounds_of(slow), rounds_of(fast)
    paired = ([a - b for a, b in zip(mine, theirs) if a is not None and b is not None]
              if len(mine) == len(theirs) else [])
    runs = min(int(slow.get("runs", 1)), int(fast.get("runs", 1)))
    return Measured(slow["wall_s"] - fast["wall_s"], (min(paired), max(paired)) if len(paired) > 1 else None, runs)


def eager_row(report: dict, ablation: dict, tolerance: float) -> Row:
    """well_written.py run op by op (`--eager`) profiled: its price of the graph alone (the
    launch_bound finding's fix) against what well_written.py, its step replayed as one CUDA
    graph, measured faster than it (`well_eager` less `well_written`). A profile that does not
    advise the graph holds when that is under its floor."""
    profile = report["profile"]
    model = profile.get("model") or {}
    eager, well = ablation["variants"].get("well_eager") or {}, ablation["variants"].get("well_written") or {}
    what = "`well_written.py --eager` profiled, against its graph"
    if unheld := not_measured(what, profile, ablation, "well_eager", well_written_graphed(ablation),
                              "needs well_eager and well_written run as a graph in the ablation"):
        return unheld
    scale, _ = price_scale(model, ablation, profiled_steps(profile), "well_eager")
    m = faster(eager, well)
    floor = MIN_SAVING_OF_SPAN * (profile.get("totals") or {}).get("span_s", 0.0) * scale
    paces = Paces.of(ablation, model, scale, floor, tolerance, "well_eager")
    finding = next((f for f in profile.get("findings") or [] if fix_of(f) == "graph"), None)
    price = (model.get("saving_alone_s") or {}).get("graph", finding["saving_alone_s"] if finding else None)
    p = held_price(model, "graph", price, scale) if number(price) else None
    if finding is None:
        claim = f"not worth fixing: under {seconds(floor)}" + (f" (priced {seconds(p)})" if p is not None else "")
        return paces.hold(Row(what, claim, m, *judged(m, (float("-inf"), floor))), "well_written")
    return paces.hold(priced_row(what, f"`launch_bound` saves {seconds(p)}", m, p, tolerance), "well_written",
                      "graph", price)


def not_measured(what: str, profile: dict, ablation: dict, base: str, usable: bool, needs: str) -> Row | None:
    """The row saying why a profile of `base`'s program cannot be held against `base` less
    well_written (None where it can): either variant missing or failed, or not `usable` (the
    row's own condition: `needs` says it); one of them trained to other losses than plain
    (`trained_otherwise`); the profile recorded nothing."""
    v, well = ablation["variants"].get(base) or {}, ablation["variants"].get("well_written") or {}
    otherwise = trained_otherwise(ablation)
    why = (needs if not v or not well or v.get("failed") or well.get("failed") or not usable else
           "; ".join(f"`{n}` trained to other losses: {otherwise[n]}" for n in (base, "well_written")
                     if n in otherwise) or
           ("its profile recorded nothing" if not profile.get("recorded") else ""))
    return Row(what, "–", None, "not measured", why) if why else None


def fixed_row(report: dict, ablation: dict, tolerance: float) -> Row:
    """The all-fixed program's profile against `well_written.py`: its findings' fixes together
    (priced as shares of its own profiled steps, applied to `fix_all`'s median) against
    fix_all's median wall time less well_written's, the rounds paired where both ran as many."""
    profile = report["profile"]
    model = profile.get("model") or {}
    fixed, well = ablation["variants"].get("fix_all") or {}, ablation["variants"].get("well_written") or {}
    what = "`--fix all` profiled, against `well_written.py`"
    if unheld := not_measured(what, profile, ablation, "fix_all", True,
                              "needs fix_all and well_written in the ablation"):
        return unheld
    scale, _ = price_scale(model, ablation, profiled_steps(profile), "fix_all")
    m = faster(fixed, well)
    graphed = well_written_graphed(ablation)
    chosen, together = held_findings(profile, graphed)
    ids = {fix_of(f): f["id"] for f in [*(profile.get("findings_left_out") or []), *(profile.get("findings") or [])]}
    floor = MIN_SAVING_OF_SPAN * (profile.get("totals") or {}).get("span_s", 0.0) * scale
    paces = Paces.of(ablation, model, scale, floor, tolerance, "fix_all")
    op_by_op = "" if graphed or "graph" not in ids else " (`launch_bound` left out: `well_written.py` ran its step op by op)"
    if not chosen:
        row = Row(what, f"nothing worth fixing: under {seconds(floor)}{op_by_op}", m,
                  *judged(m, (float("-inf"), floor)))
        return paces.hold(row, "well_written")
    fixes = "+".join(chosen)
    price = held_price(model, fixes, together, scale)
    claim = ", ".join(f"`{ids[f]}`" for f in chosen) + f" save{'s' if len(chosen) == 1 else ''} {seconds(price)}"
    return paces.hold(priced_row(what, claim + op_by_op, m, price, tolerance), "well_written", fixes, together)


def verify(profile_path: str, report: dict, ablation_path: str, ablation: dict, tolerance: float = DEFAULT_TOLERANCE,
           well: tuple | None = None, fixed: dict | None = None, eager: dict | None = None) -> dict:
    """The rows, with what they were made from."""
    profile = report["profile"]
    if not profile.get("recorded"):
        raise ReportError(f"{profile_path}: recorded nothing ({profile.get('not_recorded_reason', '')}): "
                          "there are no prices to verify")
    same_program(profile_path, profile, ablation)
    model = profile.get("model") or {}
    findings = profile.get("findings") or []
    steps = profiled_steps(profile)
    scale, profiled_s = price_scale(model, ablation, steps)
    # the profile's own floor (findings.py): a fix it does not recommend saves less than this
    floor = MIN_SAVING_OF_SPAN * (profile.get("totals") or {}).get("span_s", 0.0) * scale
    by_fix = {fix_of(f): f for f in findings}
    alone = model.get("saving_alone_s") or {}
    left_out = {f.get("fix"): f for f in profile.get("findings_left_out") or []}
    costly = {f.get("fix"): f for f in profile.get("would_cost") or [] if number(f.get("cost_s"))}
    paces = Paces.of(ablation, model, scale, floor, tolerance)
    rows = []
    for habit in HABITS:
        m = measured(ablation, f"fix_{habit}")
        finding = by_fix.get(habit)
        if m is None and habit not in alone and not finding:
            continue  # a habit this profile's model does not know (a report made before it)
        price = alone.get(habit, finding.get("saving_alone_s", finding["saving_s"]) if finding else
                          left_out.get(habit, {}).get("saving_alone_s"))
        if habit in costly:  # the steps longer with it: a negative price (saving_alone_s stops at 0)
            price = -costly[habit]["cost_s"]
        p = held_price(model, habit, price, scale) if price is not None else None
        what = f"`--fix {habit}` alone"
        # a finding kept for what it adds after the others (pinning or packing may pay only once
        # workers build the batches) claims nothing for its fix alone but that it is under the floor
        after_others = finding is not None and p is not None and p < floor and finding["saving_s"] > price
        priced_alone = finding is not None and not after_others
        if after_others:
            claim = (f"`{finding['id']}` pays after the findings before it; alone under {seconds(floor)} "
                     f"(priced {seconds(p)})")
        elif finding:
            claim = f"`{finding['id']}` saves {seconds(p)}"
        elif habit in costly:  # it would cost, not save: the cost is the claim
            claim = f"`{costly[habit].get('id', habit)}` would cost {seconds(-p)}"
            priced_alone = True
        elif habit in left_out:  # worth it alone, pointless beside the findings: its price alone still stands
            claim = f"`{left_out[habit]['id']}` not advised beside the findings; alone it saves {seconds(p)}"
            priced_alone = True
        else:
            claim = f"not worth fixing: under {seconds(floor)}" + (f" (priced {seconds(p)})" if p is not None else "")
        if m is None:
            rows.append(Row(what, claim, None, "not measured"))
            continue
        if habit == "graph" and ran_eager(ablation, "fix_graph"):
            rows.append(Row(what, claim, None, "not measured", "its capture failed: it ran op by op, step=eager"))
            continue
        if (beyond := beyond_the_recording(habit, m, model, scale, tolerance)) is not None:
            row = Row(what, claim, m, "beyond the recording", beyond)
        elif priced_alone:
            row = priced_row(what, claim, m, p, tolerance)
        else:
            row = Row(what, claim, m, *judged(m, (float("-inf"), floor)))
        rows.append(paces.hold(row, f"fix_{habit}", habit, price if priced_alone else None, habit=habit))
    start = workers_start(model, ablation)
    if (start_row := workers_start_row(start, ablation, tolerance)) is not None:
        rows.append(start_row)
        start = None  # its row says it
    advised = sorted(by_fix)
    together_s = model.get("saving_together_s", sum(f["saving_s"] for f in findings))
    together = held_price(model, "+".join(advised), together_s, scale)
    # the findings' fixes made together, where one variant made exactly those (one fix is its own row above)
    matching = next((n for n in ablation["variants"] if len(advised) > 1 and
                     sorted(fixes_of(ablation, n, alone)) == advised), None)
    graphed = well_written_graphed(ablation)
    well_fixes, well_s = held_findings(profile, graphed)
    well_price = held_price(model, "+".join(well_fixes), well_s, scale) if well_fixes else 0.0
    for name, what, fixes, price, price_s in (
            (matching, f"the findings' fixes (`--fix {','.join(advised)}`)", advised, together, together_s),
            ("well_written", "`well_written.py`", well_fixes, well_price, well_s)):
        if name is None:
            continue
        m = measured(ablation, name)
        claim = f"the findings together save {seconds(price)}" + (
            " (`launch_bound` left out: it ran its step op by op)"
            if name == "well_written" and not graphed and "graph" in advised else "")
        rows.append(paces.hold(priced_row(what, claim, m, price, tolerance), name, "+".join(fixes), price_s)
                    if m else Row(what, claim, None, "not measured"))
    priced_together = []
    for name in ablation["variants"]:
        fixes = fixes_of(ablation, name, alone)
        price = (model.get("saving_with_s") or {}).get("+".join(sorted(fixes))) if len(fixes) > 1 else None
        m = measured(ablation, name)
        if price is None or m is None:
            continue
        p = held_price(model, "+".join(sorted(fixes)), price, scale)
        priced_together.append(name)
        what, claim = (("`--fix all` (the model)", f"every habit fixed saves {seconds(p)}") if name == "fix_all" else
                       (run_name(ablation, name, alone),
                        f"the model prices them together at {seconds(p)}"))
        rows.append(paces.hold(priced_row(what, claim, m, p, tolerance), name, "+".join(sorted(fixes)), price))
    singles = {h: measured(ablation, f"fix_{h}") for h in HABITS}
    singles = {h: m for h, m in singles.items() if m is not None}
    if findings:
        top = next((h for h, f in by_fix.items() if f is findings[0]), None)
        claim = f"`{findings[0]['id']}` (`--fix {top}`) saves most"
        if len(singles) < 2 or top not in singles:
            rows.append(Row("the top finding", claim, singles.get(top), "not measured",
                            "needs it and another habit fixed alone"))
        else:
            best = max(singles, key=lambda h: singles[h].median_s)
            note = "" if top == best else f"`--fix {best}` measured {seconds(singles[best].median_s)}"
            row = Row("the top finding", claim, singles[top], "held" if top == best else "missed", note)
            on_paces = {h: m for h in singles if (m := paced(ablation, f"fix_{h}")) is not None}
            if top in on_paces and len(on_paces) >= 2:  # the same question on the fastest stretches
                best = max(on_paces, key=lambda h: on_paces[h].median_s)
                row.paced, row.paced_verdict = on_paces[top], "held" if top == best else "missed"
                row.paced_note = "" if top == best else \
                    f"`--fix {best}` measured {seconds(on_paces[best].median_s)}"
            rows.append(row)
    if well is not None:
        well_path, well_report = well
        found = (well_report["profile"].get("findings") or [])
        rows.append(Row("`well_written.py` profiled", "nothing worth fixing", None,
                        "held" if not found else "missed",
                        ", ".join(f"`{f['id']}` {seconds(f['saving_s'])}" for f in found)))
    if fixed is not None:
        rows.append(fixed_row(fixed, ablation, tolerance))
    if eager is not None:
        rows.append(eager_row(eager, ablation, tolerance))
    parts = split_rows(model, ablation, alone, scale, tolerance, floor)
    used = {"plain", "well_written", matching, *(f"fix_{h}" for h in HABITS), *priced_together}
    unused = [n for n in ablation["variants"] if n not in used]
    return {"profile": profile_path, "ablation": ablation_path, "unused": unused, "tolerance": tolerance,
            "steps": ablation["steps"],
            "profiled_steps": steps, "scale": scale, "profiled_s": profiled_s,
            "plain_s": ablation["variants"]["plain"]["wall_s"], "rounds": ablation.get("repeat", 1), "floor_s": floor,
            "device": ablation.get("device", ""), "stopped": ablation.get("stopped", ""), "rows": rows, "parts": parts,
            "warmed_up": warmed_up(ablation), "step_wait": ablation_step_wait(ablation),
            "trained_otherwise": trained_otherwise(ablation),
            "workers_start": start,  # the workers' start as priced, where no row holds it
            "start_parts": (ablation["variants"].get("fix_workers") or {}).get("start_parts_s"),
            "paced_plain_s": (ablation["variants"]["plain"]["pace_best_ms"] * ablation["steps"] / 1e3
                              if paces.scale is not None else None)}


def workers_start(model: dict, ablation: dict) -> dict | None:
    """The workers' start as priced (`model.start_with_s`, for `handover.start_workers`
    workers) beside `fix_workers`' and plain's first batch wait (the examples' `first_batch_s`,
    medians) and the workers the ablation ran (its `workers`; None: the script's default), each
    None where not given; None where neither side gives it."""
    handover = model.get("handover") or {}
    priced = (model.get("start_with_s") or {}).get("workers")
    waits = {name: v.get("first_batch_s") for name in ("fix_workers", "plain")
             if number((v := ablation["variants"].get(name) or {}).get("first_batch_s")) and not v.get("failed")}
    if not number(priced) and "fix_workers" not in waits:
        return None
    return {"priced_s": priced if number(priced) else None, "workers": handover.get("start_workers"),
            "ran_workers": ablation.get("workers"),
            "fix_workers_first_batch_s": waits.get("fix_workers"), "plain_first_batch_s": waits.get("plain")}


def workers_start_row(start: dict | None, ablation: dict, tolerance: float) -> Row | None:
    """The workers' start as priced against `fix_workers`' first batch wait less plain's
    (medians, the rounds paired), where both are there: the one price no step's noise
    touches. Plain's first batch is built on the training thread, fix_workers' in a worker
    and handed over, so the difference is the start and a hand-over (a few ms) less a build."""
    if not start or None in (start["priced_s"], start["fix_workers_first_batch_s"], start["plain_first_batch_s"]):
        return None
    fixed, plain = runs_of(ablation["variants"]["fix_workers"], "first_batch_s"), \
        runs_of(ablation["variants"]["plain"], "first_batch_s")
    paired = [f - p for f, p in zip(fixed, plain) if number(f) and number(p)] if len(fixed) == len(plain) else []
    m = Measured(start["fix_workers_first_batch_s"] - start["plain_first_batch_s"],
                 (min(paired), max(paired)) if len(paired) > 1 else None, max(1, len(paired)))
    ran = start["ran_workers"]
    return priced_row(f"the workers' start (`--fix workers`{f' with {ran}' if ran else ''}: its first batch wait less "
                      "plain's)", f"starting {start['workers']} workers costs {seconds(start['priced_s'])} once",
                      m, start["priced_s"], tolerance)


def exit_code(result: dict) -> int:
    return 1 if any(r.missed for r in result["rows"]) else 0
