"""Checks of the graph executor's shape-miss policies, shared by the simulator and CUDA tests."""
from runtime_core.engine.modes import make_executor
from runtime_core.engine.workload import ChainWorkload


def check_recapture_once_per_shape_within_cache_bound(dev, n: int) -> None:
    """Captures equal distinct shapes when the cache holds them all; a small cache evicts."""
    wl = ChainWorkload(n, 2.0)
    g = make_executor("graph", dev, wl, policy="recapture", cache_size=16)
    g.prepare(wl.make_input(dev, 0))
    for call in range(1, 25):
        g.run(wl.make_input(dev, call, dynamic=True))
    assert g.stats.captures == len(g.stats.shapes_seen)  # 1 static + 8 dynamic shapes
    assert g.stats.pool_bytes >= 0
    small = make_executor("graph", dev, wl, policy="recapture", cache_size=2)
    for call in range(1, 25):
        small.run(wl.make_input(dev, call, dynamic=True))
    assert len(small.cache) <= 2 and small.stats.evictions > 0


def check_bucket_padding_keeps_output_correct(dev, n: int, calls: int) -> None:
    """Padded inputs replay a bucket's graph and still produce x + N."""
    wl = ChainWorkload(n, 2.0)
    g = make_executor("graph", dev, wl, policy="bucket")
    for call in range(1, calls):
        x = wl.make_input(dev, call, dynamic=True)
        want = [v + n for v in dev.read(x)]
        assert dev.read(g.run(x)) == want
    assert g.last.graph_valid and g.stats.wasted_work_pct > 0
