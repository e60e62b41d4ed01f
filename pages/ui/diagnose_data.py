"""Where the "Will graphs help my model?" page gets its numbers: a diagnose recording of a real
GPU (lessons/recordings/), else the simulated demo (fake models, a test fixture), and, on a
machine with a GPU, a live diagnosis on request."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from runtime_core.diagnose.records import SIM_FIXTURE, DiagnoseRecording, best_recording, simulated_demo
from runtime_core.engine.gpu_queue import SharedResults
from runtime_core.recordings import store
from runtime_core.lesson.page_text import text as prose

LIVE_DIAGNOSES = SharedResults(max_entries=64, ttl_s=600.0)  # every session's live diagnoses
RECORD_COMMAND = ("python -m runtime_core diagnose --sweep --record "
                  "lessons/recordings/diagnose_<device>.json --budget-s 420")


@dataclass
class Source:
    """The recording the page shows, its source label, and a notice for the student (or "")."""

    rec: DiagnoseRecording | None
    source: str
    notice: str


@st.cache_resource(show_spinner=False)
def _demo(mtime_ns: int) -> DiagnoseRecording | None:
    return simulated_demo()


def load_source() -> Source:
    """A real GPU's diagnose recording if one ships; otherwise the simulated demo, with a notice."""
    rec = best_recording()
    if rec is not None and not rec.meta.simulated:
        note = "" if rec.meta.complete else ("This recording is partial (its run ran out of time): some "
                                             "settings or variants are missing.")
        return Source(rec, "recorded", note)
    demo = rec or (_demo(SIM_FIXTURE.stat().st_mtime_ns) if SIM_FIXTURE.exists() else None)
    notice = prose("diagnose", "no_recording", command=RECORD_COMMAND)
    return Source(demo, "simulated", notice)


def skipped_files() -> list[str]:
    """Diagnose recordings that failed their check (the sidebar lists them for sweeps already)."""
    return store.scan("diagnose")[1]


def live_diagnosis(model: str, batch: int, seq, dtype: str) -> dict | None:
    """Diagnose one zoo setting on this machine's GPU now (eager, our graph, make_graphed_callables;
    no torch.compile, which takes ~12 s a variant), in this session's turn in the GPU's line.
    Shared by every session for 10 minutes; None past the line's cap (a notice says so)."""
    from pages.ui.gpu_turn import in_turn
    return in_turn(lambda: _diagnose_now(model, batch, seq, dtype), shared=LIVE_DIAGNOSES, key=(model, batch, seq, dtype),
                   fallback="The recorded diagnosis above stands; try again in a moment.")


def _diagnose_now(model: str, batch: int, seq, dtype: str) -> dict:
    import time

    from runtime_core.diagnose.diagnosis import diagnose, prepare
    from runtime_core.diagnose.spec import Spec
    runner = _live_runner()
    spec = prepare(runner, Spec(model, batch, seq, dtype))
    out = diagnose(runner, spec, _live_machine(), ("eager", "our_graph", "graphed_callables"))
    out["measured_at"] = time.strftime("%H:%M:%S")
    return out


@st.cache_resource(show_spinner=False)
def _live_runner():
    from runtime_core.diagnose.runners.cuda import CudaRunner
    return CudaRunner()


@st.cache_resource(show_spinner=False)
def _live_machine():
    return _live_runner().machine("live")
