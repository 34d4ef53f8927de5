"""examples/fashion_mnist/: the two training scripts (tutorial_style.py, well_written.py)
compile, take every shared flag and default from common.py (read without PyTorch), and,
where PyTorch imports, run a few CPU steps on synthetic data, on a tiny IDX data set,
and print the same losses; tutorial_style.py's --fix variants (one habit removed each)
print the same losses as the plain run, and tools/fashion_mnist_ablation.sh runs them
all into one JSON file. No test looks at a time."""

from __future__ import annotations

import ast
import gzip
import importlib.util
import json
import os
import py_compile
import re
import signal
import struct
import subprocess
import sys
import time
from argparse import Namespace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "fashion_mnist"
SCRIPTS = ("tutorial_style", "well_written")
RESULT = re.compile(r"^(?P<script>\w+): steps=(?P<steps>\d+) batch=(?P<batch>\d+) hidden=(?P<hidden>\d+) "
                    r"device=(?P<device>\S+) data=(?P<data>\S+) wall_s=(?P<wall>[\d.]+) "
                    r"steps_per_s=(?P<rate>[\d.]+) final_loss=(?P<final>[\d.]+) mean_loss=(?P<mean>[\d.]+) "
                    r"batch_wait_s=(?P<wait>[\d.]+)(?: rest_off_cpu_s=(?P<off_cpu>[\d.]+))?"
                    r"(?: batch_wait_off_cpu_s=(?P<wait_off_cpu>[\d.]+))?(?: pace_spread=(?P<pace>[\d.]+))?"
                    r"(?: pace_best_ms=(?P<pace_best>[\d.]+))?(?: first_batch_s=(?P<first>[\d.]+))?"
                    r"(?: step_wait=(?P<step_wait>\w+))?"
                    r"(?: step=(?P<step>graph|eager))?(?: fix=(?P<fix>\S+))?$")
FIXES = ("workers", "gather", "pin", "item", "pack", "gc", "graph")  # tutorial_style.py --fix
ABLATION = ROOT / "tools" / "fashion_mnist_ablation.sh"

pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"{EXAMPLES} is not here (a bundle without examples/)")


