"""One check per claim id of lessons/claims.json: what was measured, holds or differs, and why.

Each check takes the recordings {"sweep", "alloc", "decoder"} (typed Recordings; those named
in its `needs` are present) and an optional overlap-lab dict, and returns the row fields of claims.evaluate_claims.
The constants below are the seed's own numbers, i.e. the claims being checked.
"""
from __future__ import annotations

import statistics

from ..allocator import labs as alloc_labs
from ..allocator.sizes import MID_SEGMENT_BYTES, SMALL_REQUEST_BYTES, MiB, round_size, segment_bytes
from ..knobs import SEED_N, SEED_TAX_US, SEED_WORK_US
from ..recordings import Point, Recording, point_at
from ..words import either

# The seed's numbers (shared/reference, lesson §2–§4): these are the claims, not measurements.
SEED_TAX_RANGE_US = (5.0, 25.0)      # "≈5–25 µs of CPU tax" per launch
# "≈1 ms/token in launch overhead and ≈0.4 ms in actual kernel time": asynchronous eager runs the
# kernels under the launches, so a token takes the larger of the two (≈1 ms), as the claim's own
# "≈1 ms → ≈0.4–0.5 ms, 2×" reads it (1.4 ms would make the seed's speedup 3×)
SEED_DECODER_EAGER_MS = max(1.0, 0.4)
SEED_DECODER_GRAPH_MS = (0.4, 0.5)   # "≈0.4–0.5 ms/token once the launch tax collapses"
SEED_SPEEDUP_RANGE = (1.5, 3.0)      # "a 2× step speedup", read generously
SEED_KERNELS_PER_LAYER = (80, 200)   # "a transformer layer ... can launch 80–200 kernels per token"
SEED_DISPATCH_MS = (0.5, 1.2)        # "≈0.5–1.2 ms of pure CPU dispatch per token" (that count × ≈6 µs)
SEED_TINY_KERNEL_US = 2.0            # kernels "finishing in ≈1–2 µs" (upper end)
SEED_MALLOC_PAIR_US = 2 * 5.0        # "a few microseconds" per cudaMalloc, so ≤ ≈10 µs a malloc+free pair
STREAMS_CLOSE_RATIO = 1.15           # "streams nearly catch graph mode": within 15%
WITHIN = 0.25                        # a measured total "matches" a seed total within ±25%


def row(measured: str, holds: bool, reason: str, rec: Recording | None = None, source: str | None = None,
        detail: str | None = None) -> dict:
    """A checked claim's row. `source` defaults to the recording's own ("recorded" for a real GPU,
    "simulated" for a simulated sweep), which decides whether the verdict counts as evidence."""
    if source is None:
        source = rec.meta.source if rec is not None else "recorded"
    return {"measured": measured, "verdict": "holds" if holds else "differs", "reason": reason,
            "source": source, "source_detail": detail if detail is not None else describe(rec)}


def missing(reason: str) -> dict:
    """The row of a claim whose source is not available."""
    return {"measured": "not measured", "verdict": "no data", "reason": reason,
            "source": "missing", "source_detail": ""}


def describe(rec: Recording | None) -> str:
    """"NVIDIA H200 · torch 2.11.0+cu130 · 2026-11-30" for a recording."""
    return rec.label() if rec else ""


def point(rec: Recording, mode: str, n: int, work_us: float) -> Point | None:
    """The recorded point with exactly these knobs (static shapes, no extra tax), or None."""
    return point_at(rec, mode, n, work_us)


TAX_DECIMALS = 1  # the launch tax is printed, and computed with, to 0.1 µs


def sweep_tax_us(sweep: Recording) -> float:
    """The sweep's launch tax, µs: meta.intrinsic_tax_us (which the schema requires), rounded once
    to TAX_DECIMALS. Every claim that names the tax, or multiplies by it, uses this one value, as
    the lesson's {{sweep.tax_us}} figure does, so no two places print it differently."""
    return round(sweep.meta.intrinsic_tax_us, TAX_DECIMALS)


