"""The checkpoint exercise ("Try it"): six steps, each checked against the student's own widget
setting and the numbers it produced.

Exact numbers (720 µs and the like) are checked on the textbook model only. Measured numbers
(live or recorded) are checked as relations, because a real GPU adds a sync round trip, launch
latency and noise: on an H200 eager overhead at the defaults is ~2 ms, not 720 µs.
`view(mode, work_us, dynamic)` must return {"model": metrics, "measured": metrics or None}.
"""
from __future__ import annotations

from dataclasses import dataclass, field

SEED_SETTING = {"n": 120, "tax_us": 6.0}
STEP_SETTINGS = {
    "defaults_graph": {"mode": "graph", "work_us": 2.0, "dynamic": False},
    "eager": {"mode": "eager", "work_us": 2.0, "dynamic": False},
    "streams": {"mode": "streams", "work_us": 2.0, "dynamic": False},
    "work_40": {"mode": "streams", "work_us": 40.0, "dynamic": False},
    "work_back_2": {"mode": "streams", "work_us": 2.0, "dynamic": False},
    "dynamic_graph": {"mode": "graph", "work_us": 2.0, "dynamic": True, "policy": "fallback"},
}
ORDER = list(STEP_SETTINGS)
CATCH_UP_TOLERANCE = 0.05  # step "work_40": streams counts as caught up within this fraction of graph


@dataclass
class StepCheck:
    """done: the step ticks; todo: what to change in the setting; failed: relations that don't hold."""

    done: bool
    todo: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)


def setting_todo(step: str, setting: dict) -> list[str]:
    """What the student must still change for `step` (empty when the setting is right)."""
    want = dict(SEED_SETTING, **STEP_SETTINGS[step])
    todo = []
    for key, value in want.items():
        have = setting.get(key, "fallback" if key == "policy" else None)
        if (abs(have - value) > 1e-9) if isinstance(value, float) else have != value:
            todo.append(f"set {key.replace('_us', ' (µs)').replace('_', ' ')} to {value}")
    return todo


def _rel(a: float, b: float) -> float:
    return abs(a - b) / b if b else float("inf")


def _relations(step: str, view) -> list[tuple[bool, str]]:
    """(holds, statement) pairs for a step, on the model and on measured numbers when present."""
    cur = view(**{k: v for k, v in STEP_SETTINGS[step].items() if k != "policy"})
    m, meas = cur["model"], cur["measured"]
    out: list[tuple[bool, str]] = []
    if step == "defaults_graph":
        out.append((m["driver_calls"] == 1 and m["graph_valid"], "model: one driver call, graph valid"))
        if meas:
            out.append((meas["driver_calls"] == 1 and meas["launch_overhead_us"] < meas["kernel_work_us"],
                        "measured: one driver call, overhead smaller than the kernel work"))
    elif step == "eager":
        out.append((abs(m["launch_overhead_us"] - 720) < 0.5 and abs(m["kernel_work_us"] - 240) < 0.5
                    and m["driver_calls"] == 120, "model: 720 µs of tax against 240 µs of work, 120 calls"))
        if meas:
            out.append((meas["launch_overhead_us"] >= 2 * meas["kernel_work_us"],
                        "measured: overhead is several times the kernel work"))
    elif step == "streams":
        e = view(mode="eager", work_us=2.0, dynamic=False)
        out.append((0 < m["launch_overhead_us"] < e["model"]["launch_overhead_us"],
                    "model: less overhead than eager, but more than zero"))
        if meas and e["measured"]:
            out.append((meas["launch_overhead_us"] < e["measured"]["launch_overhead_us"],
                        "measured: streams overhead below eager's"))
    elif step == "work_40":
        g = view(mode="graph", work_us=40.0, dynamic=False)
        tol = f"{CATCH_UP_TOLERANCE:.0%}"
        out.append((_rel(m["wall_us"], g["model"]["wall_us"]) <= CATCH_UP_TOLERANCE, f"model: streams within {tol} of graph"))
        if meas and g["measured"]:
            out.append((_rel(meas["wall_us"], g["measured"]["wall_us"]) <= CATCH_UP_TOLERANCE,
                        f"measured: streams within {tol} of graph"))
    elif step == "work_back_2":
        g = view(mode="graph", work_us=2.0, dynamic=False)
        out.append((m["wall_us"] >= 2 * g["model"]["wall_us"], "model: streams at least 2x slower than graph"))
        if meas and g["measured"]:
            out.append((meas["wall_us"] >= 1.5 * g["measured"]["wall_us"],
                        "measured: streams well behind graph again"))
    elif step == "dynamic_graph":
        # The textbook (the seed's widget) snaps back to eager; a real runtime, and ours, falls
        # back to asynchronous dispatch: each source is checked against its own fallback.
        e = view(mode="eager", work_us=2.0, dynamic=True)
        s = view(mode="streams", work_us=2.0, dynamic=True)
        out.append((not m["graph_valid"] and abs(m["launch_overhead_us"] - e["model"]["launch_overhead_us"]) < 0.5,
                    "textbook model: graph-capture valid is FALSE and overhead equals eager's"))
        if meas and s["measured"]:
            out.append((not meas["graph_valid"]
                        and meas["launch_overhead_us"] >= 0.8 * s["measured"]["launch_overhead_us"],
                        "measured: graph invalid, overhead back near streams' (the async fallback)"))
    return out


def check_step(step: str, setting: dict, view, done_before: set[str] | None = None) -> StepCheck:
    """Check one step against the current setting. `work_back_2` needs `work_40` done first."""
    if step not in STEP_SETTINGS:
        raise ValueError(f"unknown checkpoint step {step!r}")
    todo = setting_todo(step, setting)
    if step == "work_back_2" and "work_40" not in (done_before or set()):
        todo.insert(0, "first do the step with 40 µs of work")
    if todo:
        return StepCheck(False, todo=todo)
    rel = _relations(step, view)
    return StepCheck(all(ok for ok, _ in rel), failed=[s for ok, s in rel if not ok],
                     seen=[s for ok, s in rel if ok])