def load_common():
    """examples/fashion_mnist/common.py as a module, without PyTorch."""
    spec = importlib.util.spec_from_file_location("fashion_mnist_common", EXAMPLES / "common.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def need_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        pytest.skip("PyTorch is not installed here")


def run_script(name: str, *args, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def result_of(run: subprocess.CompletedProcess) -> dict:
    assert run.returncode == 0, run.stderr + run.stdout
    lines = run.stdout.strip().splitlines()
    match = RESULT.match(lines[-1]) if lines else None
    assert match, f"no result line at the end of:\n{run.stdout}"
    return match.groupdict()


# ---- without PyTorch ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["common", *SCRIPTS])
def test_the_example_compiles(name, tmp_path):
    py_compile.compile(str(EXAMPLES / f"{name}.py"), cfile=str(tmp_path / f"{name}.pyc"), doraise=True)


def test_common_imports_no_torch_at_module_level():
    tree = ast.parse((EXAMPLES / "common.py").read_text())
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names] + \
            [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert not [m for m in names if m.split(".")[0] in {"torch", "numpy"}], names


def test_the_shared_parser_has_the_documented_defaults():
    common = load_common()
    args = common.make_parser("x").parse_args([])
    assert (args.steps, args.batch, args.hidden, args.lr, args.seed, args.device) == \
        tuple(common.DEFAULTS[k] for k in ("steps", "batch", "hidden", "lr", "seed", "device"))
    assert args.data_dir is None and not args.synthetic  # None: the default folder, synthetic if it is absent
    assert common.DEFAULTS["data_dir"] == "/usr/share/datasets/fashion-mnist"
    flags = {o for a in common.make_parser("x")._actions for o in a.option_strings}
    assert set(common.SHARED_FLAGS) <= flags
    readme = (EXAMPLES / "README.md").read_text()
    for key, flag in (("steps", "--steps"), ("batch", "--batch"), ("hidden", "--hidden"), ("lr", "--lr")):
        assert f"`{flag}` (default {common.DEFAULTS[key]})" in readme or f"`{flag}` ({common.DEFAULTS[key]})" in readme


def calls(tree: ast.AST) -> list[tuple[str, str, ast.Call]]:
    """[(object name, attribute, call)] for every `x.attr(...)` call."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
            out.append((owner, node.func.attr, node))
    return out


@pytest.mark.parametrize("name", SCRIPTS)
def test_both_scripts_take_the_model_data_order_and_flags_from_common(name):
    common = load_common()
    found = calls(ast.parse((EXAMPLES / f"{name}.py").read_text()))
    used = {attr for owner, attr, _ in found if owner == "common"}
    assert {"make_parser", "pick_device", "load_data", "build_model", "loss_fn", "warm_up", "ShuffledOrder",
            "start_clock", "stop_clock", "result_line"} <= used, sorted(used)
    own_flags = {a.value for _, attr, call in found if attr == "add_argument"
                 for a in call.args if isinstance(a, ast.Constant)}
    assert not own_flags & set(common.SHARED_FLAGS), f"{name}.py redefines {own_flags & set(common.SHARED_FLAGS)}"
    assert not [attr for _, attr, _ in found if attr == "set_defaults"], f"{name}.py changes a shared default"
    assert "nn.Linear" not in (EXAMPLES / f"{name}.py").read_text(), "the model is common.build_model's"


def test_the_result_line_is_what_the_tests_read():
    common = load_common()
    args = Namespace(steps=20, batch=64, hidden=512)
    line = common.result_line("well_written", args, "cuda", "fashion-mnist", 2.0, 0.25, 0.5, 0.125)
    m = RESULT.match(line)
    assert m and m["steps"] == "20" and m["rate"] == "10.0" and m["final"] == "0.2500" and m["wait"] == "0.125"
    assert m["fix"] is None
    line = common.result_line("tutorial_style", args, "cuda", "fashion-mnist", 2.0, 0.25, 0.5, 0.125, fix="item+pin",
                              rest_off_cpu_s=0.25, batch_wait_off_cpu_s=0.0625, pace_spread=1.5, pace_best_ms=3.25,
                              first_batch_s=0.0125)
    m = RESULT.match(line)
    assert m and m["wait"] == "0.125" and m["fix"] == "item+pin" and m["off_cpu"] == "0.250"
    assert m["wait_off_cpu"] == "0.062" and m["pace"] == "1.500" and m["pace_best"] == "3.2500"
    assert m["first"] == "0.0125"
    without = common.result_line("well_written", args, "cuda", "fashion-mnist", 2.0, 0.25, 0.5, 0.125)
    assert RESULT.match(without)["off_cpu"] is None and "rest_off_cpu_s" not in without


def test_the_tutorial_marks_each_habit_and_the_fix_that_removes_it():
    text = (EXAMPLES / "tutorial_style.py").read_text()
    assert text.count("# HABIT:") >= 5
    for habit in ("num_workers=0", "pin_memory=False", "loss.item()", "batch_labels.to(device"):
        assert habit in text, habit
    # Each HABIT comment (up to the code it describes) names the --fix that removes it,
    # and every fix removes some habit.
    blocks = [block.split("\n\n")[0] for block in re.split(r"# HABIT:", text)[1:]]
    named = [set(re.findall(r"--fix (\w+)", " ".join(b.replace("#", " ").split()))) & set(FIXES) for b in blocks]
    assert all(named) and set().union(*named) == set(FIXES), named
    # The habits are the default: nothing is pinned or copied non_blocking unless --fix asks.
    keywords = [kw for call in ast.walk(ast.parse(text)) if isinstance(call, ast.Call) for kw in call.keywords]
    assert {"pin_memory", "non_blocking", "num_workers"} <= {kw.arg for kw in keywords}
    constant = [(kw.arg, kw.value.value) for kw in keywords
                if kw.arg in ("pin_memory", "non_blocking", "num_workers") and isinstance(kw.value, ast.Constant)]
    assert not constant, constant
    good = (EXAMPLES / "well_written.py").read_text()
    for practice in ("pin_memory=pin", "non_blocking=True", "torch.cuda.Stream", "wait_stream", "record_stream"):
        assert practice in good, practice


# ---- with PyTorch ----------------------------------------------------------------------------

def test_both_scripts_train_a_few_cpu_steps_on_synthetic_data_to_the_same_loss():
    need_torch()
    results = {name: result_of(run_script(name, "--device", "cpu", "--steps", 3, "--batch", 64, "--synthetic"))
               for name in SCRIPTS}
    for name, r in results.items():
        assert r["script"] == name and (r["steps"], r["batch"], r["device"], r["data"]) == ("3", "64", "cpu",
                                                                                          "synthetic")
        assert float(r["wall"]) > 0 and 0 < float(r["final"]) < 10
    a, b = (results[name] for name in SCRIPTS)
    assert float(a["final"]) == pytest.approx(float(b["final"]), rel=1e-3)
    assert float(a["mean"]) == pytest.approx(float(b["mean"]), rel=1e-3)


def write_idx(folder: Path, count: int) -> None:
    pixels = bytes((i * 7 + (i // 784) * 13) % 256 for i in range(count * 784))
    labels = bytes(i % 10 for i in range(count))
    (folder / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(struct.pack(">IIII", 0x803, count, 28, 28)
                                                                      + pixels))
    (folder / "train-labels-idx1-ubyte").write_bytes(struct.pack(">II", 0x801, count) + labels)


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_script_reads_idx_files_plain_or_gzipped_from_data_dir(name, tmp_path):
    need_torch()
    write_idx(tmp_path, 100)
    r = result_of(run_script(name, "--device", "cpu", "--steps", 8, "--batch", 32, "--data-dir", tmp_path))
    assert r["data"] == str(tmp_path) and r["steps"] == "8"  # 3 batches an epoch: crosses two epochs


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_data_dir_without_the_files_exits_1_naming_it(name, tmp_path):
    need_torch()
    run = run_script(name, "--device", "cpu", "--data-dir", tmp_path / "none")
    assert run.returncode == 1 and "no train-images-idx3-ubyte" in run.stderr and str(tmp_path) in run.stderr


@pytest.mark.parametrize("name", SCRIPTS)
def test_asking_for_cuda_without_it_exits_1_saying_so(name):
    need_torch()
    import torch
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    run = run_script(name, "--steps", 1)
    assert run.returncode == 1 and "CUDA is not available" in run.stderr and "--device cpu" in run.stderr
    assert run.stderr.count("\n") == 1, run.stderr  # one line, no traceback


def test_without_the_default_dataset_the_data_is_synthetic_with_a_note(tmp_path, capsys, monkeypatch):
    need_torch()
    common = load_common()
    monkeypatch.setitem(common.DEFAULTS, "data_dir", str(tmp_path))
    images, labels, weights, name = common.load_data(Namespace(synthetic=False, data_dir=None, seed=1, batch=64))
    note = capsys.readouterr().out
    assert name == "synthetic" and note.startswith("note: no Fashion-MNIST in ") and note.count("\n") == 1
    assert tuple(images.shape) == (common.SYNTHETIC_SAMPLES, 784) and labels.shape == weights.shape == (60000,)
    assert int(labels.min()) >= 0 and int(labels.max()) <= 9 and float(weights.min()) >= 0.5


# ---- tutorial_style.py --fix: one habit removed, nothing else ----------------------------------

def tutorial_with_fix(*fix, data: tuple = ("--synthetic",), steps: int = 5, batch: int = 64) -> tuple[dict, list]:
    """(result fields, the step lines it printed) of tutorial_style.py on the CPU."""
    run = run_script("tutorial_style", "--device", "cpu", "--steps", steps, "--batch", batch, "--log-every", 2,
                     "--workers", 2, *data, *fix)
    r = result_of(run)
    assert (r["pace"] is None) == (steps // 2 < 3), r  # a pace spread from three --log-every stretches on
    # the time off the CPU outside the batch waits is part of that time (each printed to 1 ms)
    assert r["off_cpu"] is not None and float(r["off_cpu"]) <= float(r["wall"]) - float(r["wait"]) + 0.002, r
    return r, [line for line in run.stdout.splitlines() if line.startswith("step ")]


@pytest.mark.parametrize("fix", [*FIXES, "all"])
def test_each_fix_trains_on_the_same_batches_to_the_same_losses(fix, tmp_path):
    need_torch()
    write_idx(tmp_path, 100)  # 3 batches of 32 an epoch: 8 steps cross two epochs' permutations
    data = ("--data-dir", tmp_path)
    plain, plain_log = tutorial_with_fix(data=data, steps=8, batch=32)
    fixed, fixed_log = tutorial_with_fix("--fix", fix, data=data, steps=8, batch=32)
    assert plain["fix"] == "none" and fixed["fix"] == ("+".join(sorted(FIXES)) if fix == "all" else fix)
    assert (fixed["final"], fixed["mean"]) == (plain["final"], plain["mean"])
    assert fixed_log == plain_log and len(plain_log) == 4  # the loss every --log-every 2 steps, unchanged
    # four stretches of 2 steps: the pace's spread over the last three, the slowest over the fastest
    assert float(plain["pace"]) >= 1.0 and float(fixed["pace"]) >= 1.0
    # the fastest stretch, 2 steps at pace_best ms each, lies inside the run's wall time (printed to 1 ms)
    assert 0 < 2 * float(plain["pace_best"]) <= float(plain["wall"]) * 1e3 + 1


def test_each_step_wait_trains_to_the_plain_losses_and_fix_item_removes_it():
    """--step-wait sync (a synchronize every step, the loss read every --log-every steps) and
    both (a synchronize and a read every step) train as plain does; on the CPU there is no GPU
    to synchronize with, which a one-line note says."""
    need_torch()
    plain, plain_log = tutorial_with_fix(steps=8)
    assert plain["step_wait"] is None  # the plain tutorial's `item` goes unsaid: its lines read as before
    for wait in ("sync", "both"):
        run = run_script("tutorial_style", "--device", "cpu", "--steps", 8, "--batch", 64, "--log-every", 2,
                         "--synthetic", "--step-wait", wait)
        r = result_of(run)
        assert (r["step_wait"], r["fix"], r["final"], r["mean"]) == (wait, "none", plain["final"], plain["mean"])
        assert [line for line in run.stdout.splitlines() if line.startswith("step ")] == plain_log
        notes = [line for line in run.stdout.splitlines() if line.startswith("note: ")]
        assert len(notes) == 1 and f"--step-wait {wait}: torch.cuda.synchronize() skipped" in notes[0], run.stdout
        fixed = run_script("tutorial_style", "--device", "cpu", "--steps", 8, "--batch", 64, "--log-every", 2,
                           "--synthetic", "--step-wait", wait, "--fix", "item")
        assert "note: " not in fixed.stdout  # nothing to skip: --fix item removed the per-step wait
        assert (result_of(fixed)["final"], result_of(fixed)["fix"]) == (plain["final"], "item")
    bad = run_script("tutorial_style", "--device", "cpu", "--steps", 1, "--synthetic", "--step-wait", "event")
    assert bad.returncode == 2 and "--step-wait" in bad.stderr and "Traceback" not in bad.stderr


def test_fix_all_on_synthetic_data_prints_the_plain_losses_and_well_written_agrees():
    need_torch()
    plain, _ = tutorial_with_fix()
    fixed, _ = tutorial_with_fix("--fix", "all")
    assert (fixed["final"], fixed["mean"]) == (plain["final"], plain["mean"])
    good = result_of(run_script("well_written", "--device", "cpu", "--steps", 5, "--batch", 64, "--synthetic"))
    assert float(good["final"]) == pytest.approx(float(fixed["final"]), rel=1e-3)


def test_well_written_gives_its_pace_between_its_reads_only():
    need_torch()
    timed = result_of(run_script("well_written", "--device", "cpu", "--steps", 8, "--batch", 64, "--synthetic",
                                 "--log-every", 2))
    # four stretches of 2 steps, each ending in a read: the spread over the last three
    assert float(timed["pace"]) >= 1.0 and 0 < 2 * float(timed["pace_best"]) <= float(timed["wall"]) * 1e3 + 1
    untimed = result_of(run_script("well_written", "--device", "cpu", "--steps", 8, "--batch", 64, "--synthetic"))
    assert untimed["pace"] is None and untimed["pace_best"] is None  # no reads: the host runs ahead, no stretch
    assert untimed["final"] == timed["final"]  # the reads change nothing of the training


def test_well_written_graphs_its_step_and_eager_runs_it_op_by_op_to_the_same_losses():
    """On the CPU there is no graph: the default runs the step op by op on the graph's input
    tensor, after its warm-up and with the parameters put back, and says so; --eager leaves the
    graph's plumbing out. Both train to the same losses (the plumbing changes no number)."""
    need_torch()
    graphed = run_script("well_written", "--device", "cpu", "--steps", 6, "--batch", 64, "--synthetic")
    eager = run_script("well_written", "--device", "cpu", "--steps", 6, "--batch", 64, "--synthetic", "--eager")
    g, e = result_of(graphed), result_of(eager)
    assert (g["step"], e["step"]) == ("eager", "eager")  # what ran: no graph was captured on the CPU
    assert (g["final"], g["mean"]) == (e["final"], e["mean"])
    assert "note: no CUDA graph on device cpu" in graphed.stdout and "note:" not in eager.stdout


def test_a_graphed_step_puts_back_what_its_warm_up_changed(tmp_path):
    """GraphedStep's warm-up runs the step (the optimizer's too) on zeros; the parameters are put
    back after it, and an optimizer that keeps state (momentum) is refused, not trained wrong."""
    need_torch()
    import torch
    common = load_common()
    model = torch.nn.Linear(4, 2)
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

    def step(x):  # a step that moves the weights even on zeros (the bias's gradient is not 0)
        loss = model(x).sum() + 1.0
        loss.backward()
        optimizer.step()
        return loss

    graphed = common.GraphedStep(optimizer, [torch.zeros(3, 4)], step)
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))
    x = torch.ones(3, 4)
    with torch.no_grad():
        expected = (model(x).sum() + 1.0).item()  # the step's loss, taken before its update
    loss = graphed(x)
    assert torch.equal(graphed.inputs[0], x) and loss.item() == pytest.approx(expected)
    assert not all(torch.equal(p, b) for p, b in zip(model.parameters(), before))  # the step trained
    with_momentum = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)

    def momentum_step(x):
        loss = model(x).sum() + 1.0
        loss.backward()
        with_momentum.step()
        return loss

    with pytest.raises(RuntimeError, match="optimizer without state"):
        common.GraphedStep(with_momentum, [torch.zeros(3, 4)], momentum_step)


