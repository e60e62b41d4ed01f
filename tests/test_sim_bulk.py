"""The simulator's bulk paths (SimDevice.launch_chain / launch_chain_blocking, graph replays as
one running sum) change no simulated number (issue 21 item 9: a new widget setting's server cost).

- 40 widget settings give the same results, timelines and device state, bit for bit, as the
  simulator before the bulk paths (digests recorded from that code: fixtures/sim_digests_before_bulk.json);
- bulk and one-by-one (SimDevice.bulk = False) leave the same device: spans, counts, stream
  state, the race detector's bookkeeping and every buffer's values, mid-flight and after a sync,
  also where the launch queue fills up, values are not whole numbers, or a race is found."""
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from runtime_core.engine.capture import warm_up_and_capture
from runtime_core.engine.measure import measure
from runtime_core.engine.race_detector import RaceError
from runtime_core.engine.sim.device import SimDevice, SimParams
from runtime_core.knobs import Knobs
from runtime_core.recordings.shipped import shipped_constants

DIGESTS = Path(__file__).parent / "fixtures" / "sim_digests_before_bulk.json"


def _knobs(s: dict) -> tuple[Knobs, float]:
    s = dict(s)
    tax = s.pop("tax_us")
    return Knobs(s.pop("mode"), s.pop("n"), s.pop("work_us"), tax_us=tax, **s), tax


def digest(setting: dict, consts) -> str:
    """What tests/fixtures/sim_digests_before_bulk.json holds per setting: measure(trace=True)'s
    metrics, timeline (floats as hex), the device's clocks, counts and every span it recorded."""
    k, tax = _knobs(setting)
    dev = SimDevice(SimParams(tax_us=tax), constants=consts)
    r = measure(dev, k, trace=True)
    d = r.metrics()
    d.pop("torch_version", None)
    d["timeline"] = [(x.lane, x.kind, x.name, x.start_us.hex(), x.end_us.hex()) for x in r.timeline]
    d["wall_hex"] = r.wall_us.hex()
    d["chrome"] = r.chrome_trace
    d["state"] = (dev.host_us.hex(), dev.engine.now_us.hex(), sorted(dev.counts.items()), len(dev.host_spans),
                  len(dev.engine.gpu_spans),
                  hashlib.sha256(repr([(s.kind, s.name, s.start_us.hex(), s.end_us.hex())
                                       for s in dev.host_spans]).encode()).hexdigest(),
                  hashlib.sha256(repr([(a, b, c, x.hex(), y.hex())
                                       for a, b, c, x, y in dev.engine.gpu_spans]).encode()).hexdigest())
    return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()


def test_forty_settings_match_the_simulator_before_the_bulk_paths():
    want = json.loads(DIGESTS.read_text())
    consts = shipped_constants()
    got = {key: digest(json.loads(key), consts) for key in want}
    assert [k for k in want if got[k] != want[k]] == []
    assert len(want) == 40


def state(dev: SimDevice, buffers=()) -> dict:
    """Everything a later call could see: clocks, counts, spans, streams, races, buffer values."""
    eng, r = dev.engine, dev.races
    streams = [(s.sid, s.last_kernel_end, None if s.running is None else
                (s.running.kind, s.running.name, s.running.ready_us, s.running.start_us, s.running.end_us),
                [(op.kind, op.name, op.ready_us, op.dur_us, op.start_us) for op in s.queue]) for s in eng.streams]
    bufs = [(h.last_write, list(h.reads)) for h in r._buffers.values()]  # addresses differ per device
    return {"host": dev.host_us, "now": eng.now_us, "counts": dict(dev.counts), "last_launch": dev._last_launch_us,
            "host_spans": list(dev.host_spans), "gpu_spans": list(eng.gpu_spans), "streams": streams,
            "races": (r._streams, r._host, r._host_version, r._seen_host, bufs, len(r.found)),
            "data": [b.data.tobytes() for b in buffers]}


def twin(fn, **params):
    """fn(dev) on a bulk device and on a one-by-one one; both states (fn returns its buffers)."""
    out = []
    for bulk in (True, False):
        dev = SimDevice(SimParams(**params), constants=shipped_constants())
        dev.bulk = bulk
        bufs = fn(dev)
        mid = state(dev, bufs)
        dev.synchronize()
        out.append((mid, state(dev, bufs)))
    return out


@pytest.mark.parametrize("k", [Knobs("eager", 700, 3.3, tax_us=6.0), Knobs("streams", 1500, 40.0, tax_us=2.0),
                               Knobs("graph", 1100, 4.0, tax_us=6.0, extra_tax_us=1.0),
                               Knobs("graph", 60, 2.1, tax_us=6.0, dynamic=True, policy="recapture"),
                               Knobs("streams", 40, 0.3, tax_us=0.5, dynamic=True, extra_tax_us=0.5),
                               Knobs("eager", 90, 20.0, tax_us=0.0)],
                         ids=lambda k: f"{k.mode.value}-{k.n}")
def test_measure_leaves_the_same_device_in_bulk_and_one_by_one(k):
    def run(dev):
        measure(dev, k, trace=True)
        return []
    (a_mid, a), (b_mid, b) = twin(run, tax_us=k.tax_us)
    assert a_mid == b_mid and a == b


@pytest.mark.parametrize("depth", [4, 1024])
@pytest.mark.parametrize("work,tax,spin", [(40.0, 2.0, 0.0), (1.0, 6.0, 0.0), (5.0, 1.0, 3.0), (3.0, 0.0, 0.0)])
def test_async_runs_mid_flight_with_a_full_launch_queue(depth, work, tax, spin):
    def run(dev):
        x = dev.new_buffer(dev.numel_for_work(work))
        dev.fill(x, 0.1)                  # not whole numbers: the adds run one by one
        y = dev.new_buffer(dev.numel_for_work(work))
        dev.fill(y, float(2 ** 24 - 30))  # near float32's last whole numbers
        dev.launch_chain(x, 50, spin)
        dev.launch_chain(y, 70, spin)
        side = dev.new_stream()
        dev.wait_stream(side, dev.current_stream())
        with dev.use_stream(side):
            dev.launch_chain(x, 33, spin)  # behind an event wait: one by one until it clears
        return [x, y]
    (a_mid, a), (b_mid, b) = twin(run, tax_us=tax, queue_depth=depth)
    assert a_mid == b_mid and a == b


def test_blocking_runs_and_captured_replays_match():
    def run(dev):
        x = dev.new_buffer(2500)
        dev.fill(x, 1.0)
        dev.launch_chain_blocking(x, 300, 1.5)
        dev.synchronize()
        g, _ = warm_up_and_capture(dev, lambda: dev.launch_chain(x, 400))
        for _ in range(3):
            g.replay()
        dev.launch_chain_blocking(x, 5)
        return [x]
    (a_mid, a), (b_mid, b) = twin(run, tax_us=6.0)
    assert a_mid == b_mid and a == b
    assert np.frombuffer(a["data"][0], np.float32)[0] == 1.0 + 300 + 400 * (1 + 3) + 5  # warm-up and three replays


def test_a_race_is_found_at_the_same_launch():
    def run(dev):
        x = dev.new_buffer(1000)
        dev.launch_chain(x, 20)
        side = dev.new_stream()  # no wait_stream: the side stream's first launch races
        with dev.use_stream(side), pytest.raises(RaceError):
            dev.launch_chain(x, 20)
        return [x]
    (a_mid, a), (b_mid, b) = twin(run, tax_us=6.0)
    assert a_mid == b_mid and a == b
