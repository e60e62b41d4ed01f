"""How long the AOT page's buttons take on this machine class, measured: the figures its tooltips
state (`python -m runtime_core aot timing --record lessons/recordings/aot_timing_<machine>.json`).

Each phase starts from an empty AOT cache folder of its own (a temporary RUNTIME_CORE_AOT_CACHE,
removed afterwards), and times the same call the page's button makes:

    serve_cold_s            "serve through the packages" with nothing built (it builds every
                            package of the serving plan and the C++ runner, then serves)
    serve_warm_s            the same press again: every package is in the cache
    prebuild_s              RUNTIME_PREBUILD_AOT=1's build at server start (prebuild.py), alone
    serve_after_prebuild_s  a student's first press once that prebuild is done
    measure_cold_s          "measure" (cold vs warm compile, AOT load) with nothing built
    measure_warm_s          the same press again

The serving measurement of the first press after the prebuild is kept whole (`serving`): its
timing table is checked for contradictions (tables.timing_contradictions) by the tests.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time

from ..cache_paths import ENV as CACHE_ENV


@contextlib.contextmanager
def empty_cache():
    """RUNTIME_CORE_AOT_CACHE pointed at a new empty folder for the block, then removed."""
    folder = tempfile.mkdtemp(prefix="aot-timing-")
    old = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = os.path.join(folder, "aot")
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(CACHE_ENV, None)
        else:
            os.environ[CACHE_ENV] = old
        shutil.rmtree(folder, ignore_errors=True)


def _timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def measure_timing(device: str = "cpu", with_measure: bool = True, say=None) -> dict:
    """Run every phase (see the module docstring); `say(line)` hears each as it starts.
    Returns the figures, the prebuild's steps, the serving result of the first press after
    the prebuild, and where and when it was measured."""
    import torch
    from .coldwarm import check_device, device_name, measure
    from .prebuild import Prebuild
    from .serving_measure import measure_serving
    check_device(device)
    say = say or (lambda line: None)
    out = {"device": device, "device_name": device_name(device), "cores": os.cpu_count(),
           "torch_version": torch.__version__}
    with empty_cache():
        say("serve through the packages, empty cache")
        out["serve_cold_s"], cold = _timed(lambda: measure_serving(device))
        say("serve through the packages again")
        out["serve_warm_s"], _ = _timed(lambda: measure_serving(device))
    with empty_cache():
        say("the prebuild, empty cache")
        out["prebuild_s"], status = _timed(lambda: Prebuild(device).start().wait())
        out["prebuild_steps"] = [{"step": label, "s": s} for label, s in status.done]
        out["prebuild_errors"] = status.errors
        say("serve through the packages after the prebuild")
        out["serve_after_prebuild_s"], out["serving"] = _timed(lambda: measure_serving(device))
    out["errors"] = cold["errors"] + out["serving"]["errors"] + status.errors
    out["measure_cold_s"] = out["measure_warm_s"] = None
    if with_measure:
        with empty_cache():
            say("measure (cold vs warm compile, AOT load), empty cache")
            out["measure_cold_s"], _ = _timed(lambda: measure(device))
            say("measure again")
            out["measure_warm_s"], _ = _timed(lambda: measure(device))
    out["measured_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return out
