"""Rows the AOT page shows: plain lists of dicts, built from measured or recorded results."""
from __future__ import annotations

from ..knobs import PYTORCH_EAGER_LABEL

COLDWARM_ROWS = (
    ("eager first call", "eager_first_call_s", "no compile at all"),
    ("torch.compile, cold cache", "compile_cold_s", "fresh process, empty TORCHINDUCTOR_CACHE_DIR"),
    ("torch.compile, warm cache", "compile_warm_s", "fresh process, the cache dir an earlier run filled"),
    ("torch.export", "export_s", "no seconds means the package came from .cache/aot/ and was not built again"),
    ("AOTInductor package", "aot_compile_s", "no seconds means the package came from .cache/aot/ and was not built again"),
    ("AOT load from Python (first)", "aot_load_python_s", "child process; includes lazy imports"),
    ("AOT load from Python (again)", "aot_load_python_again_s", "same child, the loader alone"),
    ("AOT load from C++", "aot_load_cpp_s", "no Python in the process"),
)


def coldwarm_rows(res: dict) -> list[dict]:
    """One row per measured step: what, seconds, and what the number includes."""
    rows = []
    for label, key, note in COLDWARM_ROWS:
        v = res.get(key)
        if key in PACKAGE_STEPS and res.get("package_cached") is not None:
            note = ("not run: this measurement reused the package already in its AOT cache"
                    if res["package_cached"] else "built in this measurement")
            if res["package_cached"]:
                v = None  # a step that did not run has no seconds ("—"), not 0 s, which reads as instant
        elif key in PACKAGE_STEPS and v is not None and float(v) == 0.0:
            v = None      # an older result without package_cached: its 0 s meant "not built again" too
        rows.append({"step": label, "seconds": None if v is None else round(float(v), 4), "note": note})
    return rows


PACKAGE_STEPS = ("export_s", "aot_compile_s")  # skipped when the package was already built


def coldwarm_problems(res: dict) -> list[str]:
    """Every error a step reported (a crashed loader is one of them), as one line each."""
    keys = ("eager_error", "compile_cold_error", "compile_warm_error", "package_error",
            "python_loader_error", "cpp_error")
    return [f"{k.replace('_error', '')}: {res[k]}" for k in keys if res.get(k)]


COUNTER_LABELS = (("fxgraph_cache_hit", "FX-graph cache hits"), ("fxgraph_cache_miss", "FX-graph cache misses"),
                  ("fxgraph_cache_bypass", "FX-graph cache bypasses"),
                  ("autograd_cache_hit", "AOTAutograd cache hits"), ("autograd_cache_miss", "AOTAutograd cache misses"))


def compile_stage_rows(res: dict) -> list[dict]:
    """One row per compile stage, as a tree (the stage column's prefix shows what runs inside
    what): seconds in the cold and the warm child, and what the warm start did with the stage
    (ran it again, or skipped it because a cache had the result). Seconds are inclusive: a
    stage contains the stages nested under it, so only siblings add up."""
    from .compile_stages import NOT_REPORTED, parents_in, tree_order
    cold = (res.get("compile_cold_detail") or {}).get("stages")
    warm = (res.get("compile_warm_detail") or {}).get("stages")
    cold_nest, warm_nest = parents_in(cold), parents_in(warm)
    rows = []
    for stage, prefix in tree_order(cold, warm):
        c, w = stage.seconds(cold), stage.seconds(warm)
        if cold is None or warm is None:
            verdict = NOT_REPORTED
        elif c is not None and w is not None:
            verdict = "ran again" + (f" ({_share_of_cold(w, c)})" if c > 0 else "")
            if warm_nest.get(stage.label) != cold_nest.get(stage.label) and warm_nest.get(stage.label):
                verdict += f", inside '{warm_nest[stage.label]}' this time"
        elif c is not None:
            verdict = "skipped: a cache had the result"
        elif w is not None:
            verdict = "only when warm: reading the caches"
        else:
            verdict = "did not run here"
        rows.append({"stage": prefix + stage.label + _also_inside(stage, cold_nest, warm_nest),
                     "cold s": _round(c), "warm s": _round(w), "on a warm start": verdict})
    return rows


def _share_of_cold(warm_s: float, cold_s: float) -> str:
    """A warm stage's time against its cold time, as a reader takes it in: "under 1%", "35%",
    "35× its cold time" (never "0%" for a stage that ran, nor "3464%")."""
    share = 100 * warm_s / cold_s
    if share < 1:
        return "under 1% of its cold time"
    if share >= 200:
        return f"{warm_s / cold_s:.0f}× its cold time"
    return f"{share:.0f}% of its cold time"


