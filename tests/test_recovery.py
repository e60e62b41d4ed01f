"""Recovery (issue 16, item 9), on the simulator here and on a real GPU under `-m gpu`."""
import pytest
from recovery_checks import check_failed_capture_leaves_device_usable, check_recapture_storm_keeps_memory_flat

from runtime_core.recordings.shipped import get_device
from runtime_core.engine.sim.device import SimDevice


def test_sim_failed_capture_leaves_the_device_usable():
    check_failed_capture_leaves_device_usable(SimDevice())


def test_sim_recapture_storm_keeps_memory_flat():
    check_recapture_storm_keeps_memory_flat(SimDevice(), calls=300)


@pytest.mark.gpu
def test_gpu_failed_capture_leaves_the_device_usable():
    check_failed_capture_leaves_device_usable(get_device("cuda"))


@pytest.mark.gpu
def test_gpu_recapture_storm_keeps_memory_flat():
    figures = check_recapture_storm_keeps_memory_flat(get_device("cuda"), calls=1000)
    assert figures["peak_bytes"] > 0
