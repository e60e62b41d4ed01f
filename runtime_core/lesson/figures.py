"""Figures in the lesson's prose: template fields filled from the shipped recordings, citations,
and the check that no figure is typed in by hand.

A *figure* is a number with a unit: µs, ms, s, MB, MiB, GiB, KiB, %, x or × (also ns, us, GB, KB,
kB, B, bytes, and the words seconds / milliseconds / microseconds / minutes). In lessons/*.md and
in the text fields of lessons/*.json, every figure is one of:

    {{name}}    a template field: FIGURES[name] computes it, at render, from a shipped recording
                (lessons/recordings/) or from the textbook model. E.g. {{decoder.eager_ms_per_token}}
                renders "6.5 ms". An unknown name, a recording that is not shipped, or a value the
                recording lacks renders NOT_RECORDED, never an exception. Values a recording holds
                as 0 where 0 means "this calibration predates the constant" render UNMEASURED.
    a figure in a sentence that carries a citation tag, e.g. "[seed]" or "[pytorch-source]"
                (the keys of CITATIONS): the tag vouches for every figure of its sentence and is
                rendered as a small source marker. A sentence ends at ". ", "! " or "? ", at a line
                break, or at a table cell's "|".

`render(text)` fills the fields and turns tags into markers; `typed_figures(text)` lists the
figures that are neither (tests/test_prose_figures.py runs it over every lesson file). LaTeX math
is not skipped: `$...$` is read as text after `\\times` becomes ×, so math cannot hide a figure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from . import experiment_figures as xf

NOT_RECORDED = "(not recorded)"
UNMEASURED = "(not measured in this recording)"

CITATIONS = {
    "seed": "the seed lesson this app teaches (its numbers, quoted)",
    "pytorch-source": "PyTorch's source (c10/cuda/CUDACachingAllocator.cpp): a constant of the allocator",
    "example": "an illustrative number, not a measurement",
    "dev-machine": "measured on the 2-core development machine (CPU only), not on a GPU",
}
FIELD = re.compile(r"\{\{\s*([A-Za-z0-9_.]+)\s*\}\}")
CITE = re.compile(r"\s?\[(" + "|".join(re.escape(k) for k in CITATIONS) + r")\](?!\()")


# ---- named figures ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    """One named figure: which recording kind it reads (None: no recording, e.g. the textbook
    model), how to get the number from it, and how to print it (format spec and unit)."""

    kind: str | None
    get: Callable
    fmt: str = ".1f"
    unit: str = ""
    zero_means_unmeasured: bool = False

    def text(self, value: float) -> str:
        number = format(value, self.fmt)
        if not self.unit:
            return number
        return f"{number}{self.unit}" if self.unit in ("×", "%") else f"{number} {self.unit}"


def _dec(variant: str, key: str):
    return lambda rec: rec.data["decoder"]["variants"][variant][key]


def _speedup(variant: str):
    return lambda rec: rec.data["decoder"]["speedup_vs_eager"][variant]


def _alloc(name: str):
    return lambda rec: rec.labs["alloc"]["allocators"][name]["alloc_free_us"]


def _cal(name: str):
    return lambda rec: getattr(rec.meta.calibration, name)


def _point(mode: str, n: int, work: float, key: str, per: int = 1):
    """A sweep point's `key` (divided by `per`): static shapes, no extra tax, copy path, Python launcher."""
    def get(rec):
        for p in rec.points:
            if (p.mode, p.n, p.work_us, p.dynamic, p.extra_tax_us) == (mode, n, work, False, 0) \
                    and p.graph_input == "copy" and p.launcher in (None, "python"):
                return getattr(p, key) / per
        return None
    return get


def _ratio(a: tuple, b: tuple):
    def get(rec):
        x, y = _point(*a, "wall_us")(rec), _point(*b, "wall_us")(rec)
        return None if x is None or not y else x / y
    return get


def _eager_per_kernel(bound: str):
    """Lowest or highest eager µs per kernel at N=120 over the small works (0..2 µs)."""
    def get(rec):
        vals = [v for w in (0, 1, 2) if (v := _point("eager", 120, w, "wall_us", per=120)(rec)) is not None]
        return (min if bound == "lo" else max)(vals) if vals else None
    return get