def needs(*names):
    """Mark a check with the recordings it cannot run without."""
    def mark(fn):
        fn.needs = names
        return fn
    return mark


def _in(x: float, lo_hi: tuple) -> bool:
    return lo_hi[0] <= x <= lo_hi[1]


def range_note(shown: float, lo_hi: tuple, near: float = 0.2) -> str:
    """Where a value, as printed, sits against a range: "inside", "just above" / "just below"
    (within `near` of the range's edge, relatively) or "above" / "below". Compare the printed
    value, so the sentence never calls "0.51" inside "0.4–0.5"."""
    lo, hi = lo_hi
    if lo <= shown <= hi:
        return "inside"
    if shown > hi:
        return "just above" if shown <= hi * (1 + near) else "above"
    return "just below" if shown >= lo * (1 - near) else "below"


# ---- §2: the launch tax and tiny kernels ---------------------------------------------------
@needs("sweep")
def launch_tax(recs, _lab) -> dict:
    sweep = recs["sweep"]
    tax = sweep_tax_us(sweep)
    # a Python launch as it comes: no added host work, not the C++ launcher's low-tax slice
    taxes = [p.tax_us for p in sweep.points if not p.extra_tax_us and p.launcher == "python"]
    spread = f"; {min(taxes):.1f}–{max(taxes):.1f} µs at single points with nothing added" if taxes else ""
    holds = _in(tax, SEED_TAX_RANGE_US)
    reason = (f"Inside the seed's 5–25 µs band, and {tax / SEED_TAX_US:.1f}× the launch-overhead widget's "
              f"default (page 6) of {SEED_TAX_US:g} µs." if holds else
              f"Outside the seed's 5–25 µs band by {min(abs(tax - 5), abs(tax - 25)):.1f} µs.")
    return row(f"{tax:.1f} µs per launch (x.add_(1), host time){spread}", holds, reason, sweep)


@needs("sweep")
def tiny_kernels(recs, _lab) -> dict:
    sweep = recs["sweep"]
    tax = sweep_tax_us(sweep)
    per_kernel = {w: p.kernel_time_us / p.n for w in (0, 2)
                  if (p := point(sweep, "streams", SEED_N, w))}
    streams = point(sweep, "streams", SEED_N, SEED_WORK_US)
    if 2 not in per_kernel or streams is None:
        return missing(f"the sweep has no streams point at N={SEED_N}, work 0 and {SEED_WORK_US:g} µs")
    busy_pct = 100 * streams.kernel_time_us / streams.wall_us
    kernel_range = "–".join(f"{v:.2f}" for v in per_kernel.values())
    measured = (f"kernels {kernel_range} µs (asked for 0–2 µs), dispatch {tax:.1f} µs; async step at "
                f"N={SEED_N}: GPU busy {streams.kernel_time_us:.0f} of {streams.wall_us:.0f} µs "
                f"({busy_pct:.0f}%)")
    holds = per_kernel[2] <= SEED_TINY_KERNEL_US * 1.25 and tax > 2 * per_kernel[2] and busy_pct < 50
    reason = (f"The GPU runs dry: it idles {100 - busy_pct:.0f}% of an async step because each launch "
              f"({tax:.1f} µs, more than the seed's 6) outlasts its kernel." if holds else
              "Kernels are not much shorter than a launch here, so the GPU stays fed.")
    return row(measured, holds, reason, sweep)


