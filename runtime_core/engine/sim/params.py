"""The simulated machine's parameters: its launch tax, its named costs, and the sizes of things."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...constants import Constants
from ...errors import UsageError

# The simulated machine's own costs come in the model's Constants type (one set of names for
# both). Its graph steps copy their input on the copy path, and a shape miss under the fallback
# policy runs the streams executor, as GraphExecutor does. SIM_MACHINE has every cost at zero: the
# default. Whoever builds a SimDevice passes the costs it should run with (SimDevice(constants=...);
# recordings/shipped.py has the shipped H200's): the simulator reads no recording.
SIM_MACHINE = Constants(static_copy=True, miss_runs="streams", source="SimDevice parameters")
@dataclass(frozen=True)
class SimParams:
    """Physical constants of the simulated machine, µs unless named otherwise.

    Args:
        tax_us: host cost of one kernel launch call (seed §6 default: 6; the widget's knob).
        machine: the named costs shared with the model (sync_us, graph_launch_us, node_gap_us,
            kernel_floor_us, ...; see runtime_core.constants.Constants). Default: SIM_MACHINE,
            every cost zero (recordings/shipped.py has the shipped H200's).
        queue_depth: launches a stream holds before an enqueue blocks the host (CUDA: 1024).
        elems_per_us: elements a chain kernel processes per µs; sets kernel time from size.
        capture_us_per_node: host cost of recording and instantiating one graph node.
        driver_call_us: host cost of one raw cudaMalloc or cudaFree (default 0: free, like every
            cost of SIM_MACHINE; the lesson's device, recordings/shipped.get_device, passes half
            the shipped H200 recording's measured 1 MiB pair).
        h2d_pinned_us_per_mib, h2d_pageable_us_per_mib: upload time per MiB from pinned and
            pageable host memory: 64 MiB took ≈1.27 ms and ≈9.28 ms on an H200 (same file,
            "Streams and copies").
    """

    tax_us: float = 6.0
    machine: Constants = SIM_MACHINE
    queue_depth: int = 1024
    elems_per_us: float = 1000.0
    capture_us_per_node: float = 1.0
    driver_call_us: float = 0.0
    h2d_pinned_us_per_mib: float = 1270.0 / 64
    h2d_pageable_us_per_mib: float = 9280.0 / 64

    @classmethod
    def of(cls, **params) -> "SimParams":
        """SimParams from flat keywords: Constants fields (sync_us=...) go into `machine`."""
        consts = {k: params.pop(k) for k in list(params) if k in Constants.__dataclass_fields__}
        unknown = set(params) - set(cls.__dataclass_fields__)
        if unknown:
            raise UsageError(f"unknown simulator parameter(s): {', '.join(sorted(unknown))}")
        machine = dataclasses.replace(params.pop("machine", None) or SIM_MACHINE, **consts)
        return cls(machine=machine, **params)