def captured_on_the_cpu(common, capture):
    """GraphedStep tried on the CPU, with `capture` in place of torch.cuda.graph's."""
    class Capturing(common.GraphedStep):
        @staticmethod
        def can_capture(device) -> bool:
            return True

    Capturing.capture = capture
    return Capturing


def test_a_failed_capture_runs_the_step_op_by_op_and_says_so(capsys):
    """Where capturing the step fails (a capture no machine here can try), GraphedStep says why
    on standard error and runs the step op by op on its inputs: the same losses as a step that
    was never captured, and no graph, so the result line says step=eager."""
    need_torch()
    import torch
    common = load_common()

    def capture(self, step):
        step(*self.inputs)  # a capture records without running: here it half ran, then failed
        raise RuntimeError("operation not permitted when stream is capturing\n(a second line)")

    FailingCapture = captured_on_the_cpu(common, capture)

    def losses(graphed_class):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

        def step(x):
            loss = model(x).sum() + 1.0
            loss.backward()
            optimizer.step()
            return loss

        graphed = graphed_class(optimizer, [torch.zeros(3, 4)], step)
        return graphed, [graphed(torch.full((3, 4), float(k))).item() for k in range(3)]

    failed, got = losses(FailingCapture)
    assert failed.graph is None and failed.failed.startswith("operation not permitted")
    err = capsys.readouterr().err
    assert "note: capturing the training step in a CUDA graph failed (operation not permitted when stream is " \
           "capturing (a second line)); the step runs op by op (step=eager)" in err
    plain, expected = losses(common.GraphedStep)  # on the CPU: never captured
    assert plain.failed == "" and got == expected


def test_a_failed_capture_names_the_step_s_error_not_the_capture_end_s(capsys):
    """A step that raises inside torch.cuda.graph makes its exit's capture_end raise too ("operation
    failed due to a previous error during capture"), with the step's error as its context: the
    note names the step's."""
    need_torch()
    import torch
    common = load_common()

    def capture(self, step):
        try:
            raise RuntimeError("CUDA error: operation not permitted when stream is capturing")
        finally:
            raise RuntimeError("operation failed due to a previous error during capture")

    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    graphed = captured_on_the_cpu(common, capture)(optimizer, [torch.zeros(3, 4)], lambda x: model(x).sum())
    assert graphed.graph is None
    assert graphed.failed == "CUDA error: operation not permitted when stream is capturing"
    assert "failed (CUDA error: operation not permitted when stream is capturing)" in capsys.readouterr().err


