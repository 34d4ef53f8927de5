"""The advice of `hdbench_profile`: each finding is one habit's fix, the time it would save
(priced by the step model, model.py), what was seen, the numbers it rests on and the
one assumption its price depends on. Findings are listed by what each fix saves alone (what
an ablation that fixes that habit alone would measure: `saving_alone_s`); `saving_s` is what
it adds to the fixes listed above it, so the savings add up to those of all of them together
and never count a second time what another fix already removed. Fixes are kept greedily,
largest saving alone first, each for what it adds to those kept before it (`chosen`): one
that adds less than 2% of the recorded span is dropped, so a well-written program gets none,
and one that another makes pointless (workers, once batches are gathered whole on the
training thread) is reported with its price alone (`left_out`), not listed as a finding that
saves nothing. A fix that would make the steps longer by the floor or more is reported with
what it would cost (`would_cost`): "will pinning pay?" is a question users ask, and pinning
each batch on the training thread can take longer than the staging it removes.

    input_pipeline       the GPU waits while the training thread builds batches (num_workers=0)
    per_sample_batches   the training thread builds each batch far slower than gathering it whole
                         (a Dataset indexed sample by sample and the default collate)
    pin_thread_gil       the batches come from DataLoader's pin_memory thread, a Python thread
                         whose GIL time the training thread waits through (the gather fix on a
                         program with workers and pin already)
    pageable_to_pinned   pageable copies: the staging in their calls and the waits after them
    overlap_copies       pinned copies the host still waits for (no non_blocking)
    pack_small_copies    a batch sent as several copies back to back: the extra copies
    drop_blocking_reads  a blocking read every step (`loss.item()`): the overlap it prevents (a
                         synchronize every step besides is dropped with it: left, it would still
                         hold the host back)
    drop_step_synchronizes  a synchronize every step (`torch.cuda.synchronize()`), where no read
                         ends the steps: the same overlap prevented (the item fix)
    launch_bound         the step's kernels launched op by op: from its first launch call to its
                         last, the launches and the Python between them, where a CUDA graph of
                         the step would launch once (the graph fix), in a loop cut into steps
    full_collections     Python's full (generation 2) garbage collections on the feeding thread,
                         each scanning every object the program holds, PyTorch's own included
                         (timed only where the collections were: tools/profile_site)

Left out on purpose: "the same tensor moved every step" (identical large H2D sizes repeated).
A data loader's batches are as large and as regular, and the recording has sizes, not
contents, so that rule would fire on every well-written training loop.
"""

from __future__ import annotations

import math

from hdreport.profile.analysis import NS, Analysis
from hdreport.profile.handover import (GATHER_GBPS, HANDOVER_BATCH_S, HANDOVER_PINNED_S, HANDOVER_TENSOR_S,
                                       PIN_THREAD_BATCH_S, PIN_THREAD_TENSOR_S, Handover)
from hdreport.profile.model import read_per_batch, savings

MIN_SAVING_OF_SPAN = 0.02  # below this a finding is noise, not advice
# A batch built on the training thread in under this many times what gathering it whole costs
# here is taken to be gathered already: a program's gathers run in another cache and memory
# state than the probe's (well_written.py's took 0.31 ms a batch on an H100 host, 0.52 ms on
# an H200 host, 0.25 ms on a 2-vCPU VM where the probe's gathers of that batch took 0.14 to
# 0.21 ms), so a smaller excess is not per-sample building. The tutorial's per-sample batches
# took 5.6 (H200 host) to 7.4 (H100 host) times the 0.31 ms of a gather at GATHER_GBPS, and
# 6 times the probe's here.
GATHER_GATE = 3.0

IDS = {"workers": "input_pipeline", "gather": "per_sample_batches", "pin": "pageable_to_pinned",
       "overlap": "overlap_copies", "pack": "pack_small_copies", "item": "drop_blocking_reads",
       "graph": "launch_bound", "gc": "full_collections"}


def finding_id(fix: str, model) -> str:
    """The finding a fix makes. Where a pin thread feeds the steps, gathering on the training
    thread removes that thread: its batches are not built sample by sample, so the finding is
    pin_thread_gil, not per_sample_batches; where the steps end in a synchronize, not a read,
    dropping it is drop_step_synchronizes."""
    if fix == "gather" and model.pin_thread:
        return "pin_thread_gil"
    if fix == "item" and model.steps_cut_at == "synchronizes":
        return "drop_step_synchronizes"
    return IDS[fix]