@needs("decoder", "sweep")
def kernels_per_token(recs, _lab) -> dict:
    """The seed counts 80–200 launches per token for one transformer *layer*, and prices that count
    at ≈6 µs each (0.5–1.2 ms): one layer's dispatch, where a model pays it once per layer. Judged
    on the decoder bench, like with like: its launches per layer against the count, and one layer's
    dispatch at the sweep's tax against the time; the whole token's dispatch is said beside them."""
    dec, sweep = recs["decoder"], recs["sweep"]
    eager = {p["variant"]: p for p in dec.data["points"]}.get("eager")
    if eager is None:
        return missing("the decoder recording has no eager variant")
    launches, tax = eager["launches_per_token"], sweep_tax_us(sweep)
    dispatch_ms = launches * tax / 1000
    layers = dec.data["decoder"]["config"].get("layers") or 1
    per_layer = launches / layers
    layer_ms = dispatch_ms / layers
    measured = (f"decoder bench: {launches:.0f} kernel launches/token, about {per_layer:.1f} per layer over "
                f"{layers} layers; × {tax:.1f} µs = {layer_ms:.2f} ms of dispatch a layer, {dispatch_ms:.2f} ms "
                f"a token; eager measured {eager['ms_per_token']:.2f} ms/token")
    count_ok, time_ok = _in(per_layer, SEED_KERNELS_PER_LAYER), _in(layer_ms, SEED_DISPATCH_MS)
    if count_ok and time_ok:
        reason = "Both the launches per layer and the dispatch per layer fall in the seed's ranges."
    else:
        parts = [] if count_ok else [
            f"{per_layer:.1f} launches a layer is {'fewer' if per_layer < SEED_KERNELS_PER_LAYER[0] else 'more'} "
            f"than the seed's 80–200"]
        lo, hi = (layers * n * SEED_TAX_US / 1000 for n in SEED_KERNELS_PER_LAYER)
        parts += [] if time_ok else [
            f"{layer_ms:.2f} ms of dispatch a layer is {'below' if layer_ms < SEED_DISPATCH_MS[0] else 'above'} "
            f"the seed's 0.5–1.2 ms (the tax here is {tax:.1f} µs, not ≈6)"]
        reason = ("; ".join(parts) + f". The seed's figure prices one layer's 80–200 launches once: the whole "
                  f"token here pays {dispatch_ms:.2f} ms, where {layers} such layers would pay {lo:.0f}–{hi:.0f} ms.")
    return row(measured, count_ok and time_ok, reason, dec, detail=f"{describe(dec)} (tax from the sweep)")


def pinned_overlap(recs, lab) -> dict:
    recorded = next((r.labs["overlap"] for r in recs.values() if r and "overlap" in r.labs), None)
    lab = recorded or lab
    if lab is None:
        return missing("measured live on GPU only; not in the shipped recordings. "
                       "Run the overlap lab on a GPU (python -m runtime_core lab overlap).")
    measured = (f"pinned copy added {lab['pinned_added_us']:.0f} µs, pageable {lab['pageable_added_us']:.0f} µs "
                f"to a {lab['compute_only_wall_us'] / 1000:.1f} ms compute step")
    source = "recorded" if recorded else lab["source"]
    reason = ("The pinned copy hid behind compute; the pageable one serialized with it."
              if lab["signal"] else "The pageable copy did not cost much more than the pinned one here.")
    if source == "simulated":
        reason += (" Simulated: the SimDevice models a pageable copy as a blocking host call, so this shows "
                   "the mechanism, not evidence. The shipped recordings do not hold this measurement.")
    detail = lab.get("device_name", "")
    return row(measured, bool(lab["signal"]), reason, source=source, detail=detail)


# ---- §3: allocation ------------------------------------------------------------------------
@needs("alloc")
def cudamalloc_cost(recs, _lab) -> dict:
    allocs = recs["alloc"].labs["alloc"]["allocators"]
    raw, pool = allocs["raw"]["alloc_free_us"], allocs["torch"]["alloc_free_us"]
    size = recs["alloc"].labs["alloc"]["size_bytes"]
    measured = (f"{raw:.1f} µs per cudaMalloc + cudaFree pair of {size / MiB:g} MiB; "
                f"PyTorch's caching allocator {pool:.1f} µs per pair")
    holds = raw <= SEED_MALLOC_PAIR_US
    reason = ("A pair costs what 'a few µs' each allows." if holds else
              f"A pair costs {raw / SEED_MALLOC_PAIR_US:.0f}× the ≈10 µs that 'a few µs' each allows "
              f"(how it splits between malloc and free was not measured). The seed understates the "
              f"cost, which makes its advice stronger: the pool is {raw / pool:.0f}× cheaper.")
    return row(measured, holds, reason, recs["alloc"])


