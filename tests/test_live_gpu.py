"""The live GPU's warm-up and shared measurements (engine/live_gpu.py), on the simulator here and
on the H200 under -m gpu (the first update after warm-up within 1 s)."""
import time

import pytest

from runtime_core.lesson.live_gpu import SEED_POINTS, LiveGPU
from runtime_core.engine.sim.device import SimDevice
from runtime_core.knobs import Knobs


def test_warm_up_runs_in_the_background_and_fills_the_caches():
    made = []
    live = LiveGPU(lambda: made.append(1) or SimDevice())
    assert live.status().state == "cold"
    live.start_warm_up()
    live.start_warm_up()  # idempotent
    status = live.wait_warm(60)
    assert status.state == "ready", status
    assert len(status.done) == status.total_steps == 4 + len(SEED_POINTS)
    assert "warm" in status.describe() and made == [1]
    assert live.results.made == len(SEED_POINTS)  # the seed's default point, in every mode
    seed = SEED_POINTS[0]
    assert live.measure(seed)["driver_calls"] == 1 and live.results.made == len(SEED_POINTS)  # a cache hit


def test_a_failed_warm_up_says_where_and_measurements_still_work():
    class Broken(SimDevice):
        def numel_for_work(self, work_us):
            if work_us == 2.0 and not getattr(self, "_ok", False):
                self._ok = True
                raise RuntimeError("sizing table went away")
            return super().numel_for_work(work_us)
    live = LiveGPU(Broken)
    live.start_warm_up()
    status = live.wait_warm(60)
    assert status.state == "failed" and status.step == "sizing the kernels" and "went away" in status.error
    assert "failed at 'sizing the kernels'" in status.describe()
    assert live.measure(Knobs("streams", 10, 2.0))["wall_us"] > 0


@pytest.mark.gpu
def test_gpu_first_update_after_warm_up_takes_at_most_a_second():
    from runtime_core.engine.cuda.device import CudaDevice
    live = LiveGPU(CudaDevice.shared)
    t0 = time.monotonic()
    live.start_warm_up()
    status = live.wait_warm(300)
    warm_s = time.monotonic() - t0
    assert status.state == "ready", status
    t1 = time.monotonic()
    numbers = live.measure(Knobs("streams", 200, 4.0, extra_tax_us=0.0))  # a setting the warm-up did not measure
    first_update_s = time.monotonic() - t1
    print(f"warm-up {warm_s:.1f} s; first update after it {first_update_s:.2f} s; wall {numbers['wall_us']:.1f} µs")
    assert first_update_s <= 1.0
