"""What torch.compile's first call spends, stage by stage, and what the compile caches did.

A warm start is not a skipped compile. In a new process Dynamo still traces the function's
bytecode into an FX graph and builds the guards: both belong to this process, and the graph is
what the cache is looked up by. What a warm cache skips is the backend's work: the AOTAutograd
cache and the FX-graph cache hand back the compiled graph, so Inductor's lowering, code
generation and kernel compilation (C++ on a CPU, Triton on a GPU) do not run again. Autotuning
results are cached apart, as `.best_config` files beside each generated Triton kernel.

    stage_times()        {torch's timer name: seconds} (torch._dynamo.utils.compile_times)
    cache_counters()     FX-graph cache and AOTAutograd cache hits, misses and bypasses
    autotune_files(dir)  how many autotuning results (.best_config) an Inductor cache dir holds
    STAGES               the stages the AOT page shows, each named by the timers that measure it

Every reader degrades: where this torch lacks an API it returns None, and the page prints
NOT_REPORTED instead of a number.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

NOT_REPORTED = "(not reported by this torch)"

# torch's counters of the two compile caches: (counter group, counter name)
CACHE_COUNTERS = (("inductor", "fxgraph_cache_hit"), ("inductor", "fxgraph_cache_miss"),
                  ("inductor", "fxgraph_cache_bypass"), ("aot_autograd", "autograd_cache_hit"),
                  ("aot_autograd", "autograd_cache_miss"), ("aot_autograd", "autograd_cache_bypass"))


@dataclass(frozen=True)
class Stage:
    """One row of the stage table.

    Args:
        label: what the stage does, in words.
        keys: torch's timer names for it, first present wins (names move between releases).
        contains: or, where no single timer exists, the largest timer whose name contains one
            of these (autotuning has several).
    """

    label: str
    keys: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()

    def seconds(self, times: dict | None) -> float | None:
        """This stage's seconds in `times` (a stage_times() dict), or None when no timer ran."""
        if not times:
            return None
        for key in self.keys:
            if key in times:
                return times[key]
        hits = [v for k, v in times.items() if any(c in k for c in self.contains)]
        return max(hits) if hits else None


STAGES = (
    Stage("whole compile: Dynamo, AOTAutograd, Inductor", ("_compile.compile_inner",)),
    Stage("Dynamo traces the bytecode into an FX graph", ("bytecode_tracing",)),
    Stage("Dynamo builds the guards", ("build_guards",)),
    Stage("backend: AOTAutograd + Inductor, or their caches", ("OutputGraph.call_user_compiler",)),
    Stage("AOTAutograd traces and functionalizes the graph", ("create_aot_dispatcher_function",)),
    Stage("Inductor lowers the FX graph to its IR", ("GraphLowering.run",)),
    Stage("Inductor fuses and generates code", ("Scheduler.codegen", "GraphLowering.codegen")),
    Stage("compile the generated C++ (a CPU's kernels)", ("compile_file",)),
    Stage("wait for kernel compiles (Triton's, on a GPU)", ("async_compile.wait",)),
    Stage("autotuning: benchmark kernel configurations", contains=("autotune", "benchmark_all_configs")),
    Stage("load the compiled graph from the caches", ("AOTAutogradCache.inductor_load", "FxGraphCache.load",
                                                      "fx_graph_cache_hit")),
    Stage("load the generated Python module", ("PyCodeCache.load_by_key_path",)),
)


def stage_times() -> dict[str, float] | None:
    """Seconds per compile timer in this process so far (inclusive: a timer contains the ones
    nested in it), or None where torch has no compile_times()."""
    try:
        from torch._dynamo.utils import compile_times
        names, values = compile_times(repr="csv", aggregate=True)
        return {str(n): float(v) for n, v in zip(names, values)}
    except (ImportError, TypeError, ValueError, AttributeError):
        return None


def cache_counters() -> dict[str, int] | None:
    """The compile caches' counters in this process (a counter never bumped reads 0), or None
    where torch has no counters."""
    try:
        from torch._dynamo.utils import counters
    except ImportError:
        return None
    return {name: int(counters[group][name]) for group, name in CACHE_COUNTERS}


def fx_graph_cache_enabled() -> bool | None:
    """torch._inductor.config.fx_graph_cache, or None where this torch has no such setting."""
    try:
        import torch._inductor.config as cfg
    except ImportError:
        return None
    value = getattr(cfg, "fx_graph_cache", None)
    return None if value is None else bool(value)


def autotune_files(cache_dir: str | Path | None) -> int | None:
    """How many autotuning results (.best_config files) the Inductor cache dir holds, or None
    without a cache dir."""
    if not cache_dir or not Path(cache_dir).is_dir():
        return None
    return sum(1 for _ in Path(cache_dir).rglob("*.best_config"))


def compile_report(cache_dir: str | None) -> dict:
    """Everything a child process reports after its first compiled call: stages, counters,
    whether the FX-graph cache is on, and the autotuning results in its cache dir."""
    return {"stages": stage_times(), "counters": cache_counters(), "fx_graph_cache": fx_graph_cache_enabled(),
            "autotune_best_configs": autotune_files(cache_dir)}