def _also_inside(stage, cold_nest: dict, warm_nest: dict) -> str:
    """For a stage whose timer ran, within one run, inside two of its declared parents (the C++
    compile runs during code generation and again when the generated module loads): the one it
    is not drawn under, so a child longer than its drawn parent does not read as a contradiction.
    A parent that is an ancestor or a descendant of the drawn one adds nothing: one holds the other."""
    shown = cold_nest.get(stage.label) or warm_nest.get(stage.label)

    def ancestors(label, nest):
        while (label := nest.get(label)) is not None:
            yield label
    others = []
    for nest in (cold_nest, warm_nest):
        ran = [p for p in stage.parents if p in nest]
        if stage.label in nest and len(ran) > 1:
            others += [p for p in ran if p != shown and p not in others and p not in ancestors(shown, nest)
                       and shown not in ancestors(p, nest)]  # nested either way: one holds the other
    if shown is None or not others:
        return ""
    return " (part of its seconds ran inside " + " and ".join(f"'{p}'" for p in others) + " instead)"


def compile_stage_problems(res: dict) -> list[str]:
    """Where the cold or the warm child's stage seconds contradict the stages' nesting."""
    from .compile_stages import nesting_problems
    return [line for run in ("cold", "warm")
            for line in nesting_problems((res.get(f"compile_{run}_detail") or {}).get("stages"), run)]


def cache_counter_rows(res: dict) -> list[dict]:
    """The compile caches' counters in the cold and the warm child, as text (a torch without a
    counter says so), and the autotuning results each cache dir held afterwards."""
    from .compile_stages import NOT_REPORTED
    details = {run: res.get(f"compile_{run}_detail") or {} for run in ("cold", "warm")}

    def show(run: str, group: str, key: str) -> str:
        values = details[run].get(group)
        return NOT_REPORTED if values is None or values.get(key) is None else str(values[key])
    rows = [{"counter": label, "cold": show("cold", "counters", key), "warm": show("warm", "counters", key)}
            for key, label in COUNTER_LABELS]
    rows.append({"counter": "autotuning results in the cache dir (.best_config files)",
                 **{run: NOT_REPORTED if d.get("autotune_best_configs") is None else str(d["autotune_best_configs"])
                    for run, d in details.items()}})
    rows.append({"counter": "FX-graph cache switched on (torch._inductor.config.fx_graph_cache)",
                 **{run: NOT_REPORTED if d.get("fx_graph_cache") is None else str(d["fx_graph_cache"])
                    for run, d in details.items()}})
    return rows


