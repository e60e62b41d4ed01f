"""The widget's knobs, as one type: what a step asks for, its names, and the bounds of each.

Every layer takes a `Knobs`: the CLI builds one from its arguments, the pages from the URL and
the controls, `measure()` runs one on a device and `predict()` prices one. The names of the
modes, policies and backends are spelled here and nowhere else, and so is every bound.

Bounds come in three scopes, because the same knob costs different things in each:
    model    a formula: any size it can price (N up to 100 000)
    measure  a real or simulated run: a step must finish in seconds
    widget   the page's controls: the range a student can reach with a slider
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from enum import StrEnum

from .errors import UsageError


class Mode(StrEnum):
    """How the chain is dispatched. EAGER blocks after every launch (like CUDA_LAUNCH_BLOCKING=1);
    STREAMS is asynchronous, which is what PyTorch's own eager mode does; GRAPH replays a capture."""

    EAGER = "eager"
    STREAMS = "streams"
    GRAPH = "graph"


# What each mode is called on screen. "eager" means one thing per screen: the widget's eager is
# blocking dispatch, never PyTorch's own eager (which is asynchronous). The CLI keeps the names.
MODE_LABELS = {Mode.EAGER: "eager (blocking: sync after each launch)",
               Mode.STREAMS: "streams (async, like PyTorch eager)",
               Mode.GRAPH: "graph (one replay)"}
PYTORCH_EAGER_LABEL = "PyTorch eager (async)"  # PyTorch's eager mode, e.g. in the decoder table


def mode_label(mode) -> str:
    """The on-screen name of a dispatch mode ("eager" -> "eager (blocking: sync after each launch)")."""
    return MODE_LABELS[Mode(mode)]


class Policy(StrEnum):
    """What graph mode does when the input's shape misses the captured one."""

    FALLBACK = "fallback"    # dispatch this call without the graph
    RECAPTURE = "recapture"  # capture a graph for the new shape (LRU cache)
    BUCKET = "bucket"        # pad up to a captured power-of-two size


class GraphInput(StrEnum):
    """How a graph step gets its input. COPY: the request arrives in a fresh buffer and is copied
    into the captured (static) buffer before the replay. ZERO_COPY: the producer writes the next
    input straight into the captured buffer, as serving engines write token ids into a
    persistent buffer, so the step has no copy."""

    COPY = "copy"
    ZERO_COPY = "zero-copy"


class Backend(StrEnum):
    """Which device runs a measurement. AUTO picks CUDA when torch sees a GPU, else SIM."""

    AUTO = "auto"
    CUDA = "cuda"
    SIM = "sim"


def choices(enum: type[StrEnum]) -> tuple[str, ...]:
    """The values of an enum, for argparse and selectboxes."""
    return tuple(e.value for e in enum)


def parse_enum(enum: type[StrEnum], name: str, value) -> StrEnum:
    """`value` as a member of `enum`; UsageError naming the allowed values otherwise."""
    try:
        return enum(value)
    except ValueError:
        raise UsageError(f"{name} must be one of {', '.join(choices(enum))}, got {value!r}") from None


def _plain(x: float) -> str:
    """A number as typed: a whole one in full (1000000, not :g's 1e+06), any other as :g."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else f"{x:g}"


@dataclass(frozen=True)
class Range:
    """A closed interval a knob must lie in. `integer` knobs must also be whole numbers."""

    lo: float
    hi: float
    integer: bool = False
    unit: str = ""

    def __post_init__(self):
        cast = int if self.integer else float
        object.__setattr__(self, "lo", cast(self.lo))
        object.__setattr__(self, "hi", cast(self.hi))

    def check(self, name: str, value):
        """Return `value` (an int for integer ranges) or raise UsageError with one line."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UsageError(f"{name} must be a number, got {value!r}")
        if not math.isfinite(value):
            raise UsageError(f"{name} must be finite, got {value!r}")
        if self.integer and value != int(value):
            raise UsageError(f"{name} must be a whole number, got {value!r}")
        if not self.lo <= value <= self.hi:
            unit = f" {self.unit}" if self.unit else ""
            raise UsageError(f"{name} must be between {_plain(self.lo)} and {_plain(self.hi)}{unit}, "
                             f"got {_plain(value)}")
        return int(value) if self.integer else float(value)

    def parse(self, name: str, text: str):
        """Parse text (a CLI argument, a URL value) and check it. Only ASCII: Python would read
        "١٢٠" or full-width "１２０" as 120, which no one types on purpose."""
        if isinstance(text, str) and not text.isascii():
            raise UsageError(f"{name} is not a number: {text[:40]!r}")
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise UsageError(f"{name} is not a number: {str(text)[:40]!r}") from None
        return self.check(name, value)