def _recapture_ms(rec):
    for p in rec.points:
        s = getattr(p, "graph_stats", None)
        if p.n == 120 and getattr(p, "policy", None) == "recapture" and s and s.get("captures"):
            return s["capture_us"] / s["captures"] / 1000.0
    return None


def _textbook(mode: str, metric: str, work: float = 2.0):
    def get(_rec):
        from ..knobs import SEED_N, SEED_TAX_US, Knobs
        from ..model.formulas import predict
        return predict(Knobs(mode, SEED_N, work, tax_us=SEED_TAX_US)).metrics()[metric]
    return get


def _launches_per_layer(rec):
    """The recorded decoder's eager launches per token over its layers."""
    return _dec("eager", "launches_per_token")(rec) / rec.data["decoder"]["config"]["layers"]


def _dispatch_ms_at_seed_tax(rec):
    """The recorded decoder's eager launches per token × the seed's launch tax, in ms."""
    from ..knobs import SEED_TAX_US
    return _dec("eager", "launches_per_token")(rec) * SEED_TAX_US / 1000.0


def _catch_up_pct() -> float:
    from .checkpoint import CATCH_UP_TOLERANCE
    return 100.0 * CATCH_UP_TOLERANCE


def _stale_err(rec):
    return rec.data["decoder"]["stale_input"]["fresh_tensor_max_abs_err"]


def _sim_driver_call_us() -> float:
    from ..recordings.shipped import shipped_driver_call_us
    return shipped_driver_call_us()


def _lab(name: str, *keys: str):
    """A field of lab `name` in the labs recording (rec.labs[name][k1][k2]...)."""
    def get(rec):
        v = rec.labs[name]
        for k in keys:
            v = v[k]
        return v
    return get


def _speedup_threshold() -> float:
    from ..diagnose.predict import SPEEDUP_THRESHOLD
    return SPEEDUP_THRESHOLD


