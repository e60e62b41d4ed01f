"""Build the serving packages and the C++ runner in the background at server start, so a class's
first "serve through the packages" only serves (opt-in: RUNTIME_PREBUILD_AOT=1).

    pre = start_from_env("cpu", wait_for=live.wait_warm)   # once per server process; None when off
    pre.status()           # PrebuildStatus: state, the step running, steps done, seconds
    current()              # the process's prebuild, or None

Opt-in because it costs a cold build's CPU (every package of the serving plan and the runner:
minutes on 2 cores, the recording lessons/recordings/aot_timing_*.json says how long) and must
not compete with the GPU's warm-up or with a load test: it waits for `wait_for` (the page layer
passes the live GPU's warm-up) and then for its turn in the AOT line (queue.py), and its
compilers run at a lower priority (nice), so a student's page or measurement comes first. A
student who presses a measure button meanwhile waits in the same line and sees their place.
Everything it builds lands in the ordinary cache (.cache/aot/), where every later measurement
finds it; a build that fails is reported in the status and the button builds it again.
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field

ENV = "RUNTIME_PREBUILD_AOT"
NICE = 10  # added to the niceness of the prebuild's compilers


def enabled() -> bool:
    """True when RUNTIME_PREBUILD_AOT is on (1/true/yes/on); off when unset or anything else
    (env_check.prebuild_setting says so in the sidebar for a value that is neither)."""
    from ..env_check import prebuild_setting
    return prebuild_setting()[0]


@dataclass
class PrebuildStatus:
    """state: "waiting" (for the GPU's warm-up or its turn in the AOT line), "building", "done"
    or "failed"; `step` is the step running, `done` the steps finished as (label, seconds),
    `total` how many steps there are, `took_s` the seconds since it started."""

    state: str = "waiting"
    step: str = ""
    done: list = field(default_factory=list)
    total: int = 0
    took_s: float = 0.0
    errors: list = field(default_factory=list)

    def describe(self) -> str:
        if self.state == "waiting":
            return (f"Prebuilding the serving packages: waiting ({self.step or 'for its turn'}), "
                    f"{self.took_s:.0f} s so far.")
        if self.state == "building":
            return (f"Prebuilding the serving packages: {self.step} (step {len(self.done) + 1} of {self.total}, "
                    f"{self.took_s:.0f} s so far). Serving through them waits until it is done.")
        if self.state == "done":
            built = sum(1 for _, s in self.done if s > 0)
            what = ("all of them built now" if built == len(self.done) else "all of them found in the cache"
                    if built == 0 else f"{built} of {len(self.done)} built now, the rest found in the cache")
            return (f"The serving packages and the C++ runner are prebuilt ({self.took_s:.1f} s on this machine; "
                    f"{what}): serving through them only serves.")
        return (f"The prebuild failed ({'; '.join(self.errors)[:300]}). Serving through the packages "
                "builds what is missing.")


class Prebuild:
    """One background build of `plan`'s packages and the C++ runner for `device`.

    Args:
        wait_for: called first, in the build's thread (e.g. the GPU warm-up's wait): the build
            starts after it returns.
        nice: added to the compilers' niceness.
    """

    def __init__(self, device: str, plan=None, wait_for=None, nice: int = NICE):
        from .serving_plan import SERVING_PLAN
        self.device, self.plan = device, plan or SERVING_PLAN
        self._wait_for, self._nice = wait_for, nice
        self._status = PrebuildStatus(total=len(self.plan.packages()) + 1)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()

    def start(self) -> "Prebuild":
        """Start the build in a daemon thread (once; later calls do nothing). Returns self."""
        with self._lock:
            if self._thread is None:
                self._t0 = time.monotonic()
                self._thread = threading.Thread(target=self._run, name="aot-prebuild", daemon=True)
                self._thread.start()
        return self

    def wait(self, timeout_s: float | None = None) -> PrebuildStatus:
        """Block until the build ends (or `timeout_s` passes); returns the status."""
        t = self._thread
        if t is not None:
            t.join(timeout_s)
        return self.status()

    def status(self) -> PrebuildStatus:
        with self._lock:
            s = self._status
            took = s.took_s if s.state in ("done", "failed") else time.monotonic() - self._t0
            return PrebuildStatus(s.state, s.step, list(s.done), s.total, took, list(s.errors))

    def _set(self, **kw) -> None:
        with self._lock:
            for k, v in kw.items():
                setattr(self._status, k, v)

    def _run(self) -> None:
        from ..cache_lock import cache_in_use
        from .queue import aot_turn
        try:
            if self._wait_for is not None:
                self._set(step="for the GPU's warm-up to finish")
                self._wait_for()
            self._set(step="for its turn in the AOT line")
            with aot_turn(on_wait=self._waiting), cache_in_use():
                self._set(state="building")
                self._build()
        except Exception as e:  # noqa: BLE001 - shown on the page; the button builds what is missing
            with self._lock:
                self._status.errors.append(f"{type(e).__name__}: {e}"[:300])
        with self._lock:
            s = self._status
            s.state, s.step, s.took_s = ("failed" if s.errors else "done"), "", time.monotonic() - self._t0

    def _waiting(self, w) -> None:
        """queue.Waiting -> the step line: where the prebuild stands in the AOT line."""
        from ..engine.fair_lock import ordinal
        self._set(step="another process is using the AOT cache" if w.other_process
                  else f"{ordinal(w.position)} in the AOT line")

    def _build(self) -> None:
        from .cpp_runner import ensure_runner
        from .serving_measure import build_packages

        began = {"t": time.monotonic()}

        def progress(_name: str, label: str) -> None:  # a package is about to be built
            began["t"] = time.monotonic()
            self._set(step=re.sub(r" \(\d+ of \d+\)$", "", label))  # the status counts the steps itself

        def on_done(build: dict) -> None:  # ... and is ready (built, or found in the cache)
            with self._lock:
                self._status.done.append((build["package"], 0.0 if build["cached"] else time.monotonic() - began["t"]))
        built = build_packages(self.plan, self.device, progress=progress, nice=self._nice, on_done=on_done)
        with self._lock:
            self._status.errors += built["errors"]
        self._set(step="g++ builds the C++ runner")
        t0 = time.monotonic()
        try:
            _, build_s = ensure_runner(nice=self._nice)
        except RuntimeError as e:  # no compiler: the serving measurement says so too
            with self._lock:
                self._status.errors.append(str(e).splitlines()[0][:300])
            return
        with self._lock:
            self._status.done.append(("the C++ runner", (time.monotonic() - t0) if build_s else 0.0))


_PROCESS: dict[str, Prebuild] = {}
_PROCESS_LOCK = threading.Lock()


def start_from_env(device: str, wait_for=None) -> Prebuild | None:
    """With RUNTIME_PREBUILD_AOT on, this process's prebuild for `device`, started on the first
    call (every later call, from any session, returns the same one); None when it is off."""
    if not enabled():
        return None
    with _PROCESS_LOCK:
        if device not in _PROCESS:
            _PROCESS[device] = Prebuild(device, wait_for=wait_for).start()
        return _PROCESS[device]


def current(device: str) -> Prebuild | None:
    """This process's prebuild for `device`, or None (off, or not started yet)."""
    with _PROCESS_LOCK:
        return _PROCESS.get(device)
