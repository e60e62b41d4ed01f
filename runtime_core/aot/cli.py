"""`python -m runtime_core aot ...`: the AOT and serving lesson from the command line.

    aot [--device cpu|cuda] [--json] [--record PATH [--force]]
        export -> AOTInductor package -> load from Python (child) and C++; cold vs warm compile.
        Prints compile_cold_s, compile_warm_s, aot_load_python_s, aot_load_cpp_s, outputs_match, ...
    aot decoder [--tokens N] [--blocks B] [--no-reduce-overhead] [--json] [--record PATH]   (GPU)
        eager vs our graph vs raw torch.cuda.graph vs reduce-overhead; stale-input demo;
        the reduce-overhead recordings/skips experiments. --record writes lessons/recordings/decoder_*.json
    aot reduce-overhead [--tokens N] [--json] [--record PATH]                                  (GPU)
        the reduce_overhead lab (what mode="reduce-overhead" really does: inputs copied in,
        outputs overwritten, a graph per shape and the warning past its limit, skips, kernels per
        graph; in a child process) and the cudagraph-trees experiments. --record writes
        lessons/recordings/reduce_overhead_*.json: a student without a GPU sees it
    aot serving [--device cpu|cuda] [--json] [--record PATH [--force]]
        one ranged package (batch 2..64) against exact-shape packages: each request's guard verdict
        (runs as it is, pads, or is rejected with the guard's message), the package's own input
        check, median ms per size, an exact package run unchecked at another size, and the ranged
        package in the C++ runner. Builds the packages the first time (20-40 s each on 2 CPU cores).
        --record writes lessons/recordings/serving_*.json: a student without a GPU sees it
    aot timing [--device cpu|cuda] [--no-measure] [--json] [--record PATH [--force]]
        how long the AOT page's buttons take on this machine class, each from an empty cache (a
        temporary folder of its own: the app's .cache/aot/ is left as it was):
        "serve through the packages" cold and warm, the RUNTIME_PREBUILD_AOT=1 prebuild and the
        first serve after it, "measure" cold and warm (--no-measure skips those two). Minutes on
        2 CPU cores. --record writes lessons/recordings/aot_timing_*.json: the tooltips' figures
    aot clear-cache
        delete .cache/aot/ (packages, the C++ runner, Inductor caches, measured results); it waits
        for a measurement in progress (in this process or another) to finish first

--record PATH is checked before anything runs: a folder, a missing folder or an existing file
(without --force) is an error. The token loops of decoder and reduce-overhead are priced first
(engine/cost.py): --tokens and --blocks that would time more than about a minute are refused,
naming what fits. Bad arguments exit with status 2 and one line on stderr.
"""
from __future__ import annotations

from ..cli_args import add_json_flag, number, path, refuse_unused
from ..errors import NoCudaDevice, UsageError
from ..knobs import Range


def register(sub) -> None:
    import argparse
    ap = sub.add_parser("aot", help="export -> AOTInductor -> load", description=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", nargs="?", default="measure", metavar="WHAT",
                    choices=("measure", "decoder", "reduce-overhead", "serving", "timing", "clear-cache"),
                    help="measure (the default: export, package, load, cold vs warm compile; minutes on a "
                         "CPU), decoder, reduce-overhead, serving, timing or clear-cache: each is described above")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                    help="measure, serving, timing: where the package is built and run (default cpu)")
    add_json_flag(ap)
    ap.add_argument("--record", type=path, metavar="PATH", help="also write a recording (JSON) to PATH")
    ap.add_argument("--force", action="store_true", help="with --record: replace an existing file")
    ap.add_argument("--tokens", type=number(Range(10, 10_000, integer=True), "tokens"), default=50,
                    help="decoder, reduce-overhead: tokens per timing block (10 to 10,000; default 50)")
    ap.add_argument("--blocks", type=number(Range(1, 100, integer=True), "blocks"), default=8,
                    help="decoder: timing blocks per variant, each --tokens long (1 to 100; default 8)")
    ap.add_argument("--no-reduce-overhead", action="store_true",
                    help="decoder: skip torch.compile(mode='reduce-overhead') (~15 s compile)")
    ap.add_argument("--no-measure", action="store_true",
                    help="timing: skip the two 'measure' presses (cold and warm compile, minutes)")
    ap.set_defaults(func=_run, parser=ap)


USES = {  # the options each WHAT reads (json everywhere); any other one given exits 2
    "measure": {"device", "record", "force"},
    "decoder": {"tokens", "blocks", "no_reduce_overhead", "record", "force"},
    "reduce-overhead": {"tokens", "record", "force"},
    "serving": {"device", "record", "force"},
    "timing": {"device", "no_measure", "record", "force"},
    "clear-cache": set(),
}