FIGURES: dict[str, Figure] = {
    # the shipped decoder recording (decoder_*.json): one token per step, 12 layers, width 256
    "decoder.eager_ms_per_token": Figure("decoder", _dec("eager", "ms_per_token"), ".1f", "ms"),
    "decoder.eager_launches_per_token": Figure("decoder", _dec("eager", "launches_per_token"), ".0f"),
    "decoder.eager_launches_per_layer": Figure("decoder", _launches_per_layer, ".0f"),
    "decoder.our_graph_ms_per_token": Figure("decoder", _dec("our_graph", "ms_per_token"), ".2f", "ms"),
    "decoder.raw_graph_ms_per_token": Figure("decoder", _dec("raw_graph", "ms_per_token"), ".2f", "ms"),
    "decoder.reduce_overhead_ms_per_token": Figure("decoder", _dec("reduce_overhead", "ms_per_token"), ".2f", "ms"),
    "decoder.our_graph_launches_per_token": Figure("decoder", _dec("our_graph", "launches_per_token"), ".0f"),
    "decoder.reduce_overhead_launches_per_token": Figure("decoder", _dec("reduce_overhead", "launches_per_token"), ".0f"),
    "decoder.our_graph_speedup": Figure("decoder", _speedup("our_graph"), ".1f", "×"),
    "decoder.reduce_overhead_speedup": Figure("decoder", _speedup("reduce_overhead"), ".1f", "×"),
    "decoder.stale_input_max_error": Figure("decoder", _stale_err, ".2f"),
    "decoder.eager_dispatch_ms_at_seed_tax": Figure("decoder", _dispatch_ms_at_seed_tax, ".1f", "ms"),
    # the shipped allocator recording (alloc_*.json): one 1 MiB alloc+free pair, timed from Python
    "labs.sync_step_us": Figure("labs", lambda rec: rec.labs["sync"]["step_us"], ".1f", "µs"),
    "labs.sync_step_with_sync_us": Figure("labs", lambda rec: rec.labs["sync"]["step_with_sync_us"], ".1f", "µs"),
    "labs.storm_captures": Figure("labs", lambda rec: rec.labs["storm"]["calls"], ".0f"),
    "labs.storm_shapes": Figure("labs", lambda rec: rec.labs["storm"]["shapes"], ".0f"),
    "sweep.graph_us_per_node_at_1000": Figure("sweep", _point("graph", 1000, 0, "wall_us", per=1000), ".2f", "µs"),
    "aot.cpp_load_ms": Figure("aot", lambda rec: rec.data["aot"]["aot_load_cpp_s"] * 1000, ".1f", "ms"),
    # the shipped machine-class timing (aot_timing_*.json): the AOT page's buttons, each from an empty cache
    "aot_timing.cores": Figure("aot_timing", lambda rec: rec.data["timing"]["cores"], ".0f"),
    **{f"aot_timing.{key}": Figure("aot_timing", (lambda key: lambda rec: rec.data["timing"][key])(key), ".0f", "s")
       for key in ("serve_cold_s", "serve_warm_s", "prebuild_s", "serve_after_prebuild_s", "measure_cold_s",
                   "measure_warm_s")},
    "diagnose.decoder_b1_compile_speedup": Figure("diagnose", xf.diagnose_variant_speedup("decoder", 1, "compile"), ".1f", "×"),
    "diagnose.decoder_b1_reduce_overhead_speedup": Figure(
        "diagnose", xf.diagnose_variant_speedup("decoder", 1, "reduce_overhead"), ".1f", "×"),
    "labs.overlap_copy_mib": Figure("labs", lambda rec: rec.labs["overlap"]["copy_bytes"] / (1 << 20), ".0f", "MiB"),
    "labs.overlap_pinned_added_us": Figure("labs", lambda rec: rec.labs["overlap"]["pinned_added_us"], ".0f", "µs"),
    "labs.overlap_pageable_added_ms": Figure("labs", lambda rec: rec.labs["overlap"]["pageable_added_us"] / 1000, ".2f", "ms"),
    # the four torch-level labs (issue 28), merged into labs_h200.json by tests/gpu_runs/merge_labs28.py
    "labs.partial_capture_eager_us": Figure("labs", _lab("partial_capture", "eager_us"), ".0f", "µs"),
    "labs.partial_capture_partial_us": Figure("labs", _lab("partial_capture", "partial_us"), ".0f", "µs"),
    "labs.partial_capture_whole_fixed_us": Figure("labs", _lab("partial_capture", "whole_fixed_us"), ".0f", "µs"),
    "labs.partial_capture_launches_removed": Figure("labs", _lab("partial_capture", "launches_removed"), ".0f"),
    "labs.training_step_eager_us": Figure("labs", _lab("training_step", "eager_step_us"), ".0f", "µs"),
    "labs.training_step_graph_us": Figure("labs", _lab("training_step", "graph_step_us"), ".0f", "µs"),
    "labs.training_step_speedup": Figure("labs", _lab("training_step", "speedup"), ".1f", "×"),
    "labs.graph_rng_replays": Figure("labs", _lab("graph_rng", "in_graph", "replays"), ".0f"),
    "labs.graph_rng_in_graph_distinct": Figure("labs", _lab("graph_rng", "in_graph", "distinct_masks"), ".0f"),
    "labs.graph_rng_host_distinct": Figure("labs", _lab("graph_rng", "host_mask", "distinct_masks"), ".0f"),
    "labs.d2h_trials": Figure("labs", _lab("d2h_hazard", "trials"), ".0f"),
    "labs.d2h_early_stale": Figure("labs", _lab("d2h_hazard", "stale", "early"), ".0f"),
    "labs.d2h_event_stale": Figure("labs", _lab("d2h_hazard", "stale", "event"), ".0f"),
    "labs.d2h_priority_high_us": Figure("labs", _lab("d2h_hazard", "priority", "high_us"), ".0f", "µs"),
    "labs.d2h_priority_normal_us": Figure("labs", _lab("d2h_hazard", "priority", "normal_us"), ".0f", "µs"),
    "labs.d2h_priority_measurable": Figure("labs", _lab("d2h_hazard", "priority_measurable"), ".0f"),
    "alloc.pair_size_mib": Figure("alloc", lambda rec: rec.labs["alloc"]["size_bytes"] / (1 << 20), ".0f", "MiB"),
    "alloc.raw_pair_us": Figure("alloc", _alloc("raw"), ".0f", "µs"),
    "alloc.torch_pair_us": Figure("alloc", _alloc("torch"), ".1f", "µs"),
    "alloc.our_pool_pair_us": Figure("alloc", _alloc("caching_pool"), ".1f", "µs"),
    "alloc.plan_arena_us": Figure("alloc", _alloc("plan_arena"), ".2f", "µs"),
    # the shipped diagnose recording (diagnose_*.json): its longest torch.compile set-up
    "diagnose.compile_setup_s": Figure("diagnose", lambda rec: max(
        (v["setup_s"] for pt in rec.data["points"] for name, v in (pt.get("variants") or {}).items()
         if name in ("compile", "reduce_overhead") and v.get("setup_s")), default=None), ".0f", "s"),
    # the simulator's own parameters (engine/sim/params.py)
    "sim.driver_call_us": Figure(None, lambda _rec: _sim_driver_call_us(), ".0f", "µs"),
    # the shipped sweep (sweep_*.json): its calibrated constants and its points
    "sweep.tax_us": Figure("sweep", lambda rec: rec.meta.intrinsic_tax_us, ".1f", "µs"),
    "sweep.sync_us": Figure("sweep", _cal("sync_us"), ".1f", "µs"),
    "sweep.graph_launch_us": Figure("sweep", _cal("graph_launch_us"), ".1f", "µs"),
    "sweep.node_gap_us": Figure("sweep", _cal("node_gap_us"), ".2f", "µs", zero_means_unmeasured=True),
    "sweep.stream_gap_us": Figure("sweep", _cal("stream_gap_us"), ".2f", "µs", zero_means_unmeasured=True),
    "sweep.graph_upload_us": Figure("sweep", _cal("graph_upload_us"), ".1f", "µs", zero_means_unmeasured=True),
    "sweep.fixed_us": Figure("sweep", _cal("fixed_us"), ".1f", "µs"),
    "sweep.graph_launch_per_node_us": Figure("sweep", _cal("graph_launch_per_node_us"), ".4f", "µs"),
    "sweep.graph_upload_per_node_us": Figure("sweep", _cal("graph_upload_per_node_us"), ".2f", "µs"),
    **{f"sweep.graph_launch_us_at_{n}": Figure("sweep", xf.graph_launch_at(n), ".1f", "µs") for n in (1, 10, 120, 1000)},
    "sweep.node_gap_profiler_us": Figure("sweep", xf.gap_reading("node", "profiler_us"), ".2f", "µs"),
    "sweep.stream_gap_profiler_us": Figure("sweep", xf.gap_reading("stream", "profiler_us"), ".2f", "µs"),
    "sweep.driver_launch_us": Figure("sweep", xf.driver_launch_us, ".1f", "µs"),
    "sweep.eager_floor_us": Figure("sweep", _cal("eager_floor_us"), ".1f", "µs"),
    "sweep.kernel_floor_us": Figure("sweep", _cal("kernel_floor_us"), ".2f", "µs"),
    "sweep.eager_us_per_kernel_lo": Figure("sweep", _eager_per_kernel("lo"), ".0f", "µs"),
    "sweep.eager_us_per_kernel_hi": Figure("sweep", _eager_per_kernel("hi"), ".0f", "µs"),
    "sweep.eager_overhead_ms_at_seed": Figure(
        "sweep", lambda rec: (v / 1000.0 if (v := _point("eager", 120, 2, "launch_overhead_us")(rec)) else None),
        ".1f", "ms"),
    "sweep.eager_wall_ms_at_seed": Figure(
        "sweep", lambda rec: (v / 1000.0 if (v := _point("eager", 120, 2, "wall_us")(rec)) else None), ".1f", "ms"),
    "sweep.eager_us_per_kernel_at_seed": Figure("sweep", _point("eager", 120, 2, "wall_us", per=120), ".0f", "µs"),
    "sweep.eager_kernel_us_at_seed": Figure("sweep", _point("eager", 120, 2, "kernel_time_us"), ".0f", "µs"),
    "sweep.graph_wall_us_at_seed": Figure("sweep", _point("graph", 120, 2, "wall_us"), ".0f", "µs"),
    "sweep.graph_overhead_us_at_seed": Figure("sweep", _point("graph", 120, 2, "launch_overhead_us"), ".1f", "µs"),
    "sweep.streams_over_graph_at_seed": Figure("sweep", _ratio(("streams", 120, 2), ("graph", 120, 2)), ".1f", "×"),
    "sweep.streams_over_graph_at_40": Figure("sweep", _ratio(("streams", 120, 40), ("graph", 120, 40)), ".2f", "×"),
    "sweep.recapture_ms_per_capture": Figure("sweep", _recapture_ms, ".1f", "ms"),
    # the seed's textbook model at the seed's defaults (N=120, tax 6 µs, work 2 µs unless named)
    "diagnose.speedup_threshold": Figure(None, lambda _rec: _speedup_threshold(), ".1f", "×"),
    "diagnose.node_cost_configs": Figure("node_costs", lambda rec: rec.data["derived"]["configs"], ".0f"),
    "diagnose.node_cost_median_us": Figure("node_costs", lambda rec: rec.data["derived"]["median_extra_us"], ".2f", "µs"),
    "diagnose.node_cost_spread_us": Figure("node_costs", lambda rec: rec.data["derived"]["spread_us"], ".2f", "µs"),
    "textbook.eager_wall_us": Figure(None, _textbook("eager", "wall_us"), ".0f", "µs"),
    "textbook.eager_overhead_us": Figure(None, _textbook("eager", "launch_overhead_us"), ".0f", "µs"),
    "textbook.kernel_work_us": Figure(None, _textbook("eager", "kernel_work_us"), ".0f", "µs"),
    "textbook.streams_wall_us": Figure(None, _textbook("streams", "wall_us"), ".0f", "µs"),
    "textbook.streams_overhead_us": Figure(None, _textbook("streams", "launch_overhead_us"), ".0f", "µs"),
    "textbook.graph_wall_us": Figure(None, _textbook("graph", "wall_us"), ".0f", "µs"),
    "textbook.graph_overhead_us": Figure(None, _textbook("graph", "launch_overhead_us"), ".0f", "µs"),
    "textbook.eager_wall_us_at_40": Figure(None, _textbook("eager", "wall_us", 40.0), ".0f", "µs"),
    "textbook.streams_wall_us_at_40": Figure(None, _textbook("streams", "wall_us", 40.0), ".0f", "µs"),
    "textbook.graph_wall_us_at_40": Figure(None, _textbook("graph", "wall_us", 40.0), ".0f", "µs"),
    # the checkpoint's own criterion (runtime_core/lesson/checkpoint.py)
    "checkpoint.catch_up_tolerance": Figure(None, lambda _rec: _catch_up_pct(), ".0f", "%"),
}