ADVICE = {
    "input_pipeline": "build batches off the training thread: DataLoader(num_workers={workers}, "
                      "persistent_workers=True, pin_memory=True): with pin_memory the pin thread, not the "
                      "training thread, takes each batch over from the workers",
    "per_sample_batches": "hold the data set in memory as tensors and build each batch whole: one index_select of "
                          "the batch's rows a tensor (a Dataset whose __getitem__ takes the batch's indices, a "
                          "BatchSampler as the DataLoader's sampler, batch_size=None); best gathered straight into "
                          "a pinned buffer and copied one batch ahead (examples/fashion_mnist/well_written.py){from_workers}",
    "pin_thread_gil": "gather each batch whole on the training thread, straight into a pinned buffer allocated "
                      "once, and copy it one batch ahead with non_blocking=True (examples/fashion_mnist/"
                      "well_written.py): no DataLoader workers and no pin_memory thread, so no other Python thread "
                      "of the process takes the GIL from the training loop",
    "pageable_to_pinned": "pin_memory=True on the DataLoader (or tensor.pin_memory()), "
                          "then .to(device, non_blocking=True)",
    "overlap_copies": "non_blocking=True on copies from pinned memory; prefetch the next batch on a side stream",
    "pack_small_copies": "move the batch as one tensor (a collate_fn that writes every part into one buffer) "
                         "and split it on the GPU",
    "drop_blocking_reads": "do not call loss.item() (or print a CUDA tensor){syncs} every step; accumulate on "
                           "the GPU and read every N steps (with fp16 autocast, GradScaler.step() reads its "
                           "inf check every step too: bf16 autocast needs no scaler)",
    "drop_step_synchronizes": "do not call torch.cuda.synchronize() (or stream.synchronize()) every step: it "
                              "waits for all the GPU's work; to time steps, record torch.cuda.Event pairs and "
                              "read them every N steps, or time N steps between two synchronizes",
    "launch_bound": "capture the whole step (forward, loss, backward, optimizer step) once in a CUDA graph and "
                    "replay it, copying each batch into the graph's input tensors (torch.cuda.CUDAGraph after a few "
                    "warm-up steps on a side stream: examples/fashion_mnist/well_written.py; or "
                    "torch.compile(mode='reduce-overhead')); or fewer, larger steps (larger batches)",
    "full_collections": "call gc.freeze() once set-up is done (the data loaded, the model built, a first step "
                        "run): Python's full collections then leave every object made so far unscanned (importing "
                        "PyTorch alone makes about 100,000); or gc.disable() for the loop and gc.collect() between "
                        "epochs",
}

ASSUMPTION = {
    "input_pipeline": "enough workers keep up; {handover}; {workers_start}",
    "per_sample_batches": "the data set fits in host memory as tensors; {gather}",
    "pin_thread_gil": "the pin thread holds the GIL {pin_thread}, time the training thread waits through, in "
                      "its wait for batches first, then in its own Python; {gather}",
    "pageable_to_pinned": "the training thread no longer stages or waits for the copy; with num_workers=0 it "
                          "still copies each batch into pinned memory itself, priced at {pin_rate}",
    "overlap_copies": "the host stops waiting for these copies; the kernels that use them wait on the GPU",
    "pack_small_copies": "the parts are written into one buffer as the batch is built (no extra copy), and "
                         "the one copy costs what the largest copy costs now",
    "drop_blocking_reads": "the host runs ahead into the next step until it next waits (a blocking copy, "
                           "unless those are made non-blocking too), hiding the GPU's work behind its own",
    "drop_step_synchronizes": "the host runs ahead into the next step until it next waits (a blocking copy, "
                              "unless those are made non-blocking too), hiding the GPU's work behind its own",
    "launch_bound": "the step can be captured whole (fixed shapes; no read, synchronize or host decision "
                    "between its first launch and its last); a graph replaces the launches and the Python "
                    "between them with its replay and the copy of the batch into its inputs, {replay}; a step "
                    "that ends in a read then waits for all its GPU work after that one launch",
    "full_collections": "frozen, a full collection scans only what the loop made since, about nothing (the "
                        "tutorial's took 28-35 ms each on a 2-vCPU VM, a few ms once frozen); the young "
                        "generations' collections stay",
}


