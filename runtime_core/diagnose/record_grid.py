"""What a diagnose recording measures, as a list of items in the order they run.

    base      every model at batches 1..512 (fp32): eager and our graph, profiled and predicted;
              bf16 at batch 1; the encoder's token sweep (batch 1, 16..1024 tokens)
    pass      passes 2..P over the base points, minutes apart: H, then eager and our graph timed
              again (diagnosis.measure_pass); a point keeps the median of its passes
    planner   per model, the bucket planner's set for the Zipf preset beside powers of two and a
              serving engine's defaults, measured (other presets are priced on the page)
    variants  make_graphed_callables, torch.compile and reduce-overhead, at batches 1 and 64
              (fp32) and batch 1 (bf16): each compile costs ~12 s on an H200, so only there

Base items come first so a recording cut short by its budget still has the sweep. Each item has
a time estimate (seconds on an H200), so a run stops *before* an item that would not fit.
"""
from __future__ import annotations

from dataclasses import dataclass

from .sweep import BATCHES

VARIANT_BATCHES = (1, 64)
BF16_BATCHES = (1,)
TIMELINE_BATCHES = (1, 64)
TOKEN_SWEEP = {"encoder": (16, 32, 64, 128, 256, 512, 1024), "fake-encoder": (16, 32, 64, 128, 256, 512, 1024)}
PLANNER_PRESETS = ("zipf",)
PLANNER_MAX_SIZE = 256
QUICK = dict(models=2, batches=(1, 8, 64), presets=("zipf",), planner_max_size=64)
ESTIMATE_S = {"base": 33.0, "pass": 32.0, "planner": 10.0, "variants": 55.0, "calibrate": 3.0}  # H200 s; base, pass and variants time 15 s of H rounds and 15 s of steps (host_floor.py)
PASSES = 3  # passes over the base points on a device whose host drifts; a deterministic one needs 1
TORCH_VARIANTS = ("graphed_callables", "compile", "reduce_overhead")


@dataclass(frozen=True)
class Item:
    """One unit of recording work: a base point, a planner case, or a point's torch variants."""

    phase: str
    model: str
    dtype: str = "fp32"
    batch: int = 1
    seq: int | None = None
    preset: str = ""
    pass_no: int = 1

    @property
    def key(self) -> tuple:
        return (self.model, self.dtype, self.batch, self.seq)

    def label(self) -> str:
        if self.phase == "planner":
            return f"{self.model} bucket planner, {self.preset} requests"
        shape = f", shape {self.seq}" if self.seq is not None else ""
        phase = f"pass {self.pass_no}" if self.phase == "pass" else self.phase
        return f"{self.model} {self.dtype} batch {self.batch}{shape} ({phase})"


def point_key(p: dict) -> tuple:
    return (p["model"], p["dtype"], p["batch"], p.get("seq"))


def timeline_key(model: str, dtype: str, batch: int, seq, variant: str) -> str:
    return f"{model}|{dtype}|b={batch}|seq={seq}|{variant}"


def items(runner, models, quick: bool = False, variants: bool = True, passes: int = 1) -> list[Item]:
    """The recording's items for `models` (names of runner.catalog), in run order."""
    batches = QUICK["batches"] if quick else BATCHES
    presets = QUICK["presets"] if quick else PLANNER_PRESETS
    out: list[Item] = []
    for m in models:
        seq = runner.catalog[m].default_shape
        out += [Item("base", m, "fp32", b, seq) for b in batches]
        out += [Item("base", m, "bf16", b, seq) for b in BF16_BATCHES]
        if not quick:
            out += [Item("base", m, "fp32", 1, s) for s in TOKEN_SWEEP.get(m, ()) if s != seq]
    base = list(out)
    for n in range(2, passes + 1):
        out += [Item("pass", it.model, it.dtype, it.batch, it.seq, pass_no=n) for it in base]
    for m in models:
        out += [Item("planner", m, "fp32", 1, runner.catalog[m].default_shape, p) for p in presets]
    if variants and set(TORCH_VARIANTS) <= set(runner.variants):
        for m in models:
            seq = runner.catalog[m].default_shape
            out += [Item("variants", m, "fp32", b, seq) for b in VARIANT_BATCHES if b in batches]
            out += [Item("variants", m, "bf16", b, seq) for b in BF16_BATCHES]
    return out


def default_models(runner, quick: bool = False) -> list[str]:
    names = list(runner.catalog)
    return names[: QUICK["models"]] if quick else names