def shipped_recordings() -> dict:
    """{kind: the best shipped Recording or None} for the kinds FIGURES reads."""
    from ..recordings import store
    out = {}
    for kind in {f.kind for f in FIGURES.values() if f.kind}:
        try:
            out[kind] = store.best(kind)
        except Exception:  # a broken recordings folder must not take the prose down
            out[kind] = None
    return out


def value(name: str, recs: dict | None = None) -> float | None:
    """The number behind field `name`, or None where it is unknown or not recorded."""
    fig = FIGURES.get(name)
    if fig is None:
        return None
    recs = shipped_recordings() if recs is None else recs
    rec = recs.get(fig.kind) if fig.kind else None
    if fig.kind and rec is None:
        return None
    try:
        v = fig.get(rec)
        return None if v is None else float(v)
    except (KeyError, AttributeError, TypeError, IndexError, ZeroDivisionError, ValueError):
        return None  # ValueError: a recording holding text where a number belongs


def field_text(name: str, recs: dict | None = None) -> str:
    """Field `name` as it renders: "6.5 ms", NOT_RECORDED or UNMEASURED."""
    fig = FIGURES.get(name)
    v = value(name, recs)
    if fig is None or v is None:
        return NOT_RECORDED
    if v == 0 and fig.zero_means_unmeasured:
        return UNMEASURED
    return fig.text(v)


