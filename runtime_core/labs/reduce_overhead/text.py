"""The reduce-overhead lab's verdict, one sentence per measured point (numbers from the result)."""
from __future__ import annotations

from ...words import count


def sentences(r: dict) -> list[str]:
    """Sentences for the points `r` holds; a point that failed or is owed gets none here."""
    out = []
    for point, say in (("fresh_inputs", _fresh), ("kept_output", _kept), ("mark_step", _mark),
                       ("new_shapes", _shapes), ("skips", _skips), ("skips_partition_off", _skips),
                       ("kernels", _kernels)):
        p = r.get(point)
        if isinstance(p, dict) and p and "error" not in p and not set(p) <= {"skipped"}:
            text = say(p)
            if text:
                out.append(text)
    return out


def _fresh(p: dict) -> str:
    manual = p.get("manual_capture") or {}
    ours = (f"our hand capture, given a fresh tensor, replayed the old token (max error "
            f"{manual['fresh_tensor_max_abs_err']:.3g})") if manual.get("fresh_tensor_max_abs_err") is not None else ""
    if p.get("partial"):
        return f"In the recording {ours}; {p['partial']} is owed." if ours else ""
    copied = (": reduce-overhead copied each input into its graph's static buffer" if p.get("graph_recorded") is not False
              else ", but no CUDA graph was recorded on this device, so nothing needed copying")
    head = (f"A fresh input tensor on each of {p['calls']} calls gave eager's logits "
            f"(max error {p['max_abs_err']:.2g}){copied}"
            if p.get("matches_eager") else
            f"A fresh input tensor on each call did NOT match eager (max error {p['max_abs_err']:.3g})")
    return head + (f", while {ours}." if ours else ".")


def _read(result: dict) -> str:
    b = (result or {}).get("behaviour")
    if b == "raised":
        return "raised torch's error (" + _short(result.get("error", "")) + ")"
    if b == "changed":
        return f"had changed (max error {result.get('max_abs_err', float('nan')):.3g}) with no error"
    return "still held step 1's values" if b == "kept" else "was not read"


def _kept(p: dict) -> str:
    clone = (p.get("clone") or {}).get("behaviour")
    return (f"Keeping step 1's output and running step 2: reading it then {_read(p.get('bug'))}; "
            f"a clone taken before step 2 {'kept the values' if clone == 'kept' else _read(p.get('clone'))}.")


def _mark(p: dict) -> str:
    return (f"With cudagraph_mark_step_begin() once per step, an output read after a second call in the same "
            f"step {_read(p.get('same_step'))}; after two more marked steps of the same calls it {_read(p.get('next_step'))} "
            f"({p.get('recordings', 0)} more graph(s) recorded for the second call).")


def _shapes(p: dict) -> str:
    per = p.get("per_batch")
    if per:
        counts = ", ".join(f"batch {x['batch']}: {x['new_recordings']}" for x in per)
        warn = (f" Past a warn limit of {p['warn_limit']} torch warned at batch {p['warned_at_batch']}: "
                f"\"{_short(p['warning'], 160)}\"" if p.get("warning") else
                (" torch logged no size warning." if p.get("warn_limit") else ""))
        return f"New graphs recorded per new batch size ({counts}; {p.get('compiled_graphs')} compiled graphs).{warn}"
    if p.get("recordings_for_new_batches") is not None:
        new = " and ".join(str(b) for b in (p.get("batches") or [])[1:])
        return (f"One graph served every position at batch 1, and batches {new} added "
                f"{p['recordings_for_new_batches']} more: one per new shape.")
    return ""


REGIONS = (("mutated_input", "a region that mutates its input"),
           ("mutated_buffer", "a region that mutates a registered buffer"),
           ("cpu_tensor", "a region with a CPU tensor"), ("data_branch", "a branch on data (torch.cond)"))


def skip_rows(r: dict) -> list[dict]:
    """One row per region: its skips with graph partitioning on (this torch's default) and off,
    and the first reason torch logged."""
    on, off = r.get("skips") or {}, r.get("skips_partition_off") or {}
    rows = []
    for name, label in REGIONS:
        a, b = on.get(name), off.get(name)
        if not isinstance(a, dict) and not isinstance(b, dict):
            continue
        reason = next((x.get("message") for x in (a, b) if isinstance(x, dict) and x.get("message")), None)
        rows.append({"region": label, "skips, partitioning on": _skip_cell(a),
                     "skips, partitioning off": _skip_cell(b), "reason logged": reason or "(none)"})
    return rows


def _skip_cell(x) -> str:
    if not isinstance(x, dict):
        return "not measured"
    return "run raised" if x.get("error") else str(x.get("skips", "not measured"))


def _skips(p: dict) -> str:
    parts = []
    for name, label in REGIONS:
        s = p.get(name) or {}
        if s.get("error"):
            parts.append(f"{label} was not measured: its run raised ({_short(s['error'], 120)})")
        elif s and not s.get("skips"):
            right = "" if s.get("result_correct") is None else (
                ", result correct" if s["result_correct"] else ", RESULT WRONG")
            parts.append(f"{label} was still graphed (0 skips{right})")
        elif s:
            why = f": \"{_short(s['message'], 120)}\"" if s.get("message") else " (no reason logged)"
            parts.append(f"{label} was skipped {count(s.get('skips', 0), 'time')}{why}")
    setting = {True: "with graph partitioning on", False: "with graph partitioning off"}.get(p.get("graph_partition"), "")
    return (f"Graphs skipped{' ' + setting if setting else ''}: " + "; ".join(parts) + ".") if parts else ""


def _kernels(p: dict) -> str:
    ours, ro = p.get("our_graph") or {}, p.get("reduce_overhead") or {}
    ms = (f"{ro['ms_per_token']:.3f} ms per token against our capture's {ours['ms_per_token']:.3f}"
          if ours.get("ms_per_token") and ro.get("ms_per_token") else "")
    if ours.get("kernels") is None or ro.get("kernels") is None:
        return f"reduce-overhead ran {ms}; {p.get('partial', 'the kernel counts')} are owed." if ms else ""
    return (f"One step ran {ro['kernels']} GPU kernels under reduce-overhead (mean {ro['kernel_mean_us']:.2f} µs) "
            f"against {ours['kernels']} in our capture (mean {ours['kernel_mean_us']:.2f} µs): {ms}.")


def _short(text: str, n: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"
