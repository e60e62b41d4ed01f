"""Property tests: random malloc / free / record_stream / time / empty_cache sequences, checked
against a simple reference model after every step.

The reference keeps, independently of the pool: the live blocks (address, size, requested),
a byte tag written into each live block, and, for every block freed while another stream used
it, its own event recorded on that stream: until that event completes, the range is unsafe
and no malloc may return memory overlapping it.
"""
import pytest

pytest.importorskip("hypothesis")  # the GPU machine may not carry it; these tests are CPU-only anyway

from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from runtime_core.allocator import AllocatorOOM, CachingPool, HostArenaBackend
from runtime_core.allocator.segments import FREE
from runtime_core.allocator.sizes import KiB, MiB, round_size
from runtime_core.engine.sim.device import SimDevice, SimParams

CAPACITY = 96 * MiB
sizes = st.one_of(st.integers(1, 64 * KiB), st.integers(64 * KiB, 3 * MiB),
                  st.sampled_from([512, 1 * MiB, 1 * MiB + 1, 10 * MiB, 11 * MiB, 30 * MiB]))
ops = st.one_of(
    st.tuples(st.just("malloc"), sizes, st.integers(0, 1)),   # size, stream index
    st.tuples(st.just("free"), st.integers(0, 7)),            # which live block, from the newest
    st.tuples(st.just("use_on_side"), st.integers(0, 7), st.integers(0, 3000)),  # kernel µs
    st.tuples(st.just("advance"), st.integers(0, 3000)),      # host µs
    st.tuples(st.just("empty_cache"),),
)


class Reference:
    def __init__(self, dev):
        self.dev, self.live, self.unsafe, self.next_tag = dev, {}, [], 1

    def check_new_block(self, block):
        lo, hi = block.address, block.address + block.size_bytes
        for a, s, _ in self.live.values():
            assert hi <= a or a + s <= lo, "new block overlaps a live block"
        self.unsafe = [(a, s, ev) for a, s, ev in self.unsafe if not ev.query()]
        for a, s, _ in self.unsafe:
            assert hi <= a or a + s <= lo, "block handed out before its stream event completed"
        assert block.address % 512 == 0 and block.size_bytes >= round_size(block.requested_bytes)


def check_invariants(pool, ref):
    for seg in pool.segments:
        blocks, offset = seg.blocks(), 0
        for b in blocks:  # blocks tile the segment exactly, in order
            assert b.offset_bytes == offset and b.size_bytes % 512 == 0
            offset += b.size_bytes
        assert offset == seg.size_bytes
        for x, y in zip(blocks, blocks[1:]):
            assert not (x.state == FREE and y.state == FREE), "free neighbours were not merged"
    s = pool.stats()
    assert s["allocated_bytes.current"] == sum(b.size_bytes for b in ref.live)
    assert s["reserved_bytes.current"] == sum(seg.size_bytes for seg in pool.segments)
    assert s["reserved_bytes.current"] == pool.backend.reserved_bytes <= CAPACITY
    for block, (_, _, tag) in ref.live.items():  # nobody else wrote into a live block
        data = pool.view(block)
        assert data[0] == tag and data[-1] == tag


def apply(op, pool, ref, dev, streams):
    live = list(ref.live)
    if op[0] == "malloc":
        try:
            block = pool.malloc(op[1], streams[op[2]])
        except AllocatorOOM as e:  # legal only when the backend is really full
            assert e.reserved_bytes == pool.backend.reserved_bytes
            return
        ref.check_new_block(block)
        tag = ref.next_tag % 251 + 1
        ref.next_tag += 1
        pool.view(block)[:] = tag
        ref.live[block] = (block.address, block.size_bytes, tag)
    elif op[0] == "free" and live:
        block = live[-1 - op[1] % len(live)]
        if block.used_on - {block.stream}:
            for s in block.used_on - {block.stream}:
                ev = dev.new_event()
                ev.record(s)
                ref.unsafe.append((block.address, block.size_bytes, ev))
        del ref.live[block]
        pool.free(block)
    elif op[0] == "use_on_side" and live:
        block = live[-1 - op[1] % len(live)]
        other = streams[1] if block.stream is streams[0] else streams[0]
        with dev.use_stream(other):  # a kernel of op[2] µs on the other stream (its time is what matters)
            dev.launch_busy_kernel(max(1, op[2]))
        pool.record_stream(block, other)
    elif op[0] == "advance":
        dev.host_spin(float(op[1]))
    elif op[0] == "empty_cache":
        pool.empty_cache()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(ops, min_size=1, max_size=40), st.booleans())
@example([("malloc", 4096, 0), ("use_on_side", 0, 2000), ("free", 0), ("malloc", 4096, 0),
          ("advance", 3000), ("malloc", 4096, 0)], False)  # the stream-reuse case, always run
def test_random_sequences_keep_the_invariants(sequence, expandable):
    dev = SimDevice(SimParams(elems_per_us=1.0))  # kernel µs = elements
    pool = CachingPool(HostArenaBackend(CAPACITY, device=dev), expandable=expandable)
    ref, streams = Reference(dev), [dev.current_stream(), dev.new_stream()]
    for op in sequence:
        apply(op, pool, ref, dev, streams)
        check_invariants(pool, ref)


def test_the_reference_catches_reuse_before_the_event():
    """The property test can fail: with events skipped, the reference flags the early reuse."""
    dev = SimDevice(SimParams(elems_per_us=1.0))
    pool = CachingPool(HostArenaBackend(CAPACITY, device=dev), skip_stream_events=True)
    ref, streams = Reference(dev), [dev.current_stream(), dev.new_stream()]
    for op in [("malloc", 4096, 0), ("use_on_side", 0, 2000), ("free", 0)]:
        apply(op, pool, ref, dev, streams)
    try:
        apply(("malloc", 4096, 0), pool, ref, dev, streams)
    except AssertionError as e:
        assert "before its stream event" in str(e)
    else:
        raise AssertionError("the reference model did not notice reuse before the event")