@needs("alloc")
def segments(recs, _lab) -> dict:
    alloc = recs["alloc"].labs["alloc"]
    small, mid = segment_bytes(round_size(SMALL_REQUEST_BYTES)), segment_bytes(round_size(3 * MiB))
    rise = _hot_path_rise_bytes(alloc["hot_path"])
    torch_growing = (alloc["expandable"].get("torch") or {}).get("growing", {}).get("default", {})
    ours_growing = alloc_labs.run_order("growing")["stats"]["reserved_bytes.peak"]
    if rise is None or "reserved_peak_bytes" not in torch_growing:
        return missing("the alloc recording lacks the hot-path samples or the growing order")
    torch_peak = torch_growing["reserved_peak_bytes"]
    measured = (f"PyTorch on the GPU: reserved rose {rise / MiB:g} MiB when a step took 1 MiB, 3 MiB, "
                f"256 KiB and 1 MiB after empty_cache(); the growing order (11…25 MiB) peaked at "
                f"{torch_peak / MiB:g} MiB reserved")
    holds = rise >= mid and rise % (2 * MiB) == 0 and torch_peak == ours_growing
    reason = (f"The size rules (≤1 MiB → {small / MiB:g} MiB segment, 1–10 MiB → {mid / MiB:g} MiB, "
              f"larger → its own, rounded to 2 MiB) explain both: the 3 MiB request pulled in a whole "
              f"{mid / MiB:g} MiB segment, and our pool with the same rules peaks at "
              f"{ours_growing / MiB:g} MiB on the growing order." if holds else
              f"The rules predict a rise of at least {mid / MiB:g} MiB in 2 MiB steps and a growing-order "
              f"peak of {ours_growing / MiB:g} MiB; PyTorch did otherwise.")
    return row(measured, holds, reason, recs["alloc"])


def _hot_path_rise_bytes(hot_path: dict) -> int | None:
    """Median rise of reserved bytes from a step's end to the next step's allocations (PyTorch,
    empty_cache each step): the segments one step's buffers pulled from the driver."""
    samples = hot_path["empty_cache_each_step"].get("samples", [])
    rises = [b[2] - a[2] for a, b in zip(samples, samples[1:]) if a[3] == "step end" and b[3] == "malloc"]
    return int(statistics.median(rises)) if rises else None


# ---- §4 and §6: graphs against launches ------------------------------------------------------
@needs("sweep")
def eager_720(recs, _lab) -> dict:
    tax = sweep_tax_us(recs["sweep"])
    p = point(recs["sweep"], "eager", SEED_N, SEED_WORK_US)
    if p is None:
        return missing(f"the sweep has no eager point at N={SEED_N}, work {SEED_WORK_US:g} µs")
    seed_tax, seed_work = SEED_N * SEED_TAX_US, SEED_N * SEED_WORK_US
    overhead, work = p.launch_overhead_us, p.kernel_time_us
    measured = (f"{overhead:.0f} µs overhead vs {work:.0f} µs kernel work "
                f"({overhead / work:.1f}× the work; the seed: {seed_tax / seed_work:.0f}×)")
    holds = abs(overhead / seed_tax - 1) <= WITHIN
    per_kernel = overhead / SEED_N
    reason = (f"Within {WITHIN:.0%} of N × tax = {seed_tax:.0f} µs." if holds else
              f"{overhead / seed_tax:.1f}× the seed's {seed_tax:.0f} µs: each blocking launch cost "
              f"{per_kernel:.1f} µs, not just the {tax:.1f} µs tax, because the "
              f"host also waits a synchronize round trip after every kernel.")
    return row(measured, holds, reason, recs["sweep"])