def test_fix_pin_on_the_cpu_is_skipped_with_a_one_line_note():
    need_torch()
    run = run_script("tutorial_style", "--device", "cpu", "--steps", 3, "--batch", 64, "--synthetic", "--fix", "pin")
    assert result_of(run)["fix"] == "pin"
    notes = [line for line in run.stdout.splitlines() if "--fix pin" in line]
    assert len(notes) == 1 and notes[0].startswith("note: ") and "cannot pin" in notes[0], run.stdout


def test_fixes_combine_repeated_or_comma_separated():
    need_torch()
    r, _ = tutorial_with_fix("--fix", "workers,item", "--fix", "pack", steps=3)
    assert r["fix"] == "item+pack+workers"
    r, _ = tutorial_with_fix("--fix", "none", steps=3)
    assert r["fix"] == "none"


@pytest.mark.parametrize("bad", ["cache", "pin,nope", ""])
def test_an_unknown_fix_exits_2_listing_the_known_ones(bad):
    need_torch()
    run = run_script("tutorial_style", "--device", "cpu", "--steps", 1, "--synthetic", "--fix", bad)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "--fix" in run.stderr and all(f in run.stderr for f in (*FIXES, "all")), run.stderr
    assert "Traceback" not in run.stderr and not run.stdout


# ---- tools/fashion_mnist_ablation.sh -----------------------------------------------------------

ABLATION_VARIANTS = {"plain", *(f"fix_{f}" for f in FIXES), "fix_all", "well_written"}


def test_the_gpu_checks_run_the_ablation_and_the_bundle_carries_it():
    checks = (ROOT / "tools" / "gpu_checks.sh").read_text()
    assert re.search(r"checks=\$\{HDBENCH_CHECKS:-[^}]* ablation\b", checks)
    assert "step ablation " in checks and "fashion_mnist_ablation.sh" in checks
    bundle = ROOT / "tools" / "make_bundle.sh"
    if bundle.exists():  # a bundle has no make_bundle.sh
        assert "tools/fashion_mnist_ablation.sh" in bundle.read_text()


