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
    STAGES               the stages the AOT page shows, each named by the timers that measure it and
                         by the stages it runs inside: they nest (a stage's seconds include its
                         children's), so the page shows them as a tree (tree_order), not a list
                         whose rows add up to more than the whole compile
    nesting_problems(t)  where measured seconds contradict that nesting ([] when they do not)

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
            of these.
        parents: the labels of the stages it runs inside, innermost first; the first that ran
            in a compile is its parent there (a warm start loads the generated module inside
            the cache load, a cold one inside AOTAutograd). () for the root.
    """

    label: str
    keys: tuple[str, ...] = ()
    contains: tuple[str, ...] = ()
    parents: tuple[str, ...] = ()

    def seconds(self, times: dict | None) -> float | None:
        """This stage's seconds in `times` (a stage_times() dict), or None when no timer ran."""
        if not times:
            return None
        for key in self.keys:
            if key in times:
                return times[key]
        hits = [v for k, v in times.items() if any(c in k for c in self.contains)]
        return max(hits) if hits else None


WHOLE = "whole compile: Dynamo, AOTAutograd, Inductor"
BACKEND = "backend: AOTAutograd + Inductor, or their caches"
AOT_AUTOGRAD = "AOTAutograd traces and functionalizes the graph, then runs Inductor"
CODEGEN = "Inductor fuses and generates code"
LOAD_MODULE = "load the generated Python module"
CACHE_LOAD = "load the compiled graph from the caches"
AUTOTUNE = "autotuning: benchmark kernel configurations, as the compiled code first runs (after the compile)"

STAGES = (
    Stage(WHOLE, ("_compile.compile_inner",)),
    Stage("Dynamo traces the bytecode into an FX graph", ("bytecode_tracing",), parents=(WHOLE,)),
    Stage("Dynamo builds the guards", ("build_guards",), parents=(WHOLE,)),
    Stage(BACKEND, ("OutputGraph.call_user_compiler",), parents=(WHOLE,)),
    Stage(AOT_AUTOGRAD, ("create_aot_dispatcher_function",), parents=(BACKEND,)),
    Stage("Inductor lowers the FX graph to its IR", ("GraphLowering.run",), parents=(AOT_AUTOGRAD,)),
    Stage(CODEGEN, ("Scheduler.codegen", "GraphLowering.codegen"), parents=(AOT_AUTOGRAD,)),
    Stage("compile the generated C++ (a CPU's kernels)", ("compile_file",), parents=(CODEGEN, LOAD_MODULE)),
    Stage(CACHE_LOAD, ("AOTAutogradCache.inductor_load", "FxGraphCache.load", "fx_graph_cache_hit"),
          parents=(BACKEND,)),
    Stage(LOAD_MODULE, ("PyCodeCache.load_by_key_path",), parents=(AOT_AUTOGRAD, CACHE_LOAD)),
    # Triton's kernels are compiled in worker processes (precompile; a warm start reloads them,
    # warm_precompile); the wait is only the main process collecting the workers' results, and a
    # warm start can wait longer than a cold one for less (the H200: 0.2 ms cold, 5.8 ms warm)
    Stage("compile the Triton kernels in worker processes (a GPU's kernels)",
          ("async_compile.precompile", "StaticAutotunerFuture.warm_precompile"), parents=(LOAD_MODULE,)),
    Stage("wait for the worker processes' kernel compiles (Triton's on a GPU, C++ on a CPU)", ("async_compile.wait",),
          parents=(LOAD_MODULE,)),
    # Under torch.compile's default options (all the app records), autotuning is timed where a
    # Triton kernel first runs (CachingAutotuner.run benchmarks its configurations on its first
    # launch), so after the compile, when the compiled code first runs: a root of its own, not a
    # child of any compile stage. (Options that benchmark while compiling, such as
    # benchmark_fusion or cpp_wrapper's autotune_at_compile_time, would time some of it inside
    # Scheduler.codegen.) A warm start whose cache held the chosen configurations does not
    # benchmark (loading them is part of the cache load).
    Stage(AUTOTUNE, ("CachingAutotuner.benchmark_all_configs",), contains=("benchmark_all_configs",)),
)
BY_LABEL = {s.label: s for s in STAGES}

# torch's timers are totals over every call (a timer can run in two places) and rounded: a stage
# may exceed its parent, or its children their parent, by this share before they contradict.
NEST_SLACK = 0.02


def parents_in(times: dict | None) -> dict[str, str | None]:
    """{label: the label of the stage it ran inside, or None for a root} for every stage that
    ran in `times`: the first of its `parents` that ran, else that parent's own parent there."""
    ran = {s.label for s in STAGES if s.seconds(times) is not None}

    def parent(label: str) -> str | None:
        cands = BY_LABEL[label].parents
        ran_cands = [c for c in cands if c in ran]
        if ran_cands:
            return ran_cands[0]
        return next((up for c in cands if (up := parent(c)) is not None), None)
    return {label: parent(label) for label in ran}


NBSP = "\u00a0"     # the tree's indent: a table cell is Markdown, where leading spaces collapse
GAP = NBSP * 3


def tree_order(cold: dict | None, warm: dict | None) -> list[tuple[Stage, str]]:
    """Every stage, depth first, with its tree prefix ("", "├─ ", "│  └─ ", ...; the indent is
    no-break spaces). The nesting is
    the cold compile's (it runs the most stages); a stage only a warm start ran goes where the
    warm one ran it; a stage neither ran, under its first declared parent."""
    def ran_inside(times):  # a stage whose parents did not run keeps its declared place
        return {k: v for k, v in parents_in(times).items() if v is not None}
    nest = {**{s.label: (s.parents[0] if s.parents else None) for s in STAGES}, **ran_inside(warm), **ran_inside(cold)}
    kids: dict[str | None, list[str]] = {}
    for s in STAGES:  # in STAGES order, so siblings keep the table's order
        kids.setdefault(nest[s.label], []).append(s.label)
    out: list[tuple[Stage, str]] = []

    def walk(label: str, lead: str, branch: str) -> None:
        out.append((BY_LABEL[label], branch))
        children = kids.get(label, [])
        for i, child in enumerate(children):
            last = i == len(children) - 1
            walk(child, lead + (GAP if last else "│" + NBSP * 2), lead + ("└─ " if last else "├─ "))
    for root in kids.get(None, []):
        walk(root, "", "")
    return out


def nesting_problems(times: dict | None, run: str = "") -> list[str]:
    """Where the seconds in `times` contradict the nesting, one line each ([] when none): a
    stage longer than the stage it ran inside, or stages longer together than their parent."""
    out, nest = [], parents_in(times)
    sec = {label: BY_LABEL[label].seconds(times) for label in nest}
    where = f" ({run})" if run else ""
    # A timer is a total over every call: a stage with several declared parents that all ran (the
    # C++ compile runs inside code generation and again when the generated module loads) is bounded
    # by those parents together, and counted in neither's sum of children.
    split = {label: ran for label in nest if len(ran := [c for c in BY_LABEL[label].parents if c in sec]) > 1}
    for label, parent in nest.items():
        if label in split:
            bound = sum(sec[c] for c in split[label])
            if sec[label] > bound * (1 + NEST_SLACK):
                names = " and ".join(f"'{c}'" for c in split[label])
                out.append(f"'{label}' took {sec[label]:.3g} s, longer than {names} ({bound:.3g} s together) "
                           f"it runs in{where}")
        elif parent is not None and sec[label] > sec[parent] * (1 + NEST_SLACK):
            out.append(f"'{label}' took {sec[label]:.3g} s, longer than '{parent}' ({sec[parent]:.3g} s) "
                       f"it runs in{where}")
    for parent in set(nest.values()) - {None}:
        total = sum(sec[c] for c, p in nest.items() if p == parent and c not in split)
        if total > sec[parent] * (1 + NEST_SLACK):
            out.append(f"the stages inside '{parent}' took {total:.3g} s together, longer than it "
                       f"({sec[parent]:.3g} s){where}")
    return out


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
