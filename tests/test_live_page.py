"""The widget's live path, driven on a stand-in device (the simulator behind the LiveGPU the page
uses): the LIVE badge and numbers, the warm-up, and the notice when the GPU's line is full."""
import threading

import pytest
from conftest import open_page

from runtime_core.engine.gpu_queue import GPU_LOCK
from runtime_core.lesson.live_gpu import LiveGPU
from runtime_core.engine.sim.device import SimDevice

PAGE = "pages/6_Launch_overhead_killer.py"


@pytest.fixture
def stand_in_gpu(monkeypatch):
    from pages.ui import common, widget_sources
    live = LiveGPU(SimDevice)
    monkeypatch.setattr(common, "_gpu_present", lambda: True)
    monkeypatch.setattr(widget_sources, "live_gpu", lambda: live)
    monkeypatch.setattr(widget_sources, "live_device", lambda: live.dev)
    return live


def test_live_numbers_carry_the_live_badge_and_warm_up_runs(stand_in_gpu):
    at = open_page(PAGE)
    assert stand_in_gpu.wait_warm(60).state == "ready"
    assert any("LIVE" in c.value and "measured at" in c.value for c in at.main.caption)
    assert [m.value for m in at.metric if m.label.startswith("driver calls")] == ["1"]
    before = stand_in_gpu.results.made
    at.radio(key="w_mode").set_value("eager").run()
    assert not at.exception and stand_in_gpu.results.made == before  # the warm-up measured the seed's eager


def test_a_full_line_shows_the_recording_with_a_notice(stand_in_gpu, monkeypatch):
    monkeypatch.setenv("RUNTIME_QUEUE_CAP", "1")
    stand_in_gpu.start_warm_up()
    assert stand_in_gpu.wait_warm(60).state == "ready"  # as in class: the server warmed up first
    release, held = threading.Event(), threading.Event()

    def hold_the_gpu():
        with GPU_LOCK:
            held.set()
            release.wait(30)
    t = threading.Thread(target=hold_the_gpu)
    t.start()
    assert held.wait(5)
    try:
        at = open_page(PAGE, {"n": "37"})  # a setting nobody has measured
        notes = " ".join(i.value for i in at.info)
        assert "The GPU is busy" in notes and "Showing the recorded numbers" in notes
        assert any("RECORDED" in c.value for c in at.main.caption)
    finally:
        release.set()
        t.join(10)


def test_the_landing_page_says_the_gpu_is_warming_then_warm(stand_in_gpu):
    at = open_page()
    texts = " ".join(x.value for x in list(at.info) + list(at.success))
    assert "Warming up the GPU" in texts or "The GPU is warm" in texts
    stand_in_gpu.wait_warm(60)
    at.run()
    assert any("The GPU is warm" in s.value for s in at.success)


def test_the_instructor_switch_forces_recorded_numbers(stand_in_gpu, monkeypatch):
    monkeypatch.setenv("RUNTIME_LIVE", "0")
    at = open_page(PAGE)
    assert any("RECORDED" in c.value for c in at.main.caption)
    assert not any("LIVE" in c.value for c in at.main.caption)
    assert any("RUNTIME_LIVE=0" in c.value for c in at.sidebar.caption)
    assert stand_in_gpu.status().state == "cold"  # nothing was warmed or measured
