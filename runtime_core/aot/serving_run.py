"""The serving child's side: load the plan's packages in THIS process and serve the requests.

Run by child.py in a fresh process (a loader crash kills only the child: torch 2.11's
aoti_load_package segfaulted on the H200), with AOTInductor's own input check switched on
(AOTI_RUNTIME_CHECK_INPUTS=1, set by the parent), so a package refuses a size outside what it
was compiled for and says why. `unchecked` runs in a child with that check off, to show what a
package does with a size nobody checked.
"""
from __future__ import annotations

import json
import os

CHECK_ENV = "AOTI_RUNTIME_CHECK_INPUTS"  # read by every AOTInductor package at its first call
THREADS_ENV = "OMP_NUM_THREADS"          # read by torch's and the packages' OpenMP at start


def serving_env(device: str, check: bool | None) -> dict:
    """The environment a serving child or the C++ runner gets on top of ours: AOTInductor's
    input check on (True), removed (False) or left as it is (None), and on a CPU one OpenMP
    thread. One thread, because with two on a 2-core machine that other work shares, a call of
    these tiny packages waited for the second thread about one scheduler time slice, every
    call, in about half the processes (the C++ runner's slow mode; see lessons/page_text.json,
    aot.serving_threads). Every row of the timing table then times the same thing."""
    env = {} if check is None else {CHECK_ENV: "1" if check else None}
    if device == "cpu":
        env[THREADS_ENV] = "1"
    return env


def _sync(device: str):
    import torch
    return torch.cuda.synchronize if device.startswith("cuda") else (lambda: None)


def load_callable(package: str):
    """aoti_load_package, returning a callable that gives the first output as a tensor."""
    import torch
    pkg = torch._inductor.aoti_load_package(package)

    def call(x):
        out = pkg(x)
        return out[0] if isinstance(out, (list, tuple)) else out
    return call


def first_line(e: BaseException) -> str:
    """An exception's first non-empty line (AOTInductor's messages end in a newline)."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return (lines[0] if lines else type(e).__name__)[:300]


def child_serve(spec_path: str, device: str) -> dict:
    """Serve the plan in `spec_path` ({"plan": ..., "packages": {"ranged" | batch: path}}) on
    `device`. Returns {"rows": serve_requests rows, "input_check": the env var's value}."""
    import torch
    from .models import make_mlp, mlp_input
    from .serving_plan import RANGED, ServingPlan, serve_requests
    spec = json.loads(open(spec_path, encoding="utf-8").read())
    plan = ServingPlan.from_dict(spec["plan"])
    fns = {(RANGED if key == "ranged" else int(key)): load_callable(path) for key, path in spec["packages"].items()}
    model = make_mlp().to(device)

    def check(x):
        try:
            fns[RANGED](x)
            return None
        except Exception as e:  # the package's own input check: its message is the result
            return first_line(e)
    with torch.no_grad():
        rows = serve_requests(plan, fns, lambda b: mlp_input(b).to(device), model, device=device,
                              sync=_sync(device), package_check=check)
    return {"rows": rows, "input_check": os.environ.get(CHECK_ENV), "threads": torch.get_num_threads()}


def child_unchecked(package: str, batch: int, device: str) -> dict:
    """Call an exact-shape package at another `batch` with nothing checking the size. Returns
    ran (bool), error (its first line, if it raised), max_abs_err against eager, and
    rows_wrong: how many output rows are off by more than the tolerance."""
    import torch
    from .models import make_mlp, mlp_input
    x = mlp_input(batch).to(device)
    with torch.no_grad():
        want = make_mlp().to(device)(x)
        try:
            got = load_callable(package)(x)
        except Exception as e:
            return {"ran": False, "error": first_line(e), "batch": batch, "input_check": os.environ.get(CHECK_ENV)}
    if got.shape != want.shape:
        return {"ran": True, "batch": batch, "output_shape": list(got.shape), "max_abs_err": None,
                "rows_wrong": None, "input_check": os.environ.get(CHECK_ENV)}
    err = (got - want).abs().amax(dim=1)
    return {"ran": True, "batch": batch, "output_shape": list(got.shape), "max_abs_err": float(err.max()),
            "rows_wrong": int((err > 1e-4).sum()), "input_check": os.environ.get(CHECK_ENV)}
