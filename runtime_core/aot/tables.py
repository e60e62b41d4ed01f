"""Rows the AOT page shows: plain lists of dicts, built from measured or recorded results."""
from __future__ import annotations

from ..knobs import PYTORCH_EAGER_LABEL

COLDWARM_ROWS = (
    ("eager first call", "eager_first_call_s", "no compile at all"),
    ("torch.compile, cold cache", "compile_cold_s", "fresh process, empty TORCHINDUCTOR_CACHE_DIR"),
    ("torch.compile, warm cache", "compile_warm_s", "fresh process, the cache dir an earlier run filled"),
    ("torch.export", "export_s", "0 when the package came from .cache/aot/"),
    ("AOTInductor package", "aot_compile_s", "0 when the package came from .cache/aot/"),
    ("AOT load from Python (first)", "aot_load_python_s", "child process; includes lazy imports"),
    ("AOT load from Python (again)", "aot_load_python_again_s", "same child, the loader alone"),
    ("AOT load from C++", "aot_load_cpp_s", "no Python in the process"),
)


def coldwarm_rows(res: dict) -> list[dict]:
    """One row per measured step: what, seconds, and what the number includes."""
    rows = []
    for label, key, note in COLDWARM_ROWS:
        v = res.get(key)
        rows.append({"step": label, "seconds": None if v is None else round(float(v), 4), "note": note})
    return rows


def coldwarm_problems(res: dict) -> list[str]:
    """Every error a step reported (a crashed loader is one of them), as one line each."""
    keys = ("eager_error", "compile_cold_error", "compile_warm_error", "package_error",
            "python_loader_error", "cpp_error")
    return [f"{k.replace('_error', '')}: {res[k]}" for k in keys if res.get(k)]


DECODER_VARIANT_LABELS = {"eager": PYTORCH_EAGER_LABEL, "our_graph": "our graph", "raw_graph": "raw graph",
                          "reduce_overhead": "reduce-overhead"}


def decoder_rows(rec) -> list[dict]:
    """One row per decoder variant of a decoder Recording: ms/token, launches/token, speedup.
    The decoder's eager is PyTorch's own, asynchronous eager: labelled "PyTorch eager (async)"."""
    speed = rec.data["decoder"]["speedup_vs_eager"]
    return [{"variant": DECODER_VARIANT_LABELS.get(p["variant"], p["variant"].replace("_", " ")),
             "ms/token": round(p["ms_per_token"], 3),
             "launches/token": round(p["launches_per_token"], 1),
             f"speedup vs {PYTORCH_EAGER_LABEL}": round(speed.get(p["variant"], float("nan")), 2)}
            for p in rec.data["points"]]


def reduce_overhead_rows(ro: dict) -> list[dict]:
    """What cudagraph trees did in each reduce-overhead experiment."""
    rows = []
    for name, what in (("decoder", "decoder step, pos varies, then batch 2 and 4"),
                       ("graph_break", "two halves around a graph break"),
                       ("cpu_island", "region copies a result to the CPU")):
        r = ro.get(name)
        if r:
            rows.append({"experiment": what, "recordings (batch 1)": r.get("recordings_batch1_all_positions"),
                         "recordings (all)": r.get("recordings_total"),
                         "skips": r.get("cudagraph_skips"), "ms/token": round(r.get("ms_per_token", float("nan")), 3)})
    return rows