def handover_text(h: Handover) -> str:
    """What the input_pipeline finding assumes a batch from a worker costs the training thread."""
    # The two threads share Python's GIL: a step takes at least both threads' time holding it.
    gil = (f"its pin thread holding the GIL {duration_text(PIN_THREAD_BATCH_S)} a batch and "
           f"{duration_text(PIN_THREAD_TENSOR_S)} a tensor besides the pinning copy, which the training thread shares")
    if not h.measured:
        return (f"a batch from a worker still costs the training thread {duration_text(HANDOVER_BATCH_S)} and "
                f"{duration_text(HANDOVER_TENSOR_S)} a tensor to take over (PyTorch's queue and shared memory), "
                f"{duration_text(HANDOVER_PINNED_S)} a batch with pin_memory, {gil} (the medians measured on H100 "
                "and H200 hosts with PyTorch 2.11; a recording without workers cannot show it)")
    pinned = (f"{duration_text(h.pinned_batch_s)} a batch with pin_memory" if h.pinned_batch_s is not None else
              f"{duration_text(HANDOVER_PINNED_S)} a batch with pin_memory (as on H100 and H200 hosts)")
    if h.pin_thread_batch_s is not None:
        gil = f"its pin thread holding the GIL {duration_text(h.pin_thread_batch_s)} a batch, which the training " \
              "thread shares"
    if h.pin_cycle_batch_s is not None:
        gil += f", and handing a batch over every {duration_text(h.pin_cycle_batch_s)} at best"
    return (f"a batch from a worker still costs the training thread {duration_text(h.batch_s)} to take over "
            f"(PyTorch's queue, shared memory and the first read of its pages), {duration_text(h.packed_batch_s)} "
            f"packed as one tensor, {pinned}, {gil} ({h.source})")


def pin_thread_text(h: Handover) -> str:
    """What the pin_thread_gil finding assumes the pin thread's GIL time a batch is."""
    if h.pin_thread_batch_s is not None:
        return f"{duration_text(h.pin_thread_batch_s)} a batch ({h.source})"
    return (f"{duration_text(PIN_THREAD_BATCH_S)} a batch and {duration_text(PIN_THREAD_TENSOR_S)} a tensor besides "
            "the pinning copy: the medians measured on H100 and H200 hosts with PyTorch 2.11, not here")


def gather_text(h: Handover) -> str:
    """What the per_sample_batches finding assumes gathering a batch whole costs."""
    if h.gather_batch_s is not None:
        rows = f"{h.gather_rows} random rows a batch"
        if len(h.tensor_bytes) == 1 and h.gather_rows:
            # one tensor a batch (packed) does not say how many samples it holds: the probe cut
            # it into rows of about 4 KiB (the tutorial's 256 samples of 3,144 B made 192 rows)
            rows = (f"the batch's {h.tensor_bytes[0]:,} B as {h.gather_rows} random rows of "
                    f"{h.tensor_bytes[0] // h.gather_rows:,} B "
                    "(one tensor a batch does not say how many samples it holds)")
        return (f"a batch gathered whole costs the training thread {duration_text(h.gather_batch_s)} "
                f"(measured here by tools/handover_probe.py: {rows}, out of 256 MiB held in memory, through a "
                "DataLoader)")
    return (f"a batch gathered whole costs its bytes at {GATHER_GBPS:g} GB/s (well_written.py's gathers on an H100 "
            "host; not measured here)")