def _round(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


DECODER_VARIANT_LABELS = {"eager": PYTORCH_EAGER_LABEL, "our_graph": "our graph (runtime_core)",
                          "raw_graph": "raw graph (plain torch.cuda.graph)",
                          "reduce_overhead": "reduce-overhead"}


def decoder_rows(rec) -> list[dict]:
    """One row per decoder variant of a decoder Recording: ms/token, launches/token, speedup.
    The decoder's eager is PyTorch's own, asynchronous eager: labelled "PyTorch eager (async)"."""
    speed = rec.data["decoder"]["speedup_vs_eager"]
    return [{"variant": DECODER_VARIANT_LABELS.get(p["variant"], p["variant"].replace("_", " ")),
             "ms/token": round(p["ms_per_token"], 3),
             "kernel + graph launches/token": round(p["launches_per_token"], 1),
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


def serving_rows(res: dict) -> list[dict]:
    """One row per served request: the guard's verdict and what the ranged package's own input
    check says (the times are serving_time_rows', a second table: one is too wide for a phone)."""
    return [{"batch": r["batch"], "guard's verdict": r["verdict"],
             "the ranged package's own check, asked of this batch": r.get("package_check") or "accepts"} for r in res.get("rows", [])]


LOOP_TIMED = "the loop, per request: guard check, package call"
LOOP_PADDED = "the loop, per request: guard check, pad to {to}, package call"
GUARD_TIMED = "the loop's guard check alone (nothing runs)"


def serving_time_rows(res: dict) -> list[dict]:
    """Every time the serving measurement took, one row each, saying what it times: the loop
    per request, the guard check alone, one call of a package (from Python, or in the C++
    runner), or the C++ runner's whole process including its start. Columns: batch, timed,
    ms. Python's are medians of the plan's repeats, timed in turns (serving_plan.interleaved_ms)."""
    rows = []
    for r in res.get("rows", []):
        b = r["batch"]
        padded = r.get("padded_to") is not None and r.get("padded_to") != b
        cells = ((LOOP_PADDED.format(to=r["padded_to"]) if padded else LOOP_TIMED, r.get("served_ms")),
                 (GUARD_TIMED, r.get("guard_ms")),
                 (f"{r.get('served_by')}, one call at batch {r.get('padded_to')} (the padded request)",
                  r.get("padded_ms")),
                 (f"{_ranged()}, one call", r.get("ranged_ms")),
                 (f"exact package, batch {b}, one call", r.get("exact_ms")))
        rows += [{"batch": b, "timed": what, "ms": _ms(v)} for what, v in cells if v is not None]
    # by batch, as the Python rows are (a runner's rows keep their package order within one)
    for r in sorted(res.get("cpp", []), key=lambda r: r.get("batch") if isinstance(r.get("batch"), int) else 0):
        if r.get("error") or r.get("run_ms") is None:
            continue
        runs = f"median of {r['runs']}" if r.get("runs") else "median of the runner's timed calls"
        rows.append({"batch": r["batch"], "timed": f"C++ runner: {r['package']}, one call ({runs})",
                     "ms": _ms(r["run_ms"])})
        if r.get("process_ms") is not None:
            calls = f"{r['runs'] + 1} calls" if r.get("runs") else "its calls"
            rows.append({"batch": r["batch"], "timed": f"C++ runner process, {r['package']}: start, load, "
                         f"{calls}, exit", "ms": _ms(r["process_ms"])})
    return rows


# How far a time may fall below a time it contains before the two contradict each other: the
# noise of two medians taken in turns on a shared 2-core machine (see timing_contradictions).
CONTAINS_SLACK = 0.10
# The C++ runner calls the same compiled kernels as Python, minus Python's call overhead: one
# call may not take more than this many times Python's one call of the same package and size.
CPP_OVER_PYTHON_MAX = 3.0


def timing_contradictions(res: dict) -> list[str]:
    """Every pair of times in `res` (a serving measurement or recording) that contradict each
    other, one line each; [] when the table is consistent:

    - the loop per request contains the package call it dispatched to (the ranged or exact
      package at the request's size, or at its padded size) and its own guard check: it may not
      be faster than either, beyond CONTAINS_SLACK of the call;
    - the C++ runner's one call runs the same kernels as Python's one call of that package at
      that size: it may not be more than CPP_OVER_PYTHON_MAX times slower;
    - the runner's process contains its load and its calls: it may not be shorter than the load
      plus one call.
    """
    out = []
    rows = {r["batch"]: r for r in res.get("rows", [])}
    for b, r in rows.items():
        served = r.get("served_ms")
        if served is None:
            continue
        if r.get("padded_to") is not None:
            inner, what = r.get("padded_ms"), f"one call of the {r.get('served_by')} at batch {r['padded_to']}"
        elif (r.get("served_by") or "").startswith("ranged"):
            inner, what = r.get("ranged_ms"), f"one call of the {_ranged()}"
        else:
            inner, what = r.get("exact_ms"), f"one call of the exact batch-{b} package"
        if inner is not None and served < inner * (1 - CONTAINS_SLACK):
            out.append(f"batch {b}: the loop per request ({served:.4g} ms) is faster than {what} it "
                       f"contains ({inner:.4g} ms)")
        guard = r.get("guard_ms")
        if guard is not None and served < guard:
            out.append(f"batch {b}: the loop per request ({served:.4g} ms) is faster than its own guard check "
                       f"({guard:.4g} ms)")
    for c in res.get("cpp", []):
        if c.get("error") or c.get("run_ms") is None:
            continue
        b, ranged = c["batch"], c["package"].startswith("ranged")
        py = (rows.get(b) or {}).get("ranged_ms" if ranged else "exact_ms")
        if py is not None and c["run_ms"] > CPP_OVER_PYTHON_MAX * py:
            out.append(f"batch {b}: the C++ runner's one call of the {c['package']} ({c['run_ms']:.4g} ms) is "
                       f"{c['run_ms'] / py:.0f} times Python's one call of it ({py:.4g} ms)")
        if c.get("process_ms") is not None and c.get("load_s") is not None \
                and c["process_ms"] < 1e3 * c["load_s"] + c["run_ms"]:
            out.append(f"batch {b}: the C++ runner's process ({c['process_ms']:.4g} ms) is shorter than its load "
                       f"and one call ({1e3 * c['load_s'] + c['run_ms']:.4g} ms)")
    return out


def _ranged() -> str:
    from .serving_plan import ranged_name
    return ranged_name()


def serving_cpp_rows(res: dict) -> list[dict]:
    """The C++ runner's runs: package, batch, whether the package checked its input, what became
    of the request, load s and matches eager (its times are serving_time_rows'). The runner's
    error lines are serving_cpp_errors' (too long for a table column on a projector)."""
    return [{"package": r["package"], "batch": r["batch"], "result": _cpp_result(r),
             "load s": None if r.get("load_s") is None else round(r["load_s"], 4),
             "matches eager": r.get("matches_reference")}
            for r in res.get("cpp", [])]


def serving_cpp_errors(res: dict) -> list[str]:
    """One line per C++ run that did not run: which package at which batch, and the runner's words."""
    return [f"{r['package']} at batch {r['batch']}, in the runner's own words: {r['error']}"
            for r in res.get("cpp", []) if r.get("error")]


def _cpp_result(r: dict) -> str:
    """'ran' or 'failed', with whether the package's own input check was on; a run that check
    refused says 'refused by its check: outside batch 2..64' (a package's range is in its name;
    on CUDA the C++ runner's last message can be a generic one)."""
    from .export import BATCH_MAX, BATCH_MIN
    checked = r.get("input_check") == "on"
    if not r.get("error"):
        return "ran (check on)" if checked else "ran (check off)"
    if checked and r["package"].startswith("ranged") and not BATCH_MIN <= r["batch"] <= BATCH_MAX:
        return f"refused by its check: outside batch {BATCH_MIN}..{BATCH_MAX}"
    return "failed (check on)" if checked else "failed (check off)"


def python_loader_note(res: dict) -> str | None:
    """A sentence for a results dict (cold/warm or serving) whose Python loader crashed, or None."""
    serving = "errors" in res  # serving results list their problems; cold/warm ones name each step's
    crashed = res.get("python_loader_crashed") or split_crashes(res.get("errors", []))[0]
    if not crashed:
        return None
    where = ", ".join(x for x in (res.get("device_name"), f"torch {res['torch_version']}"
                                  if res.get("torch_version") else "") if x)
    head = (f"On the machine that measured these numbers ({where}) the Python loader, "
            "torch._inductor.aoti_load_package, crashed (SIGSEGV) in its child process. ")
    if serving:
        return head + ("No request was served from Python: the C++ runner loaded the same packages with no "
                       "Python in the process (the serving path the lesson describes), and its rows are the "
                       "measurement.")
    # an older result has no package_cached: there 0 s meant "not built again" (coldwarm_rows reads it so too)
    cached = res.get("package_cached")
    if cached is None:
        cached = any(res.get(k) is not None and float(res[k]) == 0.0 for k in PACKAGE_STEPS)
    compiled = ("The export and package rows were not timed: that run reused the package already in its AOT "
                "cache." if cached else "The compile rows ran in Python as usual.")
    return head + ("The package was loaded and checked against eager from C++ only: the row 'AOT load from "
                   "C++'. ") + compiled


def split_crashes(lines: list[str]) -> tuple[list[str], list[str]]:
    """(a child's crash reports, every other problem line): a crash that python_loader_note
    explains is shown with it, not as an unexplained error."""
    crashes = [ln for ln in lines if "crashed" in ln]
    return crashes, [ln for ln in lines if ln not in crashes]


def outputs_line(res: dict) -> str:
    """Whether the Python and the C++ loader's outputs match eager, saying which ran at all."""
    def one(name: str, ran: bool, ok, err) -> str:
        if not ran:
            return f"{name}: not run"
        return f"{name}: {'matches' if ok else 'does NOT match'} eager (max abs error {_g(err)})"
    py_ran = res.get("aot_load_python_s") is not None
    cpp_ran = res.get("aot_load_cpp_s") is not None
    return "; ".join((one("Python", py_ran, res.get("python_output_matches"), res.get("python_max_abs_err")),
                      one("C++", cpp_ran, res.get("cpp_output_matches"), res.get("cpp_max_abs_err")))) + "."


def _g(v) -> str:
    """A number to 3 significant digits; anything else as it is (a results file can be damaged)."""
    if v is None:
        return "unknown"
    try:
        return f"{float(v):.3g}"
    except (TypeError, ValueError):
        return str(v)


def unchecked_line(res: dict) -> str | None:
    """One sentence on the exact-shape package called at another size with no check, or None."""
    u = res.get("unchecked")
    if not u:
        return None
    batch = u.get("batch") or ((res.get("plan") or {}).get("unchecked") or [None, None])[1]
    head = f"The exact batch-{u['package_batch']} package, called at batch {batch} with its input check off"
    if u.get("error") and not u.get("ran"):
        return f"{head}, failed: {u['error']}"
    if u.get("max_abs_err") is None:
        return f"{head}, ran without an error and returned shape {u.get('output_shape')}."
    wrong = u.get("rows_wrong") or 0
    return (f"{head}, ran without an error: {wrong} of {u['batch']} output rows are wrong (max error "
            f"{u['max_abs_err']:.3g} against eager). Nothing checked the size, so its fixed-size kernels "
            "ran on a tensor of another shape.") if wrong else f"{head}, ran without an error and matched eager."


def _ms(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)
