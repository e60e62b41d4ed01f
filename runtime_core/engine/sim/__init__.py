"""The simulated backend: a discrete-event GPU on a virtual clock, one module per part.

    device.py   SimDevice, the Device peer (host clock, launch tax, launch queue, capture/replay)
    events.py   the event core: a heap of (time, seq, action), FIFO streams, events
    objects.py  buffers, events, graphs; params.py: SimParams (its named costs come from its builder)
    cost.py     what a request costs here (Python seconds); native.py: the "native" chain launcher
    tracing.py  tracing in-process
"""
