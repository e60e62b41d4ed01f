"""The AOT page's three live panels: cold/warm/AOT-load table, serving loop, decoder numbers."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.ui.common import recordings_of, source_badge
from runtime_core.aot import coldwarm, tables
from runtime_core.aot.paths import clear_cache
from runtime_core.aot.serving import MISS_POLICIES, RequestRejected, ServingLoop, bucket_artifacts, jit_compile_fn

BUCKETS = (1, 2, 4, 8)


def coldwarm_panel(device: str) -> None:
    """The cold vs warm vs AOT-load table, a measure button (child processes) and clear cache."""
    st.subheader("Cold start, warm start, AOT load")
    left, right = st.columns(2)
    if left.button("measure", key="aot_measure", help="~1-2 min the first time: it compiles"):
        _measure(device)
    if right.button("clear cache", key="aot_clear"):
        st.success(f"Cleared .cache/aot/ ({clear_cache() / 1e6:.1f} MB).")
    res = coldwarm.cached_results(device)
    if res is None:
        st.info("Not measured on this machine yet. Press **measure**: every step runs in its own "
                "child process, and the first run compiles (about a minute on 2 CPU cores).")
        return
    where = f"{res['device_name']} · torch {res['torch_version']} · {res['measured_at'][:16]}"
    if device == "cuda":
        source_badge("live", where)
    else:  # these are CPU numbers: real measurements, but not the GPU that "live" promises
        source_badge("cpu", where)
    st.dataframe(pd.DataFrame(tables.coldwarm_rows(res)), hide_index=True, width="stretch")
    verdict = "match" if res["outputs_match"] else "do NOT match"
    st.markdown(f"Python and C++ outputs **{verdict}** eager (max abs error: Python "
                f"{res.get('python_max_abs_err')}, C++ {res.get('cpp_max_abs_err')}).")
    for problem in tables.coldwarm_problems(res):
        st.error(problem)


def _measure(device: str) -> None:
    with st.status("Measuring in child processes…", expanded=True) as status:
        state, results = coldwarm.new_state(device), {}
        for _name, label, fn in coldwarm.STEPS:
            status.update(label=label)
            st.write(f"⏳ {label}")
            results.update(fn(device, state))
        coldwarm.finish(results, device, state)
        status.update(label="Measured (saved under .cache/aot/)", state="complete", expanded=False)


def _loop() -> ServingLoop:
    if "aot_serving_loop" not in st.session_state:
        from runtime_core.aot.models import MLP_IN, make_mlp
        model = make_mlp()
        st.session_state.aot_serving_loop = ServingLoop(
            bucket_artifacts(model, BUCKETS, (MLP_IN,)), "pad", jit_compile_fn(model, "eager"))
        st.session_state.aot_last = None
    return st.session_state.aot_serving_loop


def serving_panel() -> None:
    """Send requests through the guard-check -> dispatch loop and watch the counters."""
    import torch
    from runtime_core.aot.models import mlp_input
    st.subheader("The serving loop")
    st.caption(f"Artifacts: the MLP compiled for batches {', '.join(map(str, BUCKETS))} (exact-shape "
               "guards). The recompile branch uses torch.compile with the cheap 'eager' backend "
               "(Dynamo capture and guards, no Inductor codegen), so it takes about a second.")
    loop = _loop()
    a, b = st.columns(2)
    batch = a.number_input("request batch size", 1, 64, 5, key="aot_batch")
    policy = b.selectbox("on a guard miss", MISS_POLICIES, index=1, key="aot_policy")
    if st.button("send request", key="aot_send"):
        loop.set_policy(policy)
        try:
            with torch.no_grad():
                r = loop.serve(mlp_input(int(batch)))
            st.session_state.aot_last = ("ok", _describe(r))
        except RequestRejected as e:
            st.session_state.aot_last = ("rejected", f"Rejected: {e}")
    if st.session_state.get("aot_last"):
        kind, msg = st.session_state.aot_last
        (st.error if kind == "rejected" else st.success)(msg)
    c = loop.counters
    for col, (label, v) in zip(st.columns(5), (("hits", c.hits), ("misses", c.misses),
                                               ("recompiles", c.recompiles), ("pads", c.pads), ("rejects", c.rejects))):
        col.metric(label, v)
    if st.button("reset serving loop", key="aot_reset"):
        del st.session_state["aot_serving_loop"]
        st.rerun()


def _describe(r) -> str:
    if r.path == "hit":
        return f"Guard hit → dispatched to '{r.artifact}'."
    if r.path == "miss -> pad":
        return (f"Guard miss ({r.miss_reason}) → padded batch {r.padded_from} up to '{r.artifact}'; "
                f"the padded rows were computed and thrown away.")
    return f"Guard miss ({r.miss_reason}) → recompiled: new artifact '{r.artifact}'."


def decoder_panel(live: bool) -> None:
    """The decoder worked example: the recorded GPU numbers (or what is still owed)."""
    st.subheader("Decoder step: PyTorch eager (async) vs graphs vs reduce-overhead")
    rec, _ = recordings_of("decoder")
    if rec is None:
        st.warning("Owed: no decoder recording is shipped yet. It needs a GPU: "
                   "`python -m runtime_core aot decoder --json --record lessons/recordings/decoder_h200.json`. "
                   "On a CPU the graph variants cannot run at all.")
        return
    source_badge(rec.meta.source, rec.label())
    if live:
        st.caption("This machine has a GPU: run the command above to measure it live.")
    st.dataframe(pd.DataFrame(tables.decoder_rows(rec)), hide_index=True, width="stretch")
    stale = rec.labs.get("stale_input")
    if stale:
        st.markdown(f"**Stale input:** replaying after putting the new token in a fresh tensor gave logits "
                    f"off by up to **{stale['fresh_tensor_max_abs_err']:.3g}**; copying it into the captured "
                    f"buffer: max error {stale['copied_in_max_abs_err']:.3g} "
                    f"({'exact' if stale['copied_in_exact'] else 'not exact'}).")
    ro = rec.labs.get("reduce_overhead")
    if ro:
        st.markdown("**reduce-overhead: CUDA-graph recordings made by cudagraph trees**")
        st.dataframe(pd.DataFrame(tables.reduce_overhead_rows(ro)), hide_index=True, width="stretch")
        for msg in ro.get("cpu_island", {}).get("skip_messages", [])[:2]:
            st.caption(f"skip reason logged: {msg}")