# ---- rendering -------------------------------------------------------------------------------
def render(text: str, recs: dict | None = None, markdown: bool = True) -> str:
    """Fill every {{field}} and turn every citation tag into a small marker (Streamlit Markdown
    when `markdown`, plain "(seed)" otherwise). Never raises on an unknown field."""
    if "{{" in text:
        recs = shipped_recordings() if recs is None else recs
        text = FIELD.sub(lambda m: field_text(m.group(1), recs), text)
    marker = (lambda key: f" :gray[‹{key}›]") if markdown else (lambda key: f" ({key})")
    return CITE.sub(lambda m: marker(m.group(1)), text)


def citation_legend() -> str:
    """One line per citation tag, for a page footer."""
    return "\n".join(f"- ‹{k}›: {v}" for k, v in CITATIONS.items())


# ---- the check -------------------------------------------------------------------------------
_NUM = r"\d+(?:[.,]\d+)*"
_UNIT = (r"(?:µs|us|ns|ms|s|sec|seconds?|milliseconds?|microseconds?|minutes?|MB|MiB|GB|GiB|KB|kB|KiB|B|bytes"
         r"|%|x|×)")
FIGURE_RE = re.compile(
    r"(?<![\w.])[~≈<>±]?\s?" + _NUM + r"(?:\s?(?:–|-|to)\s?" + _NUM + r")?"   # 5, ≈1.5, 5–25, 2 to 3
    + r"\s?" + _UNIT
    + r"(?![\w])(?!\s?[\d$(])")   # "µs" not "µsec…"; "3 × 4" and "0x7F" are not figures
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n|\|")