def _meta(kind: str, device_name: str, torch_version: str, backend: str = "cuda") -> dict:
    from ..recordings import store
    return store.new_meta(kind, device_name, torch_version, backend)


def _cmd_measure(a) -> tuple[dict, dict]:
    from .coldwarm import measure
    res = measure(a.device)
    rec = {"meta": _meta("aot", res["device_name"], res["torch_version"], res["device"]),
           "points": [res], "aot": res}
    return res, rec


def _cmd_serving(a) -> tuple[dict, dict]:
    from .serving_measure import measure_serving
    res = measure_serving(a.device)
    meta = _meta("serving", res["device_name"], res["torch_version"], res["device"])
    meta["complete"] = not res["errors"] and bool(res["rows"])
    return res, {"meta": meta, "points": [], "serving": res}


def _cmd_timing(a) -> tuple[dict, dict]:
    import sys
    from .machine_timing import measure_timing
    res = measure_timing(a.device, with_measure=not a.no_measure,
                         say=lambda line: print(f"runtime_core aot timing: {line}", file=sys.stderr, flush=True))
    meta = _meta("aot_timing", f"{res['device_name']}, {res['cores']} cores", res["torch_version"], a.device)
    meta["complete"] = not res["errors"]
    return res, {"meta": meta, "points": [], "timing": res}


def _cmd_decoder(a) -> tuple[dict, dict]:
    from ..engine.cost import check_decoder
    from .decoder_bench import recording, run_decoder_bench
    from .reduce_overhead import run_reduce_overhead
    _need_cuda("aot decoder")
    check_decoder(a.tokens, a.blocks, reduce_overhead=not a.no_reduce_overhead,
                  experiments=not a.no_reduce_overhead)
    res = run_decoder_bench(a.tokens, a.blocks, with_reduce_overhead=not a.no_reduce_overhead)
    ro = None if a.no_reduce_overhead else run_reduce_overhead(a.tokens)
    rec = recording(res, ro)
    return {"meta": rec["meta"], **res, "reduce_overhead_labs": ro}, rec


def _cmd_reduce_overhead(a) -> tuple[dict, dict]:
    import sys

    import torch
    from ..engine.cost import check_decoder
    from ..labs import run_lab
    from .reduce_overhead import run_reduce_overhead
    _need_cuda("aot reduce-overhead")
    check_decoder(a.tokens, 0, reduce_overhead=False, what="aot reduce-overhead")
    lab = run_lab("reduce_overhead", "cuda")    # first, in a fresh child process
    try:
        trees = run_reduce_overhead(a.tokens)
    except Exception as e:  # keep the lab's minutes of work: record the failure, say it on stderr
        trees = {"error": f"{type(e).__name__}: {' '.join(str(e).split())[:400]}"}
        print(f"runtime_core aot: the cudagraph-trees experiments failed: {trees['error']}", file=sys.stderr)
    for line in lab["errors"]:
        print(f"runtime_core aot: reduce_overhead lab point failed: {line}", file=sys.stderr)
    meta = _meta("reduce_overhead", torch.cuda.get_device_name(0), torch.__version__)
    meta["complete"] = not lab["errors"] and "error" not in trees
    return {**trees, "lab": lab}, {"meta": meta, "points": [],
                                   "labs": {"reduce_overhead": lab, "cudagraph_trees": trees}}


def _need_cuda(what: str) -> None:
    import torch
    if not torch.cuda.is_available():
        raise NoCudaDevice(f"'{what}' needs a CUDA device (CUDA graphs are GPU-only); "
                       "the page shows the recorded H200 numbers instead")


def _run(a) -> dict:
    from ..recordings import store
    if a.what == "clear-cache" and a.record:
        raise UsageError("clear-cache writes no recording: drop --record")
    refuse_unused(a, a.parser, USES[a.what] | {"json", "what"}, f"for aot {a.what}")
    if a.force and not a.record:
        raise UsageError("--force replaces an existing --record file: give --record PATH")
    if a.record:  # before the run: a bad path must not cost minutes of compiling
        store.check_target(a.record, a.force)
    if a.what == "clear-cache":
        from .paths import clear_cache
        return {"freed_bytes": clear_cache()}
    cmd = {"measure": _cmd_measure, "decoder": _cmd_decoder, "reduce-overhead": _cmd_reduce_overhead,
           "serving": _cmd_serving, "timing": _cmd_timing}[a.what]
    out, rec = cmd(a)
    if a.record:
        store.write(a.record, rec, overwrite=a.force)
    return out
