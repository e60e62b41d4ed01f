"""The app's live GPU: warmed up in the background, shared by every session, measured in turn.

The first live measurement on a cold H200 took 8–10 s: the kernel-size table, the calibration
and the profiler worker all start on first use. `LiveGPU.start_warm_up()` does that work in a
background thread as soon as the server has a first visitor, and measures the seed's default
point in each mode, so a class finds the GPU warm:

    live = LiveGPU(CudaDevice.shared)
    live.start_warm_up()                 # idempotent; returns at once
    live.status()                        # WarmStatus: state, the step running, seconds taken
    numbers = live.measure(k, on_wait)   # cached per setting; one measurement at a time

`measure` goes through engine/gpu_queue.py: a shared cache (a setting is measured once for
everyone), then the GPU's line (a place and an estimate for waiters, QueueFull past the cap).
No streamlit here; pages/ui/widget_sources.py shows the waiting and the status. It sits in the
lesson layer, above engine and model, because its warm-up calibrates (model/calibrate.py).
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from ..engine.gpu_queue import GPU_LOCK, SharedResults, measure_in_turn
from ..engine.tracing import prepare_tracing
from ..knobs import SEED_N, SEED_TAX_US, SEED_WORK_US, Knobs


LIVE_ENV = "RUNTIME_LIVE"


def live_enabled() -> bool:
    """False when the instructor switched live measuring off ($RUNTIME_LIVE = 0, false, no or
    off): every page then shows the recorded numbers, even on a GPU machine (a large class).
    A value that is neither on nor off (say "0.0") switches it off too, with a notice
    (env_check.live_setting)."""
    from ..env_check import live_setting
    return live_setting()[0]


@dataclass
class WarmStatus:
    """state: "cold" (not started), "warming", "ready" or "failed"; `step` is the step running
    (or the one that failed), `done` the steps finished, `took_s` the time so far."""

    state: str = "cold"
    step: str = ""
    done: list[str] = field(default_factory=list)
    took_s: float = 0.0
    error: str = ""
    total_steps: int = 0

    def describe(self) -> str:
        if self.state == "warming":
            return (f"Warming up the GPU: {self.step} (step {len(self.done) + 1} of {self.total_steps}, "
                    f"{self.took_s:.0f} s so far)")
        if self.state == "ready":
            return f"The GPU is warm (warm-up took {self.took_s:.1f} s)."
        if self.state == "failed":
            return f"The GPU warm-up failed at '{self.step}': {self.error}. Measurements start cold."
        return "The GPU has not been warmed up yet."


def result_numbers(r) -> dict:
    """A measured Result as the widget's dict: metrics, timeline rows and the profiler's trace."""
    d = r.metrics()
    d["timeline"] = r.timeline_rows()
    d["chrome_trace"] = r.chrome_trace
    d["measured_at"] = time.strftime("%H:%M:%S")
    return d


SEED_POINTS = [Knobs(mode, SEED_N, SEED_WORK_US, tax_us=SEED_TAX_US) for mode in ("graph", "streams", "eager")]


class LiveGPU:
    """One live device for the whole server. Args: device_factory (called once, lazily)."""

    def __init__(self, device_factory, results: SharedResults | None = None):
        self._factory = device_factory
        self._dev = None
        self._floor_us: float | None = None
        self._calibration: dict | None = None
        self._status = WarmStatus()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.results = results if results is not None else SharedResults()

    @property
    def dev(self):
        with self._lock:
            if self._dev is None:
                self._dev = self._factory()
            return self._dev

    # ---- warm-up ------------------------------------------------------------------------------
    def start_warm_up(self) -> None:
        """Start the warm-up in a background thread (once per LiveGPU; later calls do nothing)."""
        with self._lock:
            if self._thread is not None:
                return
            self._status = WarmStatus("warming", "starting", total_steps=4 + len(SEED_POINTS))
            self._thread = threading.Thread(target=self._warm_up, name="gpu-warm-up", daemon=True)
            self._thread.start()

    def wait_warm(self, timeout_s: float | None = None) -> WarmStatus:
        """Block until the warm-up ends (or `timeout_s` passes); returns the status."""
        t = self._thread
        if t is not None:
            t.join(timeout_s)
        return self.status()

    def status(self) -> WarmStatus:
        with self._lock:
            s = self._status
            return WarmStatus(s.state, s.step, list(s.done), s.took_s, s.error, s.total_steps)

    def _warm_up(self) -> None:
        t0 = time.monotonic()
        steps = [("starting the profiler worker", lambda: prepare_tracing(self.dev)),
                 ("measuring the launch tax", self.floor_us),
                 ("sizing the kernels", lambda: self.dev.numel_for_work(SEED_WORK_US)),
                 ("calibrating the model", self.calibration)]
        steps += [(f"measuring the seed's default point ({k.mode.value})", lambda k=k: self.measure(k))
                  for k in SEED_POINTS]
        for name, fn in steps:
            with self._lock:
                self._status.step, self._status.took_s = name, time.monotonic() - t0
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - shown to the class; measurements then start cold
                with self._lock:
                    self._status.state, self._status.error = "failed", f"{type(e).__name__}: {e}"[:300]
                    self._status.took_s = time.monotonic() - t0
                return
            with self._lock:
                self._status.done.append(name)
        with self._lock:
            self._status.state, self._status.step, self._status.took_s = "ready", "", time.monotonic() - t0

    # ---- what pages ask for -------------------------------------------------------------------
    def floor_us(self) -> float:
        """The GPU's own launch tax (the tax knob's floor), measured once, in the GPU's turn."""
        if self._floor_us is None:
            with GPU_LOCK:
                if self._floor_us is None:
                    self._floor_us = self.dev.intrinsic_tax_us()
        return self._floor_us

    def calibration(self) -> dict:
        """The calibrated model's constants for this GPU (measured once, ~2 s)."""
        if self._calibration is None:
            with GPU_LOCK:
                if self._calibration is None:
                    from ..model.calibrate import constants_for
                    self._calibration = constants_for(self.dev).as_dict()
        return self._calibration

    def measure(self, k: Knobs, on_wait=None, limit: int | None = None) -> dict:
        """The numbers of `k` (its extra_tax_us on top of the GPU's own tax): from the shared
        cache, else measured in this caller's turn. Raises gpu_queue.QueueFull past the cap,
        and UsageError for a setting whose measurement would run too long (engine/cost.py)."""
        from ..engine.cost import PAGE_NAMES, check_measure, cost_model
        from ..engine.measure import measure
        k = k.replace(tax_us=0.0)
        dev = self.dev
        check_measure(k, cost_model(dev), names=PAGE_NAMES, what="this setting", device_name=dev.name)
        key = (k.mode.value, k.n, k.work_us, k.extra_tax_us, k.dynamic, k.policy.value, k.graph_input.value)
        return self.results.get_or_make(key, lambda: measure_in_turn(
            lambda: result_numbers(measure(dev, k)), on_wait=on_wait, limit=limit))
