"""Fusion lab: fusion cuts launches, but the launches that remain still pay the tax.

A chain of N kernels of `work_us` each is compared with a "fused" chain of N/fuse kernels of
fuse·work_us each: the same total GPU work in fewer launches. Each runs in streams mode
(PyTorch's normal async eager) and in graph mode (one replay). While a fused kernel is still
shorter than one launch's tax, the fused streams step stays launch-bound: its wall is about
(N/fuse)·tax, not the work. Graph replay removes the tax whatever the kernel count.

Every point is measured with measure() on the device (sim or CUDA) and predicted by the model
with the device's constants, so the page can show the model beside the measurement.
"""
from __future__ import annotations

from ..model.calibrate import constants_for
from ..engine.cost import check_many, cost_model
from ..recordings.shipped import get_device
from ..engine.measure import measure
from ..model.formulas import predict
from ..errors import UsageError
from ..knobs import Knobs
from .common import header

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="fusion", summary="fused kernels in streams mode vs graph replay",
           page="pages/8_Failure_modes.py", panel="failure_modes",
           renderer="pages.ui.lab_panels:fusion", text_key="compiler_fixes_launches")

DEFAULT_N = 120        # the seed's chain length
DEFAULT_WORK_US = 1.0  # a tiny kernel (the seed: "≈1–2 µs")
DEFAULT_FUSE = 4       # kernels merged into one


def run(backend: str = "sim", n: int = DEFAULT_N, work_us: float = DEFAULT_WORK_US,
        fuse: int = DEFAULT_FUSE) -> dict:
    """Unfused vs fused, streams vs graph: wall, launch overhead and driver calls per step.

    Args:
        backend: "auto", "cuda" or "sim".
        n: kernels in the unfused chain (a multiple of `fuse`).
        work_us: GPU work per unfused kernel, µs.
        fuse: how many kernels one fused kernel replaces (2..n).
    Returns the header keys plus `rows` (one per variant × mode: measured wall_us,
    launch_overhead_us, kernel_time_us, driver_calls, and model_wall_us), the four walls as
    "<variant>_<mode>_wall_us", tax_us, signal and verdict.
    """
    if isinstance(fuse, bool) or not isinstance(fuse, int) or fuse < 2:
        raise UsageError(f"fuse must be a whole number of at least 2, got {fuse!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < fuse or n % fuse:
        raise UsageError(f"n must be a whole multiple of fuse={fuse}, got {n!r}")
    variants = {"unfused": (n, work_us), "fused": (n // fuse, work_us * fuse)}
    dev = get_device(backend)
    # Four measurements: priced before any runs, refused (UsageError) past the request limit.
    check_many("the fusion lab", [Knobs(mode, k, w) for k, w in variants.values() for mode in ("streams", "graph")],
               cost_model(dev), setting=f"n={n}, work_us={work_us:g}, fuse={fuse}", lower="n or work_us")
    consts = constants_for(dev)
    rows = []
    for variant, (k, w) in variants.items():
        for mode in ("streams", "graph"):
            res = measure(dev, Knobs(mode, k, w))  # traced: the driver calls are counted, not assumed
            model = predict(Knobs(mode, k, w, tax_us=res.tax_us), consts)
            rows.append({"variant": variant, "mode": mode, "n": k, "work_us": w,
                         "wall_us": round(res.wall_us, 3),
                         "launch_overhead_us": round(res.launch_overhead_us, 3),
                         "kernel_time_us": round(res.kernel_work_us, 3),
                         "driver_calls": res.driver_calls, "tax_us": round(res.tax_us, 3),
                         "model_wall_us": round(model.wall_us, 3)})
    out = header("fusion", dev)
    out.update({"n": n, "work_us": work_us, "fuse": fuse, "fused_n": n // fuse,
                "fused_work_us": work_us * fuse, "tax_us": rows[0]["tax_us"], "rows": rows})
    walls = {f"{r['variant']}_{r['mode']}": r for r in rows}
    for key, r in walls.items():
        out[f"{key}_wall_us"] = r["wall_us"]
    fs, fg = walls["fused_streams"], walls["fused_graph"]
    # The symptom: after fusion the streams step still spends far more on launching than the
    # graph step does (which pays one replay's fixed cost), because each remaining launch costs
    # more than its kernel's work.
    out["signal"] = fs["launch_overhead_us"] > 2 * max(fg["launch_overhead_us"], 1.0)
    out["verdict"] = verdict(out)
    return out


def verdict(r: dict) -> str:
    """The verdict sentence of a fusion result `r`, from its stored rows (a recorded result's own
    verdict may predate this wording: show this one). The step's overhead is its wall time less
    its kernel work, which is less than the launches' whole tax where kernels hid part of it."""
    walls = {f"{x['variant']}_{x['mode']}": x for x in r["rows"]}
    fs, fg = walls["fused_streams"], walls["fused_graph"]
    k = r["fused_n"]
    tax_total = k * r["tax_us"]
    hidden = max(0.0, tax_total - fs["launch_overhead_us"])
    return (f"Fusing {r['n']} kernels into {k} cut the streams step from "
            f"{walls['unfused_streams']['wall_us']:.0f} to {fs['wall_us']:.0f} µs, but it is still "
            f"launch-bound: {k} launches × {r['tax_us']:.1f} µs = {tax_total:.0f} µs of tax against "
            f"{fs['kernel_time_us']:.0f} µs of kernel work"
            + (f" (as the device ran it; {k} × {r['fused_work_us']:g} µs was asked)"
               if round(fs["kernel_time_us"]) != round(k * r["fused_work_us"]) else "")
            + f". The step took {fs['wall_us']:.0f} µs, so "
            f"{fs['launch_overhead_us']:.0f} µs of it is overhead"
            + (f" (the other {hidden:.0f} µs of tax ran while kernels were busy)" if hidden >= 1 else "")
            + f". Graph replay: {fg['wall_us']:.0f} µs, {fg['launch_overhead_us']:.0f} µs of it overhead.")
