"""`diagnose --record PATH --set external`: the diagnosis checked on public networks nobody here wrote.

The grid is validation/external.py's (torchvision and transformers networks, random weights, fp32
and bf16, batch 1-64: 48 points). Each point is diagnosed exactly as one `diagnose --model
package.module:factory --no-compile` call diagnoses it: profiled in the worker, H timed in its
rounds, predicted, then eager and our graph measured. The loop shares one process (and its
calibrations, as the zoo's recording does), but each point's prediction uses only its own H
rounds. Each point keeps its profile (every GPU operation of the eager step and of the step as it
would be captured), so `snapshot` can recompute every prediction offline after a model change.

It writes after each point (atomically) under a time budget; `--resume` continues a partial file
on the same device. The summary holds accuracy.external_accuracy's three targets.

With `fresh=True` (`--fresh-processes`) each point is instead one child `diagnose --model NAME
--no-compile --json --timeline` process, exactly as a user runs it (`--timeline` only makes the
answer keep its profile): its own imports, its own live calibration (kept with the point, under
"machine"), its own H rounds. The host drifts between a
fast and a slow state over tens of seconds, and in one long process a point's H rounds and its
eager timing can fall in different states; a fresh process measures both within seconds. The
recording says which protocol made it (meta.protocol), and `snapshot` recomputes a fresh point's
prediction from its own calibration. Fresh recordings made before 2026-12-02 (FRESH_NO_PROFILE)
kept no profile: recomputed, their predictions lose the memset nodes that only the profile lists,
and they cannot be resumed (a file would mix points with and without profiles).

A fresh process is also what the grid must be judged on: in one long process bf16 GPT-2 replayed
its graph 12-15% faster than in a fresh one on the same machine (tests/gpu_runs/process_mode.py).
A fresh point takes 70-105 s on an H200, so with `gpus=N` (`--gpus N`) N children run at once,
each on its own GPU (CUDA_VISIBLE_DEVICES) and its own share of this process's CPU cores
(RUNTIME_CORE_CPUS: its timing core is the middle one of its share, engine/cores.py);
meta.parallel says how many ran at once.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from ..cli_args import named_as_typed
from ..engine.cores import CPUS_ENV, cpus_arg
from ..errors import UsageError
from ..recordings import store
from . import host_floor
from .accuracy import external_accuracy
from .diagnosis import diagnose, gpu_idle_share, point_h, predicted_fields, prepare
from .machine import node_spread_us, recording_machine, sample_of
from .spec import Spec

GRID_MODULE = "validation.external"
GRIDS = {"external": GRID_MODULE,          # the fixed grid the targets are set on
         "heldout": "validation.heldout"}  # public networks outside it, looked at by no rule (fresh processes)
POINT_S = 55.0  # an H200 point's worst case (BERT at batch 64, fp32: 15 s, 15 s of H rounds, 15-17 s of steps), for the budget check
CALIBRATE_EVERY = 16
IN_PROCESS = "one process: the points in turn, calibrated every 16 points"
FRESH = ("one fresh `diagnose --model NAME --no-compile --json --timeline` process per point, "
         "each keeping its profile")
FRESH_NO_PROFILE = "one fresh `diagnose --model NAME --no-compile --json` process per point"  # before 2026-12-02
FRESH_PROTOCOLS = (FRESH, FRESH_NO_PROFILE)
FRESH_POINT_S = 120.0     # an H200 fresh process's worst case: 66 s seen before the floor (imports, calibration, the point), and 30 s of its windows
FRESH_TIMEOUT_S = 300.0   # a child past this is killed; the file keeps the points before it
REPO_ROOT = Path(__file__).resolve().parents[2]


def grid_points(grid: str = "external") -> list[dict]:
    """A fixed grid of public networks (GRIDS; importing its module needs none of its libraries yet)."""
    module = GRIDS[grid]
    try:
        return importlib.import_module(module).grid()
    except ModuleNotFoundError as e:
        raise UsageError(f"the {grid} grid needs {module} on the Python path (run from the "
                         f"repository root): {e}") from None


def key(p: dict) -> tuple:
    return (p["model"], p["dtype"], p["batch"], p.get("seq"))


def open_target(runner, path: Path, resume: bool, force: bool, protocol: str = IN_PROCESS,
                grid: str = "external") -> dict:
    if resume and path.exists():
        store.check_target(path, force=True)
        with named_as_typed("--record", str(path)):  # named as typed, not by its file name alone
            doc = store.load(path, kind="diagnose").data
        m = doc["meta"]
        if m.get("set") != "external":
            raise UsageError(f"{path.name} is not an external-grid recording; record to a new file")
        if m.get("grid", "external") != grid:
            raise UsageError(f"{path.name} records the {m.get('grid', 'external')} grid, not the {grid} one: "
                             f"resume it with --set {m.get('grid', 'external')}, or record to a new file")
        if (m["backend"], m["device_name"]) != (runner.backend, runner.device_name):
            raise UsageError(f"cannot resume a recording of {m['device_name']} on {runner.device_name}")
        if m.get("protocol") == FRESH_NO_PROFILE:
            raise UsageError(f"{path.name} was recorded before fresh points kept their profiles (their memset "
                             "nodes are lost); record the grid to a new file")
        now = host_floor.timing_fields(bool(runner.dev.deterministic))
        if any(p.get("timing") != now for p in doc["points"]):
            raise UsageError(f"{path.name} was timed by another rule than this code's ({host_floor.describe(now)}); "
                             "a resumed file would mix two timing rules: record the grid to a new file")
        if m.get("protocol", IN_PROCESS) != protocol:
            raise UsageError(f"{path.name} was recorded as {m.get('protocol', IN_PROCESS)!r}: resume it the same way "
                             f"({'with' if m.get('protocol') == FRESH else 'without'} --fresh-processes)")
        return doc
    store.check_target(path, force=force or resume)
    from ..engine.measure import _torch_version
    meta = store.new_meta("diagnose", runner.device_name, _torch_version(), runner.backend, complete=False,
                          set="external", calibration_passes=[], models={}, measured_with="--no-compile",
                          node_spread_us=node_spread_us(runner.device_name, runner.dev.deterministic),
                          protocol=protocol, grid=grid)
    return {"meta": meta, "points": []}


@dataclass(frozen=True)
class Slot:
    """Where one of several fresh children runs at once: its GPU and its CPU cores."""
    gpu: int
    cores: tuple


def slots(n: int, cores=None) -> list[Slot]:
    """`n` slots: GPU i and the i-th of n equal, disjoint shares of `cores` (default: the cores this
    process may use), so that no two children time their host on one core."""
    cores = sorted(cores if cores is not None else os.sched_getaffinity(0))
    if n < 1 or n > len(cores):
        raise UsageError(f"--gpus {n}: between 1 and the {len(cores)} CPU cores this process may use "
                         "(each child needs cores of its own)")
    share = len(cores) // n
    return [Slot(i, tuple(cores[i * share:(i + 1) * share])) for i in range(n)]


def fresh_point(runner, g: dict, slot: Slot | None = None) -> dict:
    """Point `g` diagnosed by a child `python -m runtime_core diagnose ... --json`, as a user runs it
    (`slot`: on that GPU and those cores only). A failing child is a RuntimeError naming the point
    and the child's reason (the caller's file keeps the points before it; --resume retries this one)."""
    from ..child_process import run
    label = f"{g['model']} {g['dtype']} batch {g['batch']}"
    argv = [sys.executable, "-m", "runtime_core", "diagnose", "--model", g["model"], "--batch", g["batch"],
            "--dtype", g["dtype"], "--backend", runner.backend, "--no-compile", "--json", "--timeline"]
    if g.get("seq") is not None:
        argv += ["--seq", g["seq"]]
    env = None if slot is None else {"CUDA_VISIBLE_DEVICES": str(slot.gpu), CPUS_ENV: cpus_arg(slot.cores)}
    done = run(f"diagnose process for {label}", argv, timeout_s=FRESH_TIMEOUT_S, env=env, cwd=REPO_ROOT)
    if done.error:
        raise RuntimeError(done.error)
    out = done.stdout
    start = 0 if out.startswith("{") else out.rfind("\n{") + 1   # the CLI's JSON, after any library's print
    try:
        p = json.loads(out[start:])
    except ValueError:
        raise RuntimeError(f"diagnose process for {label} printed no JSON answer: {out[-200:]!r}") from None
    p.pop("timelines", None)
    p["process_wall_s"] = round(done.wall_s, 1)
    check_recomputable(p, label)
    return p


def check_recomputable(p: dict, label: str, rel: float = 1e-3) -> None:
    """Raise unless `p`'s prediction, recomputed from what the point keeps (as `snapshot` will
    recompute it), is the one its own process made: a point that lost an input (its profile's
    memset nodes, say) would otherwise be stored with a prediction nobody made."""
    if p.get("capturable") is False or not p.get("predicted_graph_us"):
        return
    q = dict(p)
    _repredict(q, point_machine(q))
    if abs(q["predicted_graph_us"] / p["predicted_graph_us"] - 1) > rel:
        raise RuntimeError(f"diagnose process for {label}: its graph step was predicted at "
                           f"{p['predicted_graph_us']} µs, but recomputed from what the point keeps at "
                           f"{q['predicted_graph_us']} µs")


def is_fresh(doc: dict) -> bool:
    """Whether `doc` was recorded one fresh `diagnose` process per point (either recorder's)."""
    return doc["meta"].get("protocol") in FRESH_PROTOCOLS


def fresh_checks(doc: dict) -> list[dict]:
    """The points of `doc` measured as fresh `diagnose` processes: every point of a recording made
    with --fresh-processes (meta.protocol), else the re-checks merged beside a one-process grid."""
    if is_fresh(doc):
        return doc["points"]
    return (doc.get("rechecks") or {}).get("points") or []


def point_machine(p: dict):
    """The constants a fresh point's own process calibrated (its "machine"), as a Machine."""
    m = p["machine"]
    return recording_machine([dict(m["constants"], tax_us=m["tax_us"])], p, m.get("node_spread_us", 0.0))


def run_external(runner, path: Path, budget_s: float = 420.0, resume: bool = False, force: bool = False,
                 only: list[dict] | None = None, fresh: bool = False, gpus: int = 1, grid: str = "external") -> dict:
    """Record (or continue) the external grid at `path` (`grid`: "heldout" for the held-out
    networks, validation/heldout.py, fresh processes only); returns the document. `fresh`: each
    point in its own `diagnose` process (fresh_point) instead of this one; `gpus`: that many of
    those processes at once (fresh only; see the module's docstring)."""
    t0 = time.monotonic()
    path = Path(path)
    if gpus != 1 and not fresh:
        raise UsageError("--gpus runs several fresh processes at once: add --fresh-processes")
    if grid != "external" and not fresh:
        raise UsageError(f"--set {grid} is diagnosed as users run it, one fresh process a point: add --fresh-processes")
    parallel = slots(gpus) if gpus != 1 else None
    have = runner.gpus() if parallel else None
    if have is not None and have < gpus:
        raise UsageError(f"--gpus {gpus}: this machine has {have} GPU(s)")
    doc = open_target(runner, path, resume, force, FRESH if fresh else IN_PROCESS, grid)
    points = only if only is not None else grid_points(grid)
    done = {key(p) for p in doc["points"]}
    todo = [g for g in points if key(g) not in done]
    for g in points:
        doc["meta"]["models"].setdefault(g["model"], _about(runner, g["model"], g.get("seq")))
    doc["meta"]["complete"] = False
    calibrations = doc["meta"]["calibration_passes"]
    if not fresh:
        calibrations.append(sample_of(runner.machine("live")))
    point_s = (FRESH_POINT_S if fresh else POINT_S) * runner.cost_scale
    if parallel:
        doc["meta"]["parallel"] = max(gpus, int(doc["meta"].get("parallel") or 1))
        return _run_parallel(runner, path, doc, points, todo, parallel, budget_s - point_s, t0)
    for i, g in enumerate(todo, start=1):
        spent = time.monotonic() - t0
        if spent + point_s > budget_s:
            print(f"diagnose record: budget of {budget_s:.0f} s reached after {spent:.0f} s; {len(todo) - i + 1} "
                  "points left: run again with --resume", file=sys.stderr)
            return _write(path, doc, complete=False)
        t_point = time.monotonic()
        if fresh:
            p = fresh_point(runner, g)
        else:
            if i > 1 and (i - 1) % CALIBRATE_EVERY == 0:
                calibrations.append(sample_of(runner.machine("live")))
            machine = recording_machine(calibrations, doc["meta"], doc["meta"]["node_spread_us"])
            spec = prepare(runner, Spec(g["model"], g["batch"], g.get("seq"), g["dtype"]))
            p = diagnose(runner, spec, machine, ("eager", "our_graph"))
            p.pop("timelines", None)
        doc["points"].append(p)
        _write(path, doc, complete=False)
        print(f"diagnose record: [{i}/{len(todo)}] {g['model']} {g['dtype']} batch {g['batch']}: predicted {p['predicted_graph_speedup']} "
              f"{p.get('predicted_speedup_band')}, measured {p['measured_graph_speedup']} in "
              f"{time.monotonic() - t_point:.1f} s", file=sys.stderr, flush=True)
    return _write(path, doc, complete=len(doc["points"]) >= len(points))


def _run_parallel(runner, path: Path, doc: dict, points: list[dict], todo: list[dict], where: list[Slot],
                  start_by_s: float, t0: float) -> dict:
    """The fresh points of `todo`, len(`where`) children at a time, each in a slot of its own; a
    child starts only while `start_by_s` seconds have not passed. The file is written after every
    point, in the grid's order; a failing child stops new starts, the others finish, and its error
    is raised (the file keeps every point that finished)."""
    order = {key(g): i for i, g in enumerate(points)}
    queue, free, running, error = list(todo), list(where), {}, None
    with ThreadPoolExecutor(len(where)) as pool:
        while queue or running:
            while queue and free and error is None and time.monotonic() - t0 <= start_by_s:
                g, slot = queue.pop(0), free.pop(0)
                running[pool.submit(fresh_point, runner, g, slot)] = (g, slot, time.monotonic())
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for f in finished:
                g, slot, started = running.pop(f)
                free.append(slot)
                try:
                    p = f.result()
                except RuntimeError as e:
                    error = error or e
                    continue
                doc["points"].append(p)
                doc["points"].sort(key=lambda q: order.get(key(q), len(order)))
                _write(path, doc, complete=False)
                print(f"diagnose record: [{len(doc['points'])}/{len(points)}] {g['model']} {g['dtype']} batch "
                      f"{g['batch']} on GPU {slot.gpu}: predicted {p['predicted_graph_speedup']} "
                      f"{p.get('predicted_speedup_band')}, measured {p['measured_graph_speedup']} in "
                      f"{time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    if error is not None:
        _write(path, doc, complete=False)
        raise error
    if queue:
        print(f"diagnose record: budget reached after {time.monotonic() - t0:.0f} s; {len(queue)} points left: "
              "run again with --resume", file=sys.stderr)
        return _write(path, doc, complete=False)
    return _write(path, doc, complete=len(doc["points"]) >= len(points))


def snapshot(doc: dict) -> dict:
    """Every prediction recomputed from the points' own profiles and H rounds (H as the code takes
    it from them now, by each point's timing rule: diagnosis.point_h), with the recording's mean constants (one process), or
    each point's own process's constants (fresh processes, and the re-checks merged beside a grid)."""
    fresh = is_fresh(doc)
    samples = ([dict(p["machine"]["constants"], tax_us=p["machine"]["tax_us"]) for p in doc["points"]] if fresh
               else doc["meta"]["calibration_passes"])
    machine = recording_machine(samples, doc["meta"], doc["meta"].get("node_spread_us", 0.0))  # fresh: shown only
    doc["meta"]["calibration"] = machine.consts.as_dict()
    doc["meta"]["intrinsic_tax_us"] = round(machine.tax_us, 3)
    for p in doc["points"]:
        _repredict(p, point_machine(p) if fresh else machine)
    checks = doc.get("rechecks") or {}
    for q in checks.get("points") or []:  # each re-check with its own process's constants
        _repredict(q, point_machine(q))
    if checks.get("points"):
        checks["accuracy"] = external_accuracy(checks["points"])
    doc["summary"] = {"accuracy": external_accuracy(doc["points"])}
    return doc


def _repredict(p: dict, machine) -> None:
    """`p`'s prediction made again by the code as it is now, from its own counts and H rounds."""
    if p.get("host_rounds_us"):  # one pass per point: its H is its rounds', by its own rule (diagnosis.point_h)
        p["host_dispatch_us"] = point_h(p)
    p.update(predicted_fields(p, machine))
    p["gpu_idle_share"] = gpu_idle_share(p)


def _write(path: Path, doc: dict, complete: bool) -> dict:
    doc["meta"]["complete"] = complete
    if doc["points"]:
        store.write_own(path, snapshot(doc))
    return doc


def _about(runner, model: str, seq) -> dict:
    entry = runner.resolve(model)
    fn = entry.factory() if getattr(entry, "user", False) else None
    doc = (fn.__doc__ if fn is not None else getattr(entry, "about", "")) or ""
    line = (doc.strip().splitlines() or [model])[0]
    return {"about": line[:200] or model, "shape_name": "tokens" if seq else "", "default_shape": seq}