# The seed's widget defaults (§6: "kernels in chain N: 120", "tax µs: 6", "work µs: 2").
SEED_N = 120
SEED_TAX_US = 6.0
SEED_WORK_US = 2.0

LIMITS: dict[str, dict[str, Range]] = {
    "model": {"n": Range(1, 100_000, integer=True), "tax_us": Range(0, 100_000, unit="µs"),
              "work_us": Range(0, 1_000_000, unit="µs"), "extra_tax_us": Range(0, 100_000, unit="µs")},
    "measure": {"n": Range(1, 20_000, integer=True), "tax_us": Range(0, 100_000, unit="µs"),
                "work_us": Range(0, 10_000, unit="µs"), "extra_tax_us": Range(0, 10_000, unit="µs")},
    "widget": {"n": Range(1, 2000, integer=True), "tax_us": Range(0.5, 100, unit="µs"),
               "work_us": Range(0, 200, unit="µs"), "extra_tax_us": Range(0, 100, unit="µs")},
}


@dataclass(frozen=True)
class Knobs:
    """One setting of the widget.

    Args:
        mode: eager, streams or graph.
        n: kernels in the chain.
        work_us: requested GPU work per kernel, µs.
        tax_us: per-launch CPU tax, µs: what the model prices and the simulator charges. A real
            GPU has its own tax; there `extra_tax_us` adds host work on top of it.
        extra_tax_us: host busy-work before each launch on a measured device, µs.
        dynamic: the input shape changes on every call.
        policy: what graph mode does on a shape miss (only used when mode is graph and dynamic).
        graph_input: copy or zero-copy (graph mode only): see GraphInput.
    """

    mode: Mode
    n: int
    work_us: float
    tax_us: float = SEED_TAX_US
    extra_tax_us: float = 0.0
    dynamic: bool = False
    policy: Policy = Policy.FALLBACK
    graph_input: GraphInput = GraphInput.COPY

    def __post_init__(self):
        object.__setattr__(self, "mode", parse_enum(Mode, "mode", self.mode))
        object.__setattr__(self, "policy", parse_enum(Policy, "policy", self.policy))
        object.__setattr__(self, "graph_input", parse_enum(GraphInput, "graph_input", self.graph_input))
        if not isinstance(self.dynamic, bool):
            raise UsageError(f"dynamic must be true or false, got {self.dynamic!r}")

    def validate(self, scope: str = "model") -> "Knobs":
        """Check every number against the bounds of `scope` (model, measure or widget).

        Returns a copy with whole-number N and float times; raises UsageError on the first bad knob.
        """
        limits = LIMITS[scope]
        return dataclasses.replace(self, **{k: r.check(k, getattr(self, k)) for k, r in limits.items()})

    @property
    def missed_shape(self) -> bool:
        """True when a captured graph sees a new shape on every call (graph mode, dynamic)."""
        return self.mode == Mode.GRAPH and self.dynamic

    @property
    def effective_policy(self) -> Policy:
        """The policy that matters: the chosen one on a shape miss, else fallback."""
        return self.policy if self.missed_shape else Policy.FALLBACK

    @property
    def copies_input(self) -> bool:
        """True when a graph step copies its input into the static buffer."""
        return self.mode == Mode.GRAPH and self.graph_input == GraphInput.COPY

    def replace(self, **changes) -> "Knobs":
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        return {"mode": str(self.mode), "n": self.n, "work_us": self.work_us, "tax_us": self.tax_us,
                "extra_tax_us": self.extra_tax_us, "dynamic": self.dynamic, "policy": str(self.policy),
                "graph_input": str(self.graph_input)}


SEED_KNOBS = Knobs(Mode.GRAPH, SEED_N, SEED_WORK_US, SEED_TAX_US)
