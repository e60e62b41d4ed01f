"""Recovery checks shared by the simulator and CUDA tests (issue 16, item 9): a capture that
fails leaves the device usable, and a capture storm under the recapture policy keeps the
device's memory flat (the LRU bounds the pools, not just the graphs)."""
import pytest

from runtime_core.engine.capture import warm_up_and_capture
from runtime_core.engine.modes import make_executor
from runtime_core.engine.measure import measure
from runtime_core.engine.workload import ChainWorkload
from runtime_core.errors import CaptureError
from runtime_core.knobs import Knobs


def check_failed_capture_leaves_device_usable(dev) -> None:
    """A region that synchronizes cannot be captured: CaptureError, then everything still works."""
    wl = ChainWorkload(8, 2.0)
    x = wl.make_input(dev, 1)

    def region():
        wl.launch(dev, x)
        dev.synchronize()  # not allowed inside a capture
    with pytest.raises(CaptureError, match="capture failed"):
        warm_up_and_capture(dev, region, pool=dev.new_pool())
    dev.synchronize()
    y = wl.make_input(dev, 2)  # fill value 2.0: after a chain of 8, every element is 10.0
    g = make_executor("graph", dev, wl)
    g.prepare(y)
    out = g.run(y)
    assert set(dev.read(out)) == {10.0} and g.last.graph_valid
    r = measure(dev, Knobs("graph", 120, 2.0), trace=False)
    assert r.graph_valid and r.wall_us > 0


def check_recapture_storm_keeps_memory_flat(dev, calls: int = 1000, n: int = 20) -> dict:
    """`calls` dynamic-shape calls under recapture (every call a miss: 8 shapes, a cache of 4).
    After a first round the device's reserved memory must not grow. Returns the figures."""
    wl = ChainWorkload(n, 2.0)
    g = make_executor("graph", dev, wl, policy="recapture", cache_size=4)
    for call in range(100):  # the first round: every shape captured, the LRU full and turning
        g.run(wl.make_input(dev, call, dynamic=True))
    dev.synchronize()
    base = peak = dev.reserved_bytes()
    for call in range(100, 100 + calls):
        g.run(wl.make_input(dev, call, dynamic=True))
        peak = max(peak, dev.reserved_bytes())
    dev.synchronize()
    end = dev.reserved_bytes()
    figures = {"captures": g.stats.captures, "base_bytes": base, "peak_bytes": peak, "end_bytes": end}
    print("recapture storm:", figures)
    assert g.stats.captures >= calls  # every call missed the cache of 4: a real storm
    assert peak <= base + max(base // 20, 2 << 20), figures  # flat: within 5% (or 2 MiB) of the base
    return figures
