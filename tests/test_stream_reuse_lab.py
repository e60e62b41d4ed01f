"""The stream_reuse lab: a block reused across streams without record_stream is a silent race
(the simulator's detector names it, the side stream reads the new owner's value); with
record_stream the free waits for the side stream's event."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_core.allocator import CachingPool
from runtime_core.allocator.backends import for_device
from runtime_core.labs import run_lab, stream_reuse

ROOT = Path(__file__).resolve().parents[1]
HEADER = {"lab", "backend", "source", "device_name"}


@pytest.fixture(scope="module")
def sim():
    return run_lab("stream_reuse", "sim")


def test_output_has_exactly_the_two_runs_the_header_signal_and_verdict(sim):
    assert set(sim) == HEADER | {"without_record_stream", "with_record_stream", "signal", "verdict"}
    json.dumps(sim)


def test_without_record_stream_the_block_is_reused_at_once_and_the_side_stream_reads_garbage(sim):
    r = sim["without_record_stream"]
    assert r["race_detected"] is True and r["races"] and "not ordered after" in r["races"][0]
    assert r["block_state_at_free"] == "free" and not r["waited_for_event"]
    assert r["same_address_reused"]
    assert r["side_stream_read"] == stream_reuse.NEW_OWNER_VALUE != r["expected_value"]
    assert r["wrong_value"]


def test_with_record_stream_the_free_waits_for_the_event(sim):
    r = sim["with_record_stream"]
    assert r["race_detected"] is False and r["races"] == []
    assert r["block_state_at_free"] == "awaiting_event" and r["waited_for_event"]
    assert not r["same_address_reused"]                 # the new tensor got another block at once
    assert r["original_address_reused_after_event"]     # ...and the old one came back later
    assert r["side_stream_read"] == stream_reuse.ORIGINAL_VALUE and not r["wrong_value"]
    assert sim["signal"] is True


def test_same_stream_reuse_needs_no_event_because_the_stream_runs_in_order():
    """PyTorch's rule, in our pool: a block used only on its own stream is reusable at once."""
    from runtime_core.engine.sim.device import SimDevice
    dev = SimDevice()
    pool = CachingPool(for_device(dev, 64 << 20))
    a = pool.malloc(4096)
    dev.launch_busy_kernel(5000.0)                       # the stream is busy for 5 ms
    dev.fill(pool.backend.device_buffer(a), 1.0)         # ...and then writes the block
    pool.free(a)
    assert a.state == "free"                             # no event: same stream
    b = pool.malloc(4096)
    assert b.address == a.address                        # reused at once
    dev.fill(pool.backend.device_buffer(b), 2.0)         # ordered after the first fill: no race
    assert dev.read(pool.backend.device_buffer(b))[0] == 2.0


def test_the_lab_fails_when_record_stream_does_nothing(monkeypatch):
    """If record_stream were a no-op, the "with" run would race too, and the lab would say so."""
    monkeypatch.setattr(CachingPool, "record_stream", lambda self, block, stream: None)
    r = stream_reuse.run("sim")
    assert r["with_record_stream"]["race_detected"] is True
    assert r["with_record_stream"]["wrong_value"]
    assert r["signal"] is False


def test_races_seen_collects_then_restores_raising():
    from runtime_core.engine.race_detector import RaceError
    from runtime_core.engine.sim.device import SimDevice
    dev = SimDevice()
    a, b = dev.new_buffer(10), dev.new_buffer(10)
    side = dev.new_stream()

    def unordered():
        dev.copy(a, b)
        with dev.use_stream(side):
            dev.launch_chain_kernel(a)
    found = dev.races_seen(unordered)
    assert found and all("not ordered after 'memcpy DtoD'" in m for m in found)
    assert dev.races.raise_on_race is True
    with pytest.raises(RaceError):  # outside races_seen the detector raises again
        dev.copy(b, a)              # default stream reads a, which the side stream wrote unordered


def test_cli_prints_the_labs_json():
    proc = subprocess.run([sys.executable, "-m", "runtime_core", "lab", "stream_reuse", "--backend", "sim",
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["without_record_stream"]["race_detected"] is True
    assert out["with_record_stream"]["race_detected"] is False


@pytest.mark.gpu
def test_on_a_gpu_the_race_is_silent_but_the_value_is_wrong():
    r = run_lab("stream_reuse", "cuda")
    bad, good = r["without_record_stream"], r["with_record_stream"]
    assert bad["race_detected"] is None and good["race_detected"] is None  # a GPU cannot tell
    assert bad["same_address_reused"] and bad["wrong_value"]
    assert bad["side_stream_read"] == stream_reuse.NEW_OWNER_VALUE
    assert good["waited_for_event"] and not good["same_address_reused"] and not good["wrong_value"]
    assert r["signal"] is True