def run_ablation(out: Path, *args, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(ABLATION), str(out), *map(str, args)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHON": sys.executable, **(env or {})})


def printed_results(run: subprocess.CompletedProcess) -> list[tuple[tuple[int, int], str]]:
    """((round, rounds), result line) of each result line the ablation printed ("[R/N] LINE")."""
    found = [re.match(r"^\[(\d+)/(\d+)\] (.*)$", line) for line in run.stdout.splitlines()]
    return [((int(m[1]), int(m[2])), m[3]) for m in found if m and RESULT.match(m[3])]


def test_the_ablation_runs_every_variant_into_one_json_file(tmp_path):
    need_torch()
    write_idx(tmp_path, 100)
    out = tmp_path / "out" / "ablation.json"
    run = run_ablation(out, "--steps", 4, "--batch", 32, "--device", "cpu", "--", "--data-dir", tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert (report["steps"], report["batch"], report["device"], report["failed"]) == (4, 32, "cpu", [])
    variants = report["variants"]
    assert set(variants) == ABLATION_VARIANTS
    assert report["repeat"] == 1
    printed = printed_results(run)
    assert [r for r, _ in printed] == [(1, 1)] * len(ABLATION_VARIANTS)  # each run's result line, with its round
    # One warm-up run of plain before the round, kept apart: it counts for no variant.
    assert report["warmup"]["runs"] == 1 and report["warmup"]["wall_s_runs"][0] > 0
    assert re.search(r"^\[warmup1\] tutorial_style: steps=4 .*fix=none", run.stdout, re.M), run.stdout
    for name, v in variants.items():
        assert v["rc"] == 0 and v["wall_s"] > 0 and v["batch_wait_s"] >= 0 and RESULT.match(v["result_line"]), name
        assert v["saved_s"] == pytest.approx(variants["plain"]["wall_s"] - v["wall_s"], abs=2e-3)
        assert v["final_loss"] == pytest.approx(variants["plain"]["final_loss"], rel=1e-3), name
        assert v["runs"] == 1 and v["wall_s_runs"] == [v["wall_s"]] and v["batch_wait_s_runs"] == [v["batch_wait_s"]]
        assert v["wall_s_spread"] == 0 and v["saved_s_range"] == [v["saved_s"], v["saved_s"]] and "failed_runs" not in v
    assert variants["plain"]["fix"] == "none" and variants["fix_pin"]["fix"] == "pin"
    assert variants["fix_all"]["fix"] == "gather+gc+graph+item+pack+pin+workers"
    assert variants["well_written"]["fix"] is None and variants["well_written"]["step"] == "eager"  # on the CPU
    # --fix graph says what ran too: op by op on the CPU
    assert {name: v["step"] for name, v in variants.items() if "step" in v and name != "well_written"} == \
        {"fix_graph": "eager", "fix_all": "eager"}
    # the tutorial's time off the CPU outside its batch waits is carried; well_written.py gives none
    for name, v in variants.items():
        if name == "well_written":
            assert "rest_off_cpu_s" not in v and "rest_off_cpu_s_runs" not in v
        else:
            assert v["rest_off_cpu_s_runs"] == [v["rest_off_cpu_s"]] and 0 <= v["rest_off_cpu_s"] <= v["wall_s"], name
            # the first batch wait (with workers, their start): part of the batch waits (printed to 1 ms)
            assert v["first_batch_s_runs"] == [v["first_batch_s"]] and 0 < v["first_batch_s"] <= v["batch_wait_s"] \
                + 5e-4, name


def test_the_ablation_times_well_written_between_its_reads(tmp_path):
    """well_written.py runs with --log-every 100 (as the tutorial logs), which SCRIPT_ARGS may
    set otherwise: here every 2 of 8 steps, so its paces are kept as the tutorial's are."""
    need_torch()
    out = tmp_path / "ablation.json"
    run = run_ablation(out, "--steps", 8, "--batch", 32, "--device", "cpu", "--variants", "plain,well_written",
                       "--warmup", 0, "--", "--synthetic", "--log-every", 2)
    assert run.returncode == 0, run.stdout + run.stderr
    for name, v in json.loads(out.read_text())["variants"].items():
        assert v["pace_spread_runs"] == [v["pace_spread"]] and v["pace_spread"] >= 1.0, name
        assert v["pace_best_ms_runs"] == [v["pace_best_ms"]] and v["pace_best_ms"] > 0, name
    assert re.search(r"^== \[1/1\] well_written: well_written.py --log-every 100$", run.stdout, re.M), run.stdout


def test_the_ablation_writes_its_json_when_variants_fail(tmp_path):
    need_torch()
    out = tmp_path / "ablation.json"
    # A data folder without the files: every run exits 1 at once.
    run = run_ablation(out, "--steps", 2, "--device", "cpu", "--", "--data-dir", tmp_path / "none")
    assert run.returncode == 1 and "FAILED" in run.stdout, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert set(report["failed"]) == set(report["variants"]) == ABLATION_VARIANTS
    assert all(v["rc"] == 1 and v["failed"] and not v["timed_out"] for v in report["variants"].values())


def test_the_ablation_repeats_round_robin_and_writes_medians(tmp_path):
    need_torch()
    out = tmp_path / "ablation.json"
    run = run_ablation(out, "--steps", 3, "--batch", 64, "--device", "cpu", "--repeat", 2, "--", "--synthetic")
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert (report["repeat"], report["failed"]) == (2, [])
    # Round-robin: every variant once in round 1, then every variant once in round 2, that
    # round starting one variant further on (plain last), so no variant is always first.
    printed = printed_results(run)
    n = len(ABLATION_VARIANTS)
    assert [rounds for rounds, _ in printed] == [(1, 2)] * n + [(2, 2)] * n
    which = [(RESULT.match(line)["script"], RESULT.match(line)["fix"]) for _, line in printed]
    assert which[n:] == which[1:n] + which[:1] and len(set(which)) == n
    headers = [re.match(r"^== \[(\d)/2\] (\w+):", line) for line in run.stdout.splitlines()]
    names = [m[2] for m in headers if m]
    assert names[n:] == names[1:n] + names[:1] and set(names) == ABLATION_VARIANTS
    assert names[0] == "plain" and names[-1] == "plain"
    variants = report["variants"]
    assert set(variants) == ABLATION_VARIANTS
    plain = variants["plain"]
    for name, v in variants.items():
        assert v["rc"] == 0 and v["runs"] == 2 and "failed_runs" not in v and RESULT.match(v["result_line"]), name
        assert len(v["wall_s_runs"]) == len(v["batch_wait_s_runs"]) == 2 and all(w > 0 for w in v["wall_s_runs"])
        assert v["wall_s"] == pytest.approx(sum(v["wall_s_runs"]) / 2, abs=1e-6)  # the median of two
        assert v["batch_wait_s"] == pytest.approx(sum(v["batch_wait_s_runs"]) / 2, abs=1e-6)
        assert v["steps_per_s"] > 0
        lo, hi = min(v["wall_s_runs"]), max(v["wall_s_runs"])
        assert v["wall_s_spread"] == pytest.approx((hi - lo) / v["wall_s"], abs=1e-3)
        assert v["saved_s"] == pytest.approx(plain["wall_s"] - v["wall_s"], abs=2e-3)
        paired = sorted(p - w for p, w in zip(plain["wall_s_runs"], v["wall_s_runs"]))
        assert v["saved_s_range"] == pytest.approx(paired, abs=2e-3)
        assert v["saved_s_range"][0] <= v["saved_s"] + 2e-3 and v["saved_s"] <= v["saved_s_range"][1] + 2e-3
    assert plain["saved_s"] == 0 and plain["saved_s_range"] == [0, 0]


FAIL_ON_CALLS = """#!/usr/bin/env bash
# PYTHON for the ablation: call number $n (counted in $COUNTER) fails when listed in $FAIL_CALLS.
n=$(( $(cat "$COUNTER" 2>/dev/null || echo 0) + 1 )); echo "$n" >"$COUNTER"
if [[ " $FAIL_CALLS " == *" $n "* ]]; then echo "simulated failure of call $n" >&2; exit 3; fi
exec "$REAL_PYTHON" "$@"
"""


def failing_calls(tmp_path: Path, calls: str) -> dict:
    """The environment that makes the ablation's Python fail on these calls (numbers counted from 1)."""
    wrapper = tmp_path / "python"
    wrapper.write_text(FAIL_ON_CALLS)
    wrapper.chmod(0o755)
    return {"PYTHON": str(wrapper), "REAL_PYTHON": sys.executable, "COUNTER": str(tmp_path / "n"), "FAIL_CALLS": calls}


def test_the_ablation_keeps_a_variants_good_runs_and_fails_it_only_when_all_failed(tmp_path):
    need_torch()
    out = tmp_path / "ablation.json"
    # Call 1 is the warm-up, calls 2-11 round 1 (plain, fix_workers, fix_gather, fix_pin, fix_item, fix_pack,
    # fix_gc, fix_graph, fix_all, well_written), 12-21 round 2, one variant further on (fix_workers first, plain
    # last): fix_item fails in round 2 only (call 15), fix_pack in both rounds (calls 7 and 16).
    run = run_ablation(out, "--steps", 3, "--batch", 64, "--device", "cpu", "--repeat", 2, "--", "--synthetic",
                       env=failing_calls(tmp_path, "7 15 16"))
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.count("FAILED (exit 3)") == 3
    report = json.loads(out.read_text())
    assert report["repeat"] == 2 and report["failed"] == ["fix_pack"]
    variants = report["variants"]
    pack = variants["fix_pack"]
    assert pack["failed"] and pack["rc"] == 3 and not pack["timed_out"] and pack["runs"] == 0
    assert pack["failed_runs"] == 2 and "simulated failure of call 16" in pack["tail"][-1]
    item = variants["fix_item"]
    assert item["rc"] == 0 and not item.get("failed") and item["runs"] == 1 and item["failed_runs"] == 1
    assert item["failed_rounds"] == [2] and "simulated failure of call 15" in item["tail"][-1]
    assert item["wall_s_runs"][1] is None and item["batch_wait_s_runs"][1] is None
    assert item["wall_s"] == item["wall_s_runs"][0] and item["wall_s_spread"] == 0
    plain = variants["plain"]
    assert plain["runs"] == 2 and None not in plain["wall_s_runs"]
    assert item["saved_s"] == pytest.approx(plain["wall_s"] - item["wall_s"], abs=2e-3)
    only = round(plain["wall_s_runs"][0] - item["wall_s_runs"][0], 3)  # round 1, the one both ran
    assert item["saved_s_range"] == pytest.approx([only, only], abs=2e-3)
    for name in ABLATION_VARIANTS - {"fix_item", "fix_pack"}:
        assert variants[name]["runs"] == 2 and "failed_runs" not in variants[name], name


def test_a_failed_warmup_is_kept_apart_and_the_rounds_still_run(tmp_path):
    need_torch()
    out = tmp_path / "ablation.json"
    # Calls 1 and 2 are the warm-ups (both fail), 3 and 4 the round (plain, fix_pin).
    run = run_ablation(out, "--steps", 3, "--batch", 64, "--device", "cpu", "--variants", "fix_pin", "--warmup", 2,
                       "--", "--synthetic", env=failing_calls(tmp_path, "1 2"))
    assert run.returncode == 0 and run.stdout.count("FAILED (exit 3)") == 2, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert report["warmup"] == {"runs": 2, "wall_s_runs": [None, None]} and report["failed"] == []
    assert all(v["runs"] == 1 and "failed_runs" not in v for v in report["variants"].values())


@pytest.mark.parametrize("bad", ["-1", "two", "1.5", ""])
def test_the_ablation_rejects_a_bad_warmup(tmp_path, bad):
    run = run_ablation(tmp_path / "a.json", "--steps", 1, "--warmup", bad)
    assert run.returncode == 2 and "--warmup needs a whole number of runs" in run.stderr, run.stdout + run.stderr
    assert not (tmp_path / "a.json").exists() and not run.stdout


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5", ""])
def test_the_ablation_rejects_a_bad_repeat(tmp_path, bad):
    run = run_ablation(tmp_path / "a.json", "--steps", 1, "--repeat", bad)
    assert run.returncode == 2 and "--repeat needs a positive integer" in run.stderr, run.stdout + run.stderr
    assert not (tmp_path / "a.json").exists() and not run.stdout


def test_the_ablation_runs_another_step_wait_in_tutorial_style_only(tmp_path):
    """--step-wait sync: every tutorial_style.py run synchronizes every step (until --fix item),
    well_written.py runs as it is, and the JSON says which program verify holds it for."""
    need_torch()
    out = tmp_path / "ablation.json"
    run = run_ablation(out, "--steps", 3, "--batch", 64, "--device", "cpu", "--warmup", 0, "--step-wait", "sync",
                       "--variants", "fix_item,well_written", "--", "--synthetic")
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert report["step_wait"] == "sync" and list(report["variants"]) == ["plain", "fix_item", "well_written"]
    assert "tutorial_style.py --step-wait sync --fix item" in run.stdout
    assert "well_written.py --log-every 100" in run.stdout and "well_written.py --step-wait" not in run.stdout
    for name in ("plain", "fix_item"):
        assert "step_wait=sync" in report["variants"][name]["result_line"]
    from hdreport.profile.ablation import ablation_step_wait

    assert ablation_step_wait(report) == "sync" and ablation_step_wait({"variants": {"plain": {}}}) == "item"
    # given among the scripts' own arguments instead, the runs' lines say it where the JSON's key does not
    report["step_wait"] = "item"
    assert ablation_step_wait(report) == "sync"
    bad = run_ablation(tmp_path / "b.json", "--steps", 1, "--step-wait", "event")
    assert bad.returncode == 2 and "--step-wait needs item, sync or both" in bad.stderr
    assert not (tmp_path / "b.json").exists()


def test_the_ablation_starts_the_workers_asked_in_the_runs_that_start_any(tmp_path):
    """--workers 2: tutorial_style.py --workers 2 in every run that fixes workers (fix_all too),
    nowhere else; the JSON says the count, and each such run its first batch wait."""
    need_torch()
    out = tmp_path / "ablation.json"
    run = run_ablation(out, "--steps", 3, "--batch", 64, "--device", "cpu", "--warmup", 0, "--workers", 2,
                       "--variants", "fix_workers,fix_item,fix_pin+workers", "--", "--synthetic")
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert report["workers"] == 2
    assert "tutorial_style.py --fix workers --workers 2" in run.stdout
    assert "tutorial_style.py --fix pin,workers --workers 2" in run.stdout
    assert "tutorial_style.py --fix item\n" in run.stdout and "== [1/1] plain: tutorial_style.py \n" in run.stdout
    assert all(v["first_batch_s"] > 0 for v in report["variants"].values())
    # fix_workers alone ran under loader_start_timeline.py: its first batch wait in parts, each
    # timed inside the script's own wait (iter() to the batch), so they add up to no more
    timed = report["variants"]["fix_workers"]
    assert set(timed["start_parts_s"]) == {"forking", "index_wait", "first_build", "hand_over"}
    assert timed["start_timed_runs"] == 1 and timed["start_parts_s"]["forking"] > 0
    assert sum(timed["start_parts_s"].values()) <= timed["first_batch_s"] + 1e-4  # first_batch_s has 4 decimals
    assert "start_parts_s" not in report["variants"]["fix_pin+workers"]
    for bad_count in ("0", "two"):
        bad = run_ablation(tmp_path / "b.json", "--steps", 1, "--workers", bad_count)
        assert bad.returncode == 2 and f"--workers needs a positive whole number of workers, not '{bad_count}'" in \
            bad.stderr
    assert not (tmp_path / "b.json").exists()


def test_the_ablation_rejects_an_unknown_argument(tmp_path):
    run = run_ablation(tmp_path / "a.json", "--stepz", 3)
    assert run.returncode == 2 and "unknown argument '--stepz'" in run.stderr
    assert not (tmp_path / "a.json").exists()


def test_the_ablation_runs_the_variants_asked_for_plain_first(tmp_path):
    need_torch()
    out = tmp_path / "ablation.json"
    run = run_ablation(out, "--steps", 3, "--batch", 64, "--device", "cpu", "--variants",
                       "fix_workers+pin,fix_all,fix_all", "--", "--synthetic")
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert list(report["variants"]) == ["plain", "fix_workers+pin", "fix_all"]  # plain added, the repeat dropped
    headers = [m[1] for m in (re.match(r"^== \[1/1\] (\S+): (.*)$", line) for line in run.stdout.splitlines()) if m]
    assert headers == ["plain", "fix_workers+pin", "fix_all"]
    assert "tutorial_style.py --fix workers,pin" in run.stdout
    assert report["variants"]["fix_workers+pin"]["fix"] == "pin+workers"
    assert report["variants"]["fix_all"]["saved_s"] == pytest.approx(
        report["variants"]["plain"]["wall_s"] - report["variants"]["fix_all"]["wall_s"], abs=2e-3)


@pytest.mark.parametrize("bad", ["fix_bogus", "fix_", "fix_workers+", "well", "plain,,fix_pin"])
def test_the_ablation_rejects_an_unknown_variant(tmp_path, bad):
    run = run_ablation(tmp_path / "a.json", "--variants", bad)
    assert run.returncode == 2 and "--variants: unknown variant" in run.stderr, run.stdout + run.stderr
    assert not (tmp_path / "a.json").exists() and not run.stdout


SLOW_STAND_IN = """#!/usr/bin/env bash
# PYTHON for the ablation: each run takes 1 s and prints a result line; the JSON writer (`-`) runs for real.
[[ $1 == - ]] && exec "$REAL_PYTHON" "$@"
sleep 1
echo "tutorial_style: steps=3 batch=64 hidden=512 device=cpu data=synthetic wall_s=0.5 steps_per_s=6 final_loss=1 \\
mean_loss=1 batch_wait_s=0.1 fix=none"
"""


def test_the_ablation_starts_no_round_that_would_pass_its_max_seconds(tmp_path):
    """So a caller's timeout never kills it before it writes its JSON (no PyTorch needed)."""
    wrapper = tmp_path / "python"
    wrapper.write_text(SLOW_STAND_IN)
    wrapper.chmod(0o755)
    env = {"PYTHON": str(wrapper), "REAL_PYTHON": sys.executable}
    out = tmp_path / "cut.json"
    # A round is two 1 s runs: after the first, a second would end past 3 s.
    run = run_ablation(out, "--variants", "fix_pin", "--repeat", 5, "--max-seconds", 3, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert report["repeat"] == 1 and report["rounds_asked"] == 5
    assert report["stopped"].startswith("round 2 of 5 not started") and "--max-seconds" in report["stopped"]
    assert report["variants"]["plain"]["runs"] == 1 and report["variants"]["plain"]["wall_s_runs"] == [0.5]
    assert "== round 2 of 5 not started" in run.stdout
    whole = tmp_path / "whole.json"
    run = run_ablation(whole, "--variants", "fix_pin", "--repeat", 2, "--max-seconds", 100, env=env)
    report = json.loads(whole.read_text())
    assert run.returncode == 0 and report["repeat"] == 2 and "stopped" not in report and "rounds_asked" not in report


@pytest.mark.parametrize("bad", ["-1", "1.5", "soon"])
def test_the_ablation_rejects_a_bad_max_seconds(tmp_path, bad):
    run = run_ablation(tmp_path / "a.json", "--max-seconds", bad)
    assert run.returncode == 2 and "--max-seconds needs a whole number" in run.stderr, run.stdout + run.stderr
    assert not (tmp_path / "a.json").exists()


# ---- the ablation's refusals come before its first run (hours of them on a GPU host) ----------
# PYTHON is a tripwire in these: its first call notes itself and kills the ablation (its session,
# started for it), so an input refused too late fails the test at once, having trained nothing.

TRIPWIRE = """#!{python}
import os, signal, sys
with open(os.environ["CALLS"], "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
os.killpg(os.getsid(0), signal.SIGKILL)
"""


def refused(tmp_path: Path, *args, code: int = 2) -> subprocess.CompletedProcess:
    """The ablation run with `args` (OUT_JSON among them, or not) in an empty folder of its own,
    PYTHON a tripwire: it exits `code` having started no run (no call, no run's log folder) and
    printing no traceback; the folder it ran in stays empty."""
    wrapper, calls, logs, cwd = tmp_path / "tripwire", tmp_path / "calls", tmp_path / "tmp", tmp_path / "cwd"
    wrapper.write_text(TRIPWIRE.format(python=sys.executable))
    wrapper.chmod(0o755)
    logs.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    run = subprocess.run(["bash", str(ABLATION), *map(str, args)], capture_output=True, text=True, timeout=120,
                         cwd=cwd, start_new_session=True,
                         env={**os.environ, "PYTHON": str(wrapper), "CALLS": str(calls), "TMPDIR": str(logs)})
    assert not calls.exists(), f"a run started:\n{calls.read_text()}\n{run.stdout}{run.stderr}"
    assert run.returncode == code and "Traceback" not in run.stderr, run.stdout + run.stderr
    assert not list(logs.iterdir()) and not list(cwd.iterdir()), (list(logs.iterdir()), list(cwd.iterdir()))
    return run


@pytest.mark.parametrize("flag, bad", [("--steps", "abc"), ("--steps", "0"), ("--steps", ""), ("--steps", "-3"),
                                       ("--steps", "1.5"), ("--steps", "1234567890"), ("--batch", "abc"),
                                       ("--batch", "0"), ("--batch", "99999999999999999999")])
def test_the_ablation_checks_steps_and_batch_before_any_run(tmp_path, flag, bad):
    """Once only the JSON's int() saw them, after every run (a ValueError traceback)."""
    run = refused(tmp_path, tmp_path / "a.json", flag, bad)
    assert f"{flag} needs a positive whole number" in run.stderr and f"not '{bad}'" in run.stderr, run.stderr
    assert "usage:" in run.stderr and not run.stdout and not (tmp_path / "a.json").exists()


@pytest.mark.parametrize("flag, bad, said", [("--repeat", "99999999999999999999", "--repeat needs a positive integer"),
                                             ("--repeat", "1234567", "--repeat needs a positive integer"),
                                             ("--warmup", "99999999999999999999", "--warmup needs a whole number"),
                                             ("--workers", "99999999999999999999", "--workers needs a positive whole"),
                                             ("--max-seconds", "99999999999999999999", "--max-seconds needs a whole")])
def test_the_ablation_refuses_a_count_too_long_for_bash(tmp_path, flag, bad, said):
    """20 nines wrap in bash's 64-bit arithmetic: 7.8e18 rounds (or warm-ups), run for ever."""
    run = refused(tmp_path, tmp_path / "a.json", flag, bad)
    assert said in run.stderr and "at most" in run.stderr and "usage:" in run.stderr, run.stderr
    assert not (tmp_path / "a.json").exists()


@pytest.mark.parametrize("bad", ["abc", "-5", "1e3", "2 m"])
def test_the_ablation_refuses_a_run_timeout_timeout_cannot_take(tmp_path, bad, monkeypatch):
    """FASHION_MNIST_ABLATION_TIMEOUT=abc failed every run with timeout's 125, one after another."""
    monkeypatch.setenv("FASHION_MNIST_ABLATION_TIMEOUT", bad)
    run = refused(tmp_path, tmp_path / "a.json")
    assert "FASHION_MNIST_ABLATION_TIMEOUT needs a duration" in run.stderr, run.stderr


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["a.json", "--help"], ["a.json", "--steps", "3", "-h"]])
def test_the_ablation_prints_its_usage_for_help_and_runs_nothing(tmp_path, args):
    """--help once ran the whole default ablation into a file named --help; -h failed in mkdir."""
    run = refused(tmp_path, *args, code=0)
    assert run.stdout.startswith("usage: ") and "OUT_JSON" in run.stdout and not run.stderr


@pytest.mark.parametrize("args", [[], [""]])
def test_the_ablation_without_out_json_prints_its_usage(tmp_path, args):
    run = refused(tmp_path, *args)
    assert "OUT_JSON is missing" in run.stderr and "usage: " in run.stderr and "line " not in run.stderr, run.stderr


@pytest.mark.parametrize("args", [["-out.json"], ["--steps", "3", "a.json"], ["--", "--synthetic"]])
def test_the_ablation_refuses_an_out_json_that_is_an_option(tmp_path, args):
    """An option first (OUT_JSON forgotten) makes no file of that name."""
    run = refused(tmp_path, *args)
    assert f"OUT_JSON comes first, not '{args[0]}'" in run.stderr and "usage: " in run.stderr, run.stderr


def _fifo(tmp_path: Path) -> Path:
    os.mkfifo(tmp_path / "pipe")
    return tmp_path / "pipe"


def _link_to_the_tutorial(tmp_path: Path) -> Path:
    (tmp_path / "link.json").symlink_to(EXAMPLES / "tutorial_style.py")
    return tmp_path / "link.json"


def _file_as_folder(tmp_path: Path) -> Path:
    (tmp_path / "file").write_text("kept\n")
    return tmp_path / "file" / "sub" / "a.json"


BAD_OUTS = {  # name: (OUT_JSON from tmp_path, what the refusal says)
    "a folder": (lambda t: t, "is a folder"),
    "/dev/full": (lambda t: Path("/dev/full"), "is not a regular file (a device or a pipe)"),
    "a pipe": (_fifo, "is not a regular file (a device or a pipe)"),
    "tutorial_style.py": (lambda t: EXAMPLES / "tutorial_style.py", "is also an input"),
    "well_written.py": (lambda t: EXAMPLES / "well_written.py", "is also an input"),
    "common.py": (lambda t: EXAMPLES / "common.py", "is also an input"),
    "a link to tutorial_style.py": (_link_to_the_tutorial, "is also an input"),
    "the ablation script": (lambda t: ABLATION, "is also an input"),
    "a file as its folder": (_file_as_folder, "cannot be written in"),
}


@pytest.mark.parametrize("what", BAD_OUTS)
def test_the_ablation_checks_out_json_before_any_run(tmp_path, what):
    """Once found after every run (a traceback, every run lost) or not at all (the JSON written
    over an example script): now refused first, the file there unchanged."""
    make, said = BAD_OUTS[what]
    out = make(tmp_path)
    before = out.read_bytes() if out.is_file() else None
    run = refused(tmp_path, out, "--steps", 2, "--device", "cpu")
    assert f"OUT_JSON {out} {said}" in run.stderr and "usage: " in run.stderr, run.stderr
    if what == "a file as its folder":
        assert f"cannot be written in {tmp_path / 'file'}: a file, not a folder" in run.stderr
    assert (out.read_bytes() if out.is_file() else None) == before
    assert not (tmp_path / "file" / "sub").exists()


def test_the_ablation_refuses_an_out_json_given_to_the_runs_too(tmp_path):
    given = tmp_path / "given.txt"
    given.write_text("read by the runs\n")
    run = refused(tmp_path, given, "--", "--data-dir", given)
    assert f"is also an input ({given})" in run.stderr and given.read_text() == "read by the runs\n", run.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")
def test_the_ablation_refuses_an_out_json_in_a_folder_it_cannot_write(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        run = refused(tmp_path, locked / "sub" / "a.json")
        assert f"cannot be written in {locked}" in run.stderr, run.stderr
        assert not list(locked.iterdir())
    finally:
        locked.chmod(0o700)


FAST_STAND_IN = """#!/usr/bin/env bash
# PYTHON for the ablation: each run prints a result line at once (after $BEFORE_RESULT, where
# set); the JSON writer (`-`) runs for real.
[[ $1 == - ]] && exec "$REAL_PYTHON" "$@"
eval "${BEFORE_RESULT:-}"
echo "tutorial_style: steps=3 batch=64 hidden=512 device=cpu data=synthetic wall_s=0.5 steps_per_s=6 final_loss=1 \\
mean_loss=1 batch_wait_s=0.1 fix=none"
"""


def fast_stand_in(tmp_path: Path, before_result: str = "") -> dict:
    wrapper = tmp_path / "python"
    wrapper.write_text(FAST_STAND_IN)
    wrapper.chmod(0o755)
    return {"PYTHON": str(wrapper), "REAL_PYTHON": sys.executable, "BEFORE_RESULT": before_result}


def test_the_ablation_replaces_its_json_whole(tmp_path):
    """Written beside and renamed over: the old file's other name keeps the old text (a write in
    place would change it) and nothing is left beside the new one."""
    folder = tmp_path / "out"
    folder.mkdir()
    out, keep = folder / "a.json", tmp_path / "keep.json"
    out.write_text("old\n")
    os.link(out, keep)
    run = run_ablation(out, "--variants", "plain", "--warmup", 0, env=fast_stand_in(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(out.read_text())["variants"]["plain"]["wall_s"] == 0.5
    assert keep.read_text() == "old\n" and [p.name for p in folder.iterdir()] == ["a.json"]


def test_the_ablation_says_so_when_its_json_cannot_be_written_after_all(tmp_path):
    """Its folder checked before the runs, but made a file during them: one line, exit 1, no traceback."""
    folder = tmp_path / "out"
    env = fast_stand_in(tmp_path, f'rm -rf "{folder}" && echo x >"{folder}"')
    run = run_ablation(folder / "a.json", "--variants", "plain", "--warmup", 0, env=env)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stdout + run.stderr
    assert f"fashion_mnist_ablation: could not write {folder / 'a.json'}" in run.stderr
    assert folder.read_text() == "x\n" and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


BLOCKING_STAND_IN = """#!/usr/bin/env bash
# PYTHON for the ablation: a run says it started ("PID SLEEPER" in $STARTED) and waits for a
# TERM, which it notes in $STOPPED.
[[ $1 == - ]] && exec "$REAL_PYTHON" "$@"
trap 'echo stopped >"$STOPPED"; kill "$sleeper" 2>/dev/null; exit 143' TERM
sleep 600 &
sleeper=$!
echo "$$ $sleeper" >"$STARTED.part" && mv "$STARTED.part" "$STARTED"
wait "$sleeper"
"""


def _default_signals():
    for sig in (signal.SIGINT, signal.SIGTERM):  # not ignored as a background job's are: bash could not trap them
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_ablation_and_leaves_no_logs(tmp_path, sig, code):
    """SIGTERM or SIGINT during a run: exit 128 + the signal, the run logs' temp folder removed,
    no JSON (SIGTERM once killed bash, skipping its EXIT trap: logs left in /tmp, the run left
    running; SIGINT waited for the run's end and carried on). SIGTERM: the script stops the run
    itself. SIGINT: the run is ended by the test too, so that a script that holds the signal
    back until the run ends fails at once instead of hanging. Waits on events, not on a time."""
    wrapper, started, stopped, logs = tmp_path / "python", tmp_path / "started", tmp_path / "stopped", tmp_path / "tmp"
    wrapper.write_text(BLOCKING_STAND_IN)
    wrapper.chmod(0o755)
    logs.mkdir()
    env = {**os.environ, "PYTHON": str(wrapper), "REAL_PYTHON": sys.executable, "STARTED": str(started),
           "STOPPED": str(stopped), "TMPDIR": str(logs)}
    out, pids = tmp_path / "a.json", []
    with open(tmp_path / "stdout", "w") as stdout, open(tmp_path / "stderr", "w") as stderr:
        proc = subprocess.Popen(["bash", str(ABLATION), str(out), "--variants", "plain", "--warmup", "0"],
                                stdout=stdout, stderr=stderr, env=env, start_new_session=True,
                                preexec_fn=_default_signals)
    said = lambda: (tmp_path / "stdout").read_text() + (tmp_path / "stderr").read_text()  # noqa: E731
    try:
        deadline = 60 + time.monotonic()  # only a bound on a hung test: the wait ends at the run's start
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), said()
        pids = [int(p) for p in started.read_text().split()]
        assert list(logs.iterdir())  # the run's log folder, while it runs
        proc.send_signal(sig)
        if sig == signal.SIGINT:
            os.kill(pids[0], signal.SIGKILL)  # the run ends (the trap, already pending, still runs)
        assert proc.wait(timeout=60) == code, said()
        assert not list(logs.iterdir()) and not out.exists(), said()
        if sig == signal.SIGTERM:
            assert stopped.exists(), said()  # the script passed the TERM on to the run under way
        with pytest.raises(ProcessLookupError):  # and it was reaped before the script exited
            os.kill(pids[0], 0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_gpu_step_is_marked_with_an_nvtx_range_and_a_cpu_step_is_not(monkeypatch):
    """well_written.py marks each step "step N" on a GPU (the marks hdbench_profile cuts a
    loop without per-step reads at); on the CPU, where PyTorch may lack NVTX, it marks none.
    The range is closed even when the step raises."""
    need_torch()
    import torch

    common = load_common()
    calls = []
    monkeypatch.setattr(torch.cuda.nvtx, "range_push", lambda name: calls.append(("push", name)))
    monkeypatch.setattr(torch.cuda.nvtx, "range_pop", lambda: calls.append(("pop",)))
    with common.step_range(Namespace(type="cuda"), 7):
        calls.append(("work",))
    assert calls == [("push", "step 7"), ("work",), ("pop",)]
    calls.clear()
    with common.step_range(Namespace(type="cpu"), 7):
        pass
    assert calls == []
    with pytest.raises(RuntimeError), common.step_range(Namespace(type="cuda"), 8):
        raise RuntimeError("a failed step")
    assert calls == [("push", "step 8"), ("pop",)]
    assert "common.step_range(device, step)" in (EXAMPLES / "well_written.py").read_text()

