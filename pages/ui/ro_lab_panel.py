"""The reduce_overhead lab's panel: each point of what mode="reduce-overhead" really does, as the
lab measured it (live on a GPU, else from the shipped recording). Nothing is computed here."""
from __future__ import annotations

import streamlit as st

from pages.ui import tables as ui_tables
from pages.ui.safe_text import clip, esc, log_text
from runtime_core.labs.reduce_overhead import RECORD_COMMAND
from runtime_core.lesson.page_text import text as prose


def _fmt(v, digits: int) -> str:
    """A number with `digits` decimals, or "—" where the recording has none yet."""
    return "—" if v is None else f"{float(v):.{digits}f}"


def _read(result: dict | None) -> str:
    b = (result or {}).get("behaviour")
    return {"raised": "raised an error", "changed": "changed, no error", "kept": "kept its values"}.get(b, "—")


def _inputs(r: dict) -> None:
    p = r.get("fresh_inputs") or {}
    manual = p.get("manual_capture") or {}
    st.markdown("**1. Inputs are copied in for you** (a fresh token tensor on every call)")
    c = st.columns(2)
    if "max_abs_err" in p:
        c[0].metric("reduce-overhead error", f"{p['max_abs_err']:.2g}",
                    "matches" if p.get("matches_eager") else "does NOT match", delta_color="off", delta_arrow="off",
                    help="the largest difference from eager's logits, over calls that each pass a new token tensor")
    else:
        c[0].metric("reduce-overhead error", "not recorded yet")
    if manual:
        c[1].metric("hand capture error", f"{manual['fresh_tensor_max_abs_err']:.3g}",
                    "stale input: no copy", delta_color="off", delta_arrow="off",
                    help="the same calls replayed on a graph captured by hand, without copying the new tensor in")
    st.caption(prose("labs", "ro_inputs"))


def _outputs(r: dict) -> None:
    st.markdown("**2. The next replay overwrites the outputs**")
    kept, mark = r.get("kept_output") or {}, r.get("mark_step") or {}
    if not kept and not mark:
        st.caption("Not recorded yet.")
        return
    rows = [("keep step 1's output, run step 2, read it", kept.get("bug")),
            ("clone it before step 2", kept.get("clone")),
            ("mark_step_begin() once; two calls in that step; read the first", mark.get("same_step")),
            ("… then read it after two more marked steps of the same two calls", mark.get("next_step")),
            ("mark_step_begin() before every call; read one right after the next call", mark.get("mark_every_call"))]
    ui_tables.show([{"what": w, "the kept output": _read(v)} for w, v in rows if v])
    error = next((v.get("error") for _, v in rows if v and v.get("error")), None)
    if error:
        st.code(error, language=None, wrap_lines=True)


def _shapes(r: dict) -> None:
    p = r.get("new_shapes") or {}
    st.markdown("**3. Each new shape records a new graph**")
    if p.get("per_batch"):
        ui_tables.show([{"batch": x["batch"], "new graphs recorded at this batch": x["new_recordings"],
                                    "size warning": "yes" if x["warned"] else ""} for x in p["per_batch"]])
        if p.get("warning"):
            st.caption(f"With cudagraph_dynamic_shape_warn_limit = {p['warn_limit']} (torch's default: "
                       f"{p.get('torch_default_warn_limit')}), torch logged:")
            st.code(log_text(p["warning"]), language=None, wrap_lines=True)
            why = warned_sizes(p)
            if why:
                st.caption(prose("labs", "ro_warn_sizes", **why))
    elif p.get("recordings_for_new_batches") is not None:
        st.caption(f"Batch 1 at every position: {p['recordings_batch1_all_positions']} graph. Batches "
                   f"{', '.join(map(str, (p.get('batches') or [])[1:]))}: {p['recordings_for_new_batches']} more.")
    skip_table(r)


def warned_sizes(p: dict) -> dict | None:
    """Why torch's warning counts fewer sizes than the table has batches before it: the first batch
    was compiled static, and only the dynamic graph compiled next counts its sizes. The fields of
    the explanation, or None where the recording does not bear it out (the count in torch's text
    must be the dynamic batches up to the warning)."""
    import re
    batches, warned = p.get("batches") or [], p.get("warned_at_batch")
    said = re.search(r"observed (\d+) distinct sizes", p.get("warning") or "")
    if not said or warned not in batches or p.get("compiled_graphs") != 2:
        return None
    dynamic = batches[1:batches.index(warned) + 1]
    if int(said[1]) != len(dynamic) or len(dynamic) != p.get("warn_limit", -1) + 1:
        return None
    from runtime_core.words import all_of
    return {"counted": f"{len(dynamic)} distinct sizes", "batches": f"{batches.index(warned) + 1} batches",
            "first": batches[0], "compiles": p["compiled_graphs"], "dynamic": all_of(dynamic),
            "limit": p["warn_limit"], "warned": warned}


def skip_table(r: dict) -> None:
    """Each region's skips with this torch's graph partitioning and with it off, and the reason."""
    from runtime_core.labs.reduce_overhead.text import skip_rows
    rows = [dict(row, **{"reason logged": clip(row["reason logged"], 300)}) for row in skip_rows(r)]  # show() escapes
    if rows:
        st.markdown("**Regions left un-graphed, with torch's reason**")
        ui_tables.show(rows)
        st.caption(prose("labs", "ro_partition"))


def _kernels(r: dict) -> None:
    p = {k: v for k, v in (r.get("kernels") or {}).items() if isinstance(v, dict)}
    st.markdown("**4. Why it beats our capture: fewer nodes**")
    if not p:
        st.caption("Not measured: counting a graph's kernels needs a GPU.")
        return
    labels = {"our_graph": "our capture", "reduce_overhead": "reduce-overhead"}
    rows = (("ms / token", "ms_per_token", 3), ("kernel events / step (profiler)", "kernels", 0), ("mean kernel event µs", "kernel_mean_us", 2),
            ("GPU busy µs", "busy_us", 1), ("launch calls", "launch_calls", 0), ("graph launches", "graph_launches", 0))
    ui_tables.compare("per step", [labels.get(k, k) for k in p],  # one column a graph: fits a projector and a phone
                      [(label, [_fmt(v.get(key), digits) for v in p.values()]) for label, key, digits in rows])
    st.caption(prose("labs", "ro_kernels"))


def show(r: dict) -> None:
    """Draw every point of a reduce_overhead lab result."""
    for part in (_inputs, _outputs, _shapes, _kernels):
        part(r)
    for line in r.get("errors", []):
        st.error(esc(line, max_chars=500))
    if r.get("owed") and r["source"] == "recorded":
        st.caption(f"Not recorded yet: {', '.join(r['owed'])}. A GPU run records them:")
        st.code(RECORD_COMMAND, language=None, wrap_lines=True)