@needs("sweep")
def graph_one_call(recs, _lab) -> dict:
    graphs = [p for p in recs["sweep"].points
              if p.mode == "graph" and not p.dynamic and p.driver_calls is not None]
    if not graphs:
        return missing("the sweep has no traced static-shape graph points")
    calls = sorted({p.driver_calls for p in graphs})
    copies = sorted({p.copy_calls or 0 for p in graphs})
    ns = sorted({p.n for p in graphs})
    measured = (f"driver calls per replayed step: {', '.join(map(str, calls))} over {len(graphs)} graph "
                f"points (N = {ns[0]}…{ns[-1]}), plus {either(copies)} {'copy' if max(copies) <= 1 else 'copies'} into the static input")
    holds = calls == [1]
    reason = ("One cudaGraphLaunch per step whatever N is; copying the input into the captured buffer "
              "is a separate call." if holds else "Some replayed steps made more than one launch call.")
    return row(measured, holds, reason, recs["sweep"])


@needs("sweep")
def streams_catch_graph(recs, _lab) -> dict:
    ratios = {}
    for w in (40, SEED_WORK_US):
        s, g = point(recs["sweep"], "streams", SEED_N, w), point(recs["sweep"], "graph", SEED_N, w)
        if s and g:
            ratios[w] = s.wall_us / g.wall_us
    if 40 not in ratios:
        return missing(f"the sweep has no streams and graph points at N={SEED_N}, work 40 µs")
    contrast = f" (at {SEED_WORK_US:g} µs work: {ratios[SEED_WORK_US]:.2f}×)" if SEED_WORK_US in ratios else ""
    holds = ratios[40] <= STREAMS_CLOSE_RATIO
    reason = ("The tax hides behind 40 µs kernels, so async launching is almost as good as a replay."
              if holds else f"Streams stay {ratios[40]:.2f}× slower than graph even with 40 µs of work.")
    return row(f"streams/graph wall = {ratios[40]:.2f}× at 40 µs work{contrast}", holds, reason, recs["sweep"])


@needs("decoder")
def decoder_2x(recs, _lab) -> dict:
    dec = recs["decoder"]
    v = {p["variant"]: p for p in dec.data["points"]}
    if "eager" not in v or "our_graph" not in v:
        return missing("the decoder recording lacks the eager or graph variant")
    eager, graph = v["eager"]["ms_per_token"], v["our_graph"]["ms_per_token"]
    speedup = eager / graph
    ro = v.get("reduce_overhead")
    ro_text = f"; reduce-overhead {ro['ms_per_token']:.2f} ms ({eager / ro['ms_per_token']:.1f}×)" if ro else ""
    measured = (f"decoder bench: eager {eager:.2f} → graph {graph:.2f} ms/token ({speedup:.1f}×), "
                f"{v['eager']['launches_per_token']:.0f} → {v['our_graph']['launches_per_token']:.0f} "
                f"kernel + graph launches/token{ro_text}")
    holds = _in(speedup, SEED_SPEEDUP_RANGE)
    graph_shown = f"{graph:.2f}"  # as printed above: the comparison is on this, so the words match it
    reason = (f"The replayed step ({graph_shown} ms) is {range_note(float(graph_shown), SEED_DECODER_GRAPH_MS)} "
              f"the seed's 0.4–0.5 ms, but eager was "
              f"{eager:.2f} ms, {eager / SEED_DECODER_EAGER_MS:.1f}× the seed's ≈{SEED_DECODER_EAGER_MS:g} ms (the seed's eager "
              f"step is its launch overhead, its 0.4 ms of kernels hidden underneath), so the speedup is {speedup:.1f}×"
              + (", in line with the seed's ≈2×." if holds else ", not ≈2×: this decoder is more launch-bound."))
    return row(measured, holds, reason, dec)


CHECKS = {
    "launch_tax": launch_tax, "eager_720": eager_720, "graph_one_call": graph_one_call,
    "streams_catch_graph": streams_catch_graph, "segments": segments, "decoder_2x": decoder_2x,
    "cudamalloc_cost": cudamalloc_cost, "kernels_per_token": kernels_per_token,
    "tiny_kernels": tiny_kernels, "pinned_overlap": pinned_overlap,
}
pinned_overlap.needs = ()