def duration_text(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def sentence(text: str, capital: bool = True) -> str:
    """A full stop (and a capital first letter): the page prints what, advice and evidence in a row."""
    text = text[:1].upper() + text[1:] if capital else text
    return text if text.endswith(".") else text + "."


def _per_step(model, field: str, count: int = 0) -> str:
    """A part's time over the steps, a step (or over `count`, a batch say)."""
    return duration_text(model.total(field) / max(1, count or len(model.steps)))


def graphable(model) -> bool:
    """The loop was cut into steps (at reads, synchronizes or iteration ranges) that launch
    kernels: a step a graph could capture. One stretch of a whole run is no step to capture."""
    return bool(model.steps_cut_at) and model.total("X") > 0


def iterations(model) -> tuple[int, str]:
    """What the graph finding counts its figures by: the loop's turns, (count, "step") where
    each step holds about one batch, else (batches, "batch"): a loop cut at reads made every
    100 turns (the tutorial's --fix item logs so) has steps of 100 batches, a graph each."""
    n = max(1, len(model.steps))
    batches = sum(s.batches for s in model.steps)
    return (batches, "batch") if read_per_batch(batches, n) else (n, "step")


def replay_text(model) -> str:
    """What the graph finding prices a replay at, with the copy into the graph's inputs, and how."""
    count, unit = iterations(model)
    each = f"{duration_text(sum(s.replay_ns(model.handover) for s in model.steps) * NS / count)} a {unit}"
    if model.handover.graph_replay_batch_s is not None:
        return (f"measured here at {each} (tools/handover_probe.py: a batch copied into a graph's input and a graph "
                "of small kernels replayed)")
    return f"priced as two of the step's launch calls ({each})"


def workers_start_text(h) -> str:
    """How the input_pipeline finding counts the workers' start (Model.start_s)."""
    if h.start_priced:
        kind = "resident memory (VmRSS: this kernel does not say the anonymous part)" \
            if h.start_footprint_measure == "VmRSS" else "anonymous memory"
        size = (f"holding {h.start_footprint_bytes / 1e9:.2g} GB of {kind} (each worker a fork of it, as of the "
                "program; hdbench_profile asks for what the program held while its steps ran, where its Python "
                "said it)" if h.start_footprint_bytes else "(a fork of a larger program may take longer)")
        return (f"the workers' start, once a run with persistent_workers (every epoch without), is taken off: "
                f"{duration_text(h.workers_start_s)} to the first batch for {h.start_workers} "
                f"worker{'s' if h.start_workers != 1 else ''}, measured here in the probe's process {size}")
    measured = "" if h.workers_start_s is None else \
        f"; {duration_text(h.workers_start_s)} here for the probe's own workers, not the count advised"
    return (f"the workers' start (once a run, with persistent_workers{measured}) is not counted: a short run pays it "
            "besides")


def workers_needed(model) -> int:
    """Workers that keep up: a batch's build time over the rest of a step, plus one spare."""
    batches = sum(s.batches for s in model.steps) or 1
    build = model.total("B") / batches
    rest = max(1e-6, (model.total("T") - model.total("B")) / batches)
    return max(1, math.ceil(build / rest)) + 1


def what_and_evidence(fix: str, model, a: Analysis, idle: dict) -> tuple[str, str]:
    """(what was seen, the numbers) for a fix."""
    n = len(model.steps)
    # steps of many batches (a loop read every 100 turns) are stretches of it, as the summary says
    step = "stretch" if read_per_batch(sum(s.batches for s in model.steps), n) else "step"
    steps = f"{n} {step}{('es' if step == 'stretch' else 's') if n != 1 else ''}"
    by_cause = idle["by_cause_s"]
    if fix == "workers":
        return (f"the training thread spent {duration_text(model.total('B'))} building batches between CUDA calls "
                f"while the GPU waited ({duration_text(by_cause['input_pipeline'])} of GPU idle time)"
                + (f"; it forked {processes_text(model.forked)} (DataLoader workers), which did not keep up"
                   if model.forked else ""),
                f"{_per_step(model, 'B')} of input pipeline a {step} over {steps} against "
                f"{_per_step(model, 'T')} a {step} in all; GPU busy {_per_step(model, 'G')} a {step}")
    if fix == "gather" and model.pin_thread:
        batches = sum(s.batches for s in model.steps) or 1
        gathered = model.gather_s()
        return (f"the training thread takes its batches from DataLoader's pin_memory thread (another thread of its "
                f"process pinned their memory and launches nothing), a Python thread that holds the GIL about "
                f"{duration_text(model.pin_thread_s() / batches)} a batch, time the training thread's own Python "
                f"waits through: it waited {duration_text(model.total('B') / batches)} a batch for its batches and "
                f"spent {duration_text(model.total('H') / batches)} a batch in Python between CUDA calls, where "
                f"gathering a batch whole on it takes {duration_text(gathered / batches)}",
                f"{batches} batches of {sum(s.batch_bytes for s in model.steps) / batches / 1e3:,.0f} kB over "
                f"{steps}, {_per_step(model, 'T')} a {step}; the pin thread's GIL time "
                f"{duration_text(model.pin_thread_s())} in all against {duration_text(gathered)} gathered whole")
    if fix == "gather":
        batches = sum(s.batches for s in model.steps) or 1
        gathered = model.gather_s()
        where = "here" if model.handover.gather_batch_s is not None else f"at {GATHER_GBPS:g} GB/s"
        handover = handover_like_build_s(model)
        taking = (f"{duration_text(handover / batches)} a batch {handover_where(model.handover)}"
                  if handover is not None else "")
        how = ("sample by sample (a Dataset indexed per sample and the default collate)"
               + (f", or takes them over from DataLoader workers, which costs about as much: {taking}"
                  if taking else ""))
        if model.forked:  # the recording says it had workers: what it waits for is their hand-over
            how = (f"over from the {processes_text(model.forked)} it forked (its DataLoader workers), which costs "
                   f"{taking}")
        return (f"the training thread took {duration_text(model.total('B') / batches)} to get each batch, where "
                f"gathering a batch whole on it takes {duration_text(gathered / batches)} {where}: it "
                + ("takes them " if model.forked else "builds them ") + how,
                f"{duration_text(model.total('B'))} of batch building for {batches} batches of "
                f"{sum(s.batch_bytes for s in model.steps) / batches / 1e3:,.0f} kB over {steps}, against "
                f"{duration_text(gathered)} gathered whole")
    if fix == "pin":
        return (f"pageable copies held the training thread {duration_text(model.total('L_pg'))} in their calls "
                "(the driver staging them through its own pinned buffer) and the waits after them",
                f"{_per_step(model, 'L_pg')} a {step} over {steps}, timed from each copy's call, not its DMA record")
    if fix == "overlap":
        return (f"the host waited {duration_text(model.total('L_pin'))} for copies from pinned memory",
                f"{_per_step(model, 'L_pin')} a {step} over {steps}")
    if fix == "pack":
        extra = sum(s.extra_copies for s in model.steps)
        return (f"{extra} copies went as extra pieces of batches sent in several copies back to back, "
                f"{duration_text(model.total('S'))} of calls and waits",
                f"{extra / max(1, n):.3g} extra copies and {_per_step(model, 'S')} a {step} over {steps}")
    if fix == "item":
        wait = "synchronize" if model.steps_cut_at == "synchronizes" else "read"
        syncs = model.total("R_sync")
        return (f"the host waited {duration_text(model.total('R'))} in a blocking {wait} at the end of every step"
                + (f" and {duration_text(syncs)} in a synchronize (no copy in it) every step besides" if syncs else "")
                + ", so it never ran ahead of the GPU",
                f"{_per_step(model, 'R')} a {step} waiting in the {wait} over {steps}; host work before the next "
                f"wait {_per_step(model, 'B')} a {step}")
    if fix == "gc":
        full = sum(s.gc_full_count for s in model.steps)
        return (f"Python's full garbage collections held the training thread {duration_text(model.total('gc_full'))} "
                "in the steps, each scanning every object the program holds, PyTorch's own modules included",
                f"{full} full collection{'s' if full != 1 else ''} over {steps}, {duration_text(model.total('gc_full') / max(1, full))} each "
                f"on average; collections of every generation {duration_text(model.total('gc'))}, the GPU idle "
                f"through {duration_text(by_cause.get('python_gc', 0.0))} of them")
    count, unit = iterations(model)
    launches = sum(s.launches for s in model.steps)
    return (f"the training thread launched each {unit}'s kernels one by one: {_per_step(model, 'X', count)} a "
            f"{unit} from its first launch call to its last (the launches and the Python between them), where the "
            f"GPU was busy {_per_step(model, 'G', count)} a {unit}",
            f"{launches / count:.0f} launch calls a {unit} ({_per_step(model, 'launch_calls', count)} in them, the "
            f"GPU idle {_per_step(model, 'L_idle', count)} of it) over {steps}"
            + (f" of {count / max(1, n):.0f} batches each" if unit == "batch" else "")
            + f", {_per_step(model, 'T', count)} a {unit} in all")


# A batch wait within this factor of what taking the batches over from DataLoader workers
# costs may be that hand-over: a program whose workers gather each batch whole already (the
# H100's `--fix all` of 2026-11-28b: 305 µs a batch) was told only to gather whole.
HANDOVER_LIKE = 2.0


def handover_like_build_s(model) -> float | None:
    """What taking the steps' batches over from DataLoader workers costs the training thread
    (seconds), where the program forked Python processes (its workers: Model.forked) or,
    where the recording does not say, its batch wait is within HANDOVER_LIKE of it (a
    per-sample build and such a hand-over look alike: the workers use no CUDA). None where it
    forked none, the wait is far from it, or a pin thread feeds the batches (pin_thread_gil)."""
    if model.pin_thread:
        return None
    handover = sum(model.handover.ns(s, frozenset()) for s in model.steps) * NS
    if model.forked is not None:  # the recording says whether the program had workers
        return handover if model.forked > 0 and handover > 0 else None
    waited = model.total("B")
    return handover if handover > 0 and handover / HANDOVER_LIKE <= waited <= handover * HANDOVER_LIKE else None


def from_workers_text(model) -> str:
    """The gather advice's tail where the batch wait is (or may be) a workers' hand-over."""
    if handover_like_build_s(model) is None:
        return ""
    if model.forked:
        return ("; its batches come from DataLoader workers: gather on the training thread instead, with no workers "
                "(num_workers=0), since taking a batch over from a worker costs it more than gathering it whole")
    return ("; where DataLoader workers gather each batch whole already, gather on the training thread instead, "
            "with no workers (num_workers=0): a batch taken over from a worker costs it about as much as building "
            "it sample by sample")


def processes_text(n: int) -> str:
    return f"{n} Python process{'es' if n != 1 else ''}"


def handover_where(h: Handover) -> str:
    return "here (tools/handover_probe.py)" if h.measured else "on H100 and H200 hosts (not measured here)"


def findings(a: Analysis, model, idle: dict) -> list[dict]:
    """The findings worth acting on, by their saving alone, largest first."""
    span = a.totals["span_s"]
    if span <= 0 or not model.steps:
        return []
    # The savings added are worked out over the kept fixes alone, so they sum to what those
    # save together.
    floor = MIN_SAVING_OF_SPAN * span
    kept = chosen(model.saving_s, eligible(model), floor)
    priced = savings(model, kept)
    pin_rate = (model.pin_rate_source if model.pin_rate_source else
                "what the driver's staging took (no host memcpy rate in the baseline)")
    if model.handover.pin_here_batch_s is not None:
        pin_rate = (f"{duration_text(model.handover.pin_here_batch_s)} a batch, measured here by pinning a batch of "
                    "its shape on one thread (tools/handover_probe.py)")
    fills = {"workers": workers_needed(model), "handover": handover_text(model.handover), "pin_rate": pin_rate,
             "gather": gather_text(model.handover), "pin_thread": pin_thread_text(model.handover),
             "syncs": ", nor torch.cuda.synchronize()," if model.total("R_sync") > 0 else "",
             "workers_start": workers_start_text(model.handover),
             "replay": replay_text(model),
             "from_workers": from_workers_text(model)}
    out = []
    for fix, (alone, added) in priced.items():
        key = finding_id(fix, model)
        what, evidence = what_and_evidence(fix, model, a, idle)
        out.append({"id": key, "fix": fix, "saving_s": added, "saving_alone_s": alone,
                    "saving_fraction_of_span": added / span, "saving_alone_fraction_of_span": alone / span,
                    "what": sentence(what), "advice": sentence(ADVICE[key].format(**fills), capital=False),
                    "assumption": sentence(ASSUMPTION[key].format(**fills)), "evidence": sentence(evidence)})
    return out


def eligible(model) -> list:
    """The fixes the recording gives reason to price: graph only in a loop cut into steps,
    gather only when batches are built far slower than a gather, gc only where collections
    were timed."""
    return [f for f in model.priced_fixes()
            if (f != "graph" or graphable(model)) and (f != "gather" or gathers_pay(model))]


def gathers_pay(model) -> bool:
    """The training thread builds its batches in at least GATHER_GATE times what gathering
    them whole costs here (a program that gathers already is not told to), or a pin thread
    feeds them (what a gather on the training thread removes is the pin thread's GIL time,
    priced by the model and kept only above the floor as any fix)."""
    gathered = model.gather_s()
    return gathered > 0 and (model.pin_thread or model.total("B") >= GATHER_GATE * gathered)


def chosen(price, candidates: list, floor: float) -> list:
    """The fixes worth advising: largest saving alone first, each kept when it adds at least
    `floor` to the fixes kept before it; passes repeat until none is added, so that a fix that
    pays only once another is made (packing once workers send the batches) is kept too.
    `price(fixes)`: what a set of fixes saves together (Model.saving_s; verify prices them from
    a report), None where it is not priced, which keeps no fix that would need it."""
    alone = {f: price({f}) or 0.0 for f in candidates}
    kept: list = []
    grew = True
    while grew:
        grew = False
        for f in sorted((f for f in candidates if f not in kept), key=lambda f: -alone[f]):
            more = price({*kept, f})
            if more is not None and more - price(set(kept)) >= floor:
                kept.append(f)
                grew = True
    return kept


def left_out(model, found: list[dict], span: float) -> list[dict]:
    """The fixes that would save the floor alone but add less than it to the findings' fixes
    (another finding makes them pointless): what each saves alone and adds, so that a reader
    (and `verify`) can see why it is not advised."""
    if span <= 0 or not model.steps:
        return []
    floor = MIN_SAVING_OF_SPAN * span
    fixes = {f["fix"] for f in found}
    together = model.saving_s(fixes)
    out = []
    for fix in eligible(model):
        alone = model.saving_s({fix})
        if fix in fixes or alone < floor:
            continue
        out.append({"id": finding_id(fix, model), "fix": fix, "saving_alone_s": alone,
                    "saving_added_s": model.saving_s({*fixes, fix}) - together})
    return out


def would_cost(model, span: float) -> list[dict]:
    """The fixes that would make the steps longer by at least the floor (MIN_SAVING_OF_SPAN of
    the span), alone: their id, fix, what they would cost (`cost_s`, and as a share of the
    span) and why, so that the report answers "will it pay?" where it will not."""
    if span <= 0 or not model.steps:
        return []
    out = []
    for fix in model.priced_fixes():
        cost = -model.net_saving_s({fix})
        if cost >= MIN_SAVING_OF_SPAN * span:
            out.append({"id": finding_id(fix, model), "fix": fix, "cost_s": cost, "cost_fraction_of_span": cost / span,
                        "why": cost_reason(fix, model)})
    return out


def cost_reason(fix: str, model) -> str:
    """Why a fix would make the steps longer, in one line."""
    if fix == "pin":
        batches = sum(s.batches for s in model.steps) or 1
        h = model.handover
        pinning = (f"{duration_text(h.pin_here_batch_s)} a batch (measured here by tools/handover_probe.py)"
                   if h.pin_here_batch_s is not None else
                   f"{duration_text(sum(model.pin_costs) * NS / batches)} a batch ({model.pin_rate_source})")
        return (f"with num_workers=0, pin_memory=True pins each batch on the training thread, {pinning}, where "
                f"staging and waiting for its pageable copies take {duration_text(model.total('L_pg') / batches)} "
                "a batch now; with DataLoader workers the pin thread pins instead (input_pipeline)")
    start = model.start_s({fix})
    if start:  # the workers fix: their start, once, against what they save in the steps
        return (f"starting {model.handover.start_workers} DataLoader workers takes {duration_text(start)} once "
                f"(measured here by tools/handover_probe.py), more than the "
                f"{duration_text(max(0.0, model.net_saving_s({fix}) + start))} they would save in the steps: "
                "a run this short pays more for their start than it gains")
    return "the step model's steps are longer with it than without"


def saving_together_s(model, found: list[dict]) -> float:
    """What the findings' fixes save together (the sum of their `saving_s`, computed once)."""
    return model.saving_s({f["fix"] for f in found})

