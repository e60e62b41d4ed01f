"""Failure-mode labs: each runs one of the lesson's failure modes and measures its signal.

    overlap  pinned vs pageable host→device copy beside compute     (overlap.py)
    sync     a .item()-style sync in every step                      (sync.py)
    stale    replaying a graph after writing input to a fresh buffer  (stale.py)
    storm    graph capture against changing shapes: recapture/bucket (storm.py)
    malloc   driver allocation on the hot path vs a kept pool        (malloc.py)
    fusion   fusion cuts launches, not the tax on the rest           (fusion.py)
    stream_reuse     a block reused across streams without record_stream   (stream_reuse.py)
    output_overwrite a graph output kept across replays                    (output_overwrite.py)
    frozen_scalar    a Python value frozen into a captured graph           (frozen_scalar.py)
    broadcast_copy   a broadcasting copy into a graph's static input       (broadcast_copy.py)
    unmasked_padding bucket padding summed into a reduction                (unmasked_padding.py)
    no_warmup        capture without warm-up records one-off work          (no_warmup.py)
    reduce_overhead  what torch.compile(mode="reduce-overhead") really does   (reduce_overhead.py)
    partial_capture  make_graphed_callables on a network's static parts       (partial_capture.py)
    training_step    forward, backward and step in one graph; a stale target  (training_step.py)
    graph_rng        dropout in a graph; an untracked generator; a host mask  (graph_rng.py)
    d2h_hazard       a non_blocking copy to the host read before the sync     (d2h_hazard.py)

Each runs on the SimDevice anywhere and on CUDA when present: `run_lab(name, backend)`
returns a plain dict (see common.py for the keys every lab shares). The labs in
REPLAYS_A_RECORDING need torch.compile on a GPU, which the simulator cannot run: on the
simulator they return a shipped GPU recording instead, labelled "recorded" in `source`; the
GPU_ONLY labs (gpu_only.py) drive torch itself, and until their recording ships they say it is owed.

A lab is one module (or package) here that defines `run(backend, **params)` and declares

    LAB = dict(name=..., summary=..., page="pages/N_....py", panel=..., renderer="pages.ui.MOD:FN",
               text_key=...)   # text_key: its failure mode's id in lessons/labs.json, or None

plus that entry in lessons/labs.json. `discover()` finds every one, here and in the folders named
by $RUNTIME_LABS_DIRS (a toy lab in a test, a student's own), each with a labs.json of its own.

CLI: python -m runtime_core lab NAME [--backend auto|cuda|sim] [--json]
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pkgutil
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from ..errors import UsageError

DIRS_ENV = "RUNTIME_LABS_DIRS"  # more folders of lab modules, os.pathsep-separated
TEXTS = Path(__file__).resolve().parents[2] / "lessons" / "labs.json"
# Labs that drive torch itself on a GPU (gpu_only.py): on the simulator, their shipped recording.
GPU_ONLY = frozenset({"partial_capture", "training_step", "graph_rng", "d2h_hazard"})
REPLAYS_A_RECORDING = frozenset({"reduce_overhead"}) | GPU_ONLY
# issue 29's labs: CUDA-only (or minutes on a CPU), shown from their recordings (gpu_recorded.py)
REPLAYS_A_RECORDING |= {"trees_lifecycle", "compile_cache", "alloc_snapshot", "alloc_conf", "malloc_async"}


@dataclass(frozen=True)
class LabInfo:
    """What a lab module declares in LAB, and the module."""

    name: str
    summary: str
    page: str | None
    panel: str | None
    renderer: str        # "pages.ui.MODULE:FUNCTION", drawn by pages/ui/lab_panels.show
    text_key: str | None
    module: ModuleType


def _extra_dirs() -> tuple[str, ...]:
    return tuple(d for d in os.environ.get(DIRS_ENV, "").split(os.pathsep) if d)


def discover() -> dict[str, LabInfo]:
    """Every lab: the modules of this package that declare LAB, then those of $RUNTIME_LABS_DIRS."""
    return dict(_discover(_extra_dirs()))


@lru_cache(maxsize=8)
def _discover(extra: tuple[str, ...]) -> tuple[tuple[str, LabInfo], ...]:
    here = Path(__file__).parent
    modules = [importlib.import_module(f".{m.name}", __name__) for m in pkgutil.iter_modules(__path__)
               if _declares_lab(here / m.name / "__init__.py" if m.ispkg else here / f"{m.name}.py")]
    for folder in extra:
        for path in sorted(Path(folder).glob("*.py")):
            if not _declares_lab(path):
                continue
            spec = importlib.util.spec_from_file_location(f"{__name__}._extra_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            modules.append(module)
    found = {}
    for module in modules:
        lab = getattr(module, "LAB", None)
        if isinstance(lab, dict) and callable(getattr(module, "run", None)):
            found[lab["name"]] = LabInfo(lab["name"], lab["summary"], lab.get("page"), lab.get("panel"),
                                         lab["renderer"], lab.get("text_key"), module)
    order = [fm.get("lab") for fm in failure_modes()]  # the lesson's order first, then by name
    return tuple(sorted(found.items(), key=lambda kv: (kv[0] not in order, order.index(kv[0])
                                                       if kv[0] in order else 0, kv[0])))


def _declares_lab(path: Path) -> bool:
    """Read before importing: the CLI and the shared helpers beside the labs are not labs."""
    return "\nLAB = dict(" in path.read_text(encoding="utf-8")


def failure_modes() -> list[dict]:
    """The failure modes of lessons/labs.json, then those of each $RUNTIME_LABS_DIRS folder."""
    return list(_failure_modes(_extra_dirs()))


@lru_cache(maxsize=8)
def _failure_modes(extra: tuple[str, ...]) -> tuple[dict, ...]:
    out = []
    for path in (TEXTS, *(Path(d) / "labs.json" for d in extra)):
        if path.is_file():
            out += json.loads(path.read_text(encoding="utf-8")).get("failure_modes", [])
    return tuple(out)


def labs_on(page: str, panel: str | None = None) -> list[LabInfo]:
    """The labs a page hosts (in one of its panels, if `panel` is given), in the lesson's order."""
    return [i for i in discover().values() if i.page == page and (panel is None or i.panel == panel)]


def __getattr__(name: str):
    if name == "LABS":  # name -> one-line summary, for the CLI and the pages
        return {n: i.summary for n, i in discover().items()}
    raise AttributeError(name)


def run_lab(name: str, backend: str = "auto", **params) -> dict:
    """Run lab `name` on `backend` ("auto", "cuda" or "sim") and return its result dict.

    Raises:
        UsageError: unknown lab, unknown backend, a parameter out of range, or backend "cuda"
            without a CUDA device.
    """
    labs = discover()
    if name not in labs:
        raise UsageError(f"unknown lab {name!r}; choose one of {', '.join(labs)}")
    return labs[name].module.run(backend, **params)
