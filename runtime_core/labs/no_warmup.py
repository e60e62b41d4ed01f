"""No-warm-up lab: capturing code whose first call does one-off work.

What this lab shows, on the simulator and on a GPU alike: a module with lazy state. Its first
call initialises that state (zeroes a running counter and runs a one-off set-up kernel of
INIT_KERNEL_US, think of building a lookup table or zeroing a KV cache) and flips a Python flag;
every later call only does the steady-state work (counter += 1). Capture records whatever the
region launches while it is being captured, and the Python flag flips during the capture, not
during any replay:
    with warm-up (engine/capture.py: run the region for real first, then capture), the one-off
        work happens once, outside the graph; each replay adds 1 and costs only the step;
    without warm-up, the capture is the first call: the graph records the zeroing and the set-up
        kernel, so EVERY replay zeroes the counter again (it reads 1 after any number of
        replays: wrong) and pays the set-up kernel again (slower). No error is raised.
This is true on a real GPU exactly as simulated: a graph is the list of launches made during
capture. What this lab does NOT show: on a GPU, lazy initialisation below Python (cuBLAS
handles and workspaces, the caching allocator growing, kernels loaded on first use) can also
make the capture itself fail with an error, or record work of its own; that depends on the
library and cannot be written once against the Device contract. The device's own lazy set-up
is therefore done before anything is captured (dev.launch_busy_kernel once), as the rule says.
"""
from __future__ import annotations

from ..engine.capture import warm_up_and_capture
from ..recordings.shipped import get_device
from .common import header, timed_us

# What the registry and the pages need to list this lab (runtime_core/labs/__init__.py).
LAB = dict(name="no_warmup", summary="capture without warm-up records one-off work that every replay repeats",
           page="pages/4_CUDA_graphs.py", panel="graph_bugs",
           renderer="pages.ui.bug_lab_panels:no_warmup", text_key="capture_without_warmup")

INIT_KERNEL_US = 200.0   # the one-off set-up kernel of the first call
REPLAYS = 5              # replays per variant


class LazyCounter:
    """Counts its calls in a device buffer; the first call initialises the buffer (lazily)."""

    def __init__(self, dev):
        self.dev = dev
        self.count = dev.new_buffer(1)
        self.initialised = False   # a Python flag: read when the region runs, frozen at capture

    def __call__(self) -> None:
        if not self.initialised:
            self.dev.fill(self.count, 0.0)                # one-off: zero the running state
            self.dev.launch_busy_kernel(INIT_KERNEL_US)   # one-off: the expensive set-up
            self.initialised = True
        self.dev.launch_chain_kernel(self.count)          # the step: count += 1


def run(backend: str = "sim") -> dict:
    """The same module captured with and without a warm-up, replayed REPLAYS times each.

    Returns the header keys plus replays, init_kernel_us, and for "with_warmup" and
    "without_warmup": count_after_replays (what the counter reads), expected_count (what it
    should read), replays_counted (how many of the replays it counted: REPLAYS when right),
    replay_us (µs per replay, between syncs, on the device's clock), correct;
    then slowdown (replay_us without / with), signal and verdict.
    """
    dev = get_device(backend)
    dev.launch_busy_kernel(1.0)  # the device's own lazy set-up (a GPU calibrates its sleep
    dev.synchronize()            # kernel on first use): done before any capture
    runs = {"with_warmup": _measure(dev, warm=True), "without_warmup": _measure(dev, warm=False)}
    good, bad = runs["with_warmup"], runs["without_warmup"]
    out = header("no_warmup", dev)
    out.update({"replays": REPLAYS, "init_kernel_us": INIT_KERNEL_US, **runs,
                "slowdown": round(bad["replay_us"] / good["replay_us"], 2)})
    out["signal"] = good["correct"] and not bad["correct"] and bad["replay_us"] > good["replay_us"]
    out["verdict"] = (f"Captured after a warm-up, {REPLAYS} replays counted {good['replays_counted']:g} "
                      f"calls at {good['replay_us']:.1f} µs each. Captured without one, the graph recorded "
                      f"the first call's one-off work: {REPLAYS} replays counted "
                      f"{bad['replays_counted']:g} (each replay zeroed the counter again) and each took "
                      f"{bad['replay_us']:.1f} µs ({out['slowdown']:.1f}×), re-running the "
                      f"{INIT_KERNEL_US:g} µs set-up kernel every time. Nothing raised.")
    return out


def _measure(dev, warm: bool) -> dict:
    module = LazyCounter(dev)
    if warm:
        graph, _ = warm_up_and_capture(dev, module, pool=dev.new_pool())  # the first call runs here
        dev.synchronize()
        start = dev.read(module.count)[0]       # the warm-up counted one call
    else:
        graph = dev.capture(module, pool=dev.new_pool())  # the capture IS the first call
        start = 0.0                             # what the counter should start from after the init
    graph.replay()                              # a first replay (uploads the graph), not timed
    dev.synchronize()
    per_replay = timed_us(dev, lambda: [graph.replay() for _ in range(REPLAYS - 1)]) / (REPLAYS - 1)
    count = dev.read(module.count)[0]
    expected = start + REPLAYS
    return {"count_after_replays": count, "expected_count": expected, "replays_counted": count - start,
            "correct": count == expected,
            "replay_us": round(per_replay, 3)}