def _as_text(text: str) -> str:
    """LaTeX math read as plain text: `$120 \\times 6 = 720$ µs` -> `120 × 6 = 720 µs`."""
    text = re.sub(r"\\times", "×", text)
    text = re.sub(r"\\text\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    return text.replace("$", "")


def typed_figures(text: str) -> list[str]:
    """The figures in `text` that are neither a template field nor in a sentence with a citation
    tag (see the module docstring). Each hit is returned with its sentence, shortened."""
    text = FIELD.sub(" FIELD ", _as_text(text))
    hits = []
    for sentence in SENTENCE_END.split(text):
        if CITE.search(sentence):
            continue
        for m in FIGURE_RE.finditer(sentence):
            hits.append(f"{m.group(0).strip()!r} in: {sentence.strip()[:160]}")
    return hits


def text_fields(data) -> list[str]:
    """Every string value in a parsed JSON document (the prose a lesson JSON file holds)."""
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in text_fields(v)]
    if isinstance(data, list):
        return [s for v in data for s in text_fields(v)]
    return []


def lesson_files(lessons_dir) -> list:
    """The lesson's prose files: lessons/*.md and lessons/*.json (not the recordings)."""
    from pathlib import Path
    folder = Path(lessons_dir)
    return sorted(folder.glob("*.md")) + sorted(folder.glob("*.json"))


def violations(lessons_dir) -> list[str]:
    """Every typed figure (no template field, no citation) in the lesson files of `lessons_dir`,
    as "file: figure in: sentence"."""
    import json
    out = []
    for path in lesson_files(lessons_dir):
        text = path.read_text(encoding="utf-8")
        texts = text_fields(json.loads(text)) if path.suffix == ".json" else [text]
        out += [f"{path.name}: {hit}" for t in texts for hit in typed_figures(t)]
    return out


def fields_used(lessons_dir) -> dict[str, list[str]]:
    """{field name: [files using it]} over the lesson files."""
    used: dict[str, list[str]] = {}
    for path in lesson_files(lessons_dir):
        for name in FIELD.findall(path.read_text(encoding="utf-8")):
            used.setdefault(name, []).append(path.name)
    return used
