"""reduce-overhead's static buffers, measured: inputs are copied in for you, outputs are not kept.

    fresh_inputs   a new token tensor on every call: the compiled step still matches eager,
                   because cudagraph trees copy every input that is not a parameter or buffer
                   into the graph's static input before the replay (the copy a hand capture
                   must write itself: our StaticGraphStep without it reads the old token)
    kept_output    keep step 1's output, run step 2, read it: torch raises "accessing tensor
                   output of CUDAGraphs that has been overwritten by a subsequent run" (or the
                   values changed, whichever this torch does); a clone keeps it
    mark_step      torch.compiler.cudagraph_mark_step_begin() marks where a step starts: two
                   calls inside one marked step both keep their outputs (the second call gets a
                   graph of its own), and the next mark frees them

Order matters: until a process calls cudagraph_mark_step_begin(), every call of a compiled
function starts a new step; after it, only the marks do. ro_lab.py runs these in that order in
a fresh child process. All calls run under torch.no_grad() (inference).
"""
from __future__ import annotations

import torch

from .models import decoder_inputs

RTOL, ATOL = 1e-3, 1e-3   # compiled (fused) vs eager float32 logits
REQUESTS = ((11, 50), (900, 51), (333, 52), (512, 53))  # (token id, position) of each fresh call


def close(got: torch.Tensor, want: torch.Tensor) -> bool:
    return bool(torch.allclose(got, want, rtol=RTOL, atol=ATOL))


def read_later(t: torch.Tensor, want: torch.Tensor) -> dict:
    """Read a kept output now. behaviour: "raised" (with torch's message), "changed" (the values
    are no longer step 1's) or "kept"."""
    try:
        now = t.clone()
    except Exception as e:  # cudagraph trees free an overwritten output's storage: reading raises
        return {"behaviour": "raised", "error_type": type(e).__name__, "error": torch_message(e)}
    return {"behaviour": "kept" if close(now, want) else "changed",
            "max_abs_err": float((now - want).abs().max())}


def torch_message(e: BaseException) -> str:
    """torch's error without its stack trace: the first sentence and its advice, one line."""
    text = " ".join(str(e).split())
    head, _, rest = text.partition(" Stack trace:")
    advice = rest[rest.find("To prevent"):] if "To prevent" in rest else ""
    return (head + (" " + advice if advice else ""))[:500]


def warm(compiled, device: str, calls: int = 3) -> dict:
    """Call 1 warms the region up, call 2 records its graph, later calls replay. Returns
    {"recordings": graphs recorded} (0 on a CPU: there is no CUDA graph to record)."""
    from .reduce_overhead import count_recordings
    with count_recordings() as rec, torch.no_grad():
        for _ in range(calls):
            compiled(*decoder_inputs(device))
    return {"recordings": rec["recordings"]}


def fresh_inputs(model, compiled, device: str, manual=None, graph_recorded: bool | None = None) -> dict:
    """Call the (warm) compiled step with a freshly allocated token tensor each time.

    Args:
        manual: optional fn() -> decoder_bench.stale_input_demo's dict: the same mistake with a
            graph captured by hand (CUDA only).
        graph_recorded: whether warm() recorded a graph (kept in the result, for the verdict).
    Returns calls, max_abs_err against eager, matches_eager, outputs_follow_inputs (each call's
    logits differ from the previous call's), distinct_input_addresses, recordings_during_calls
    (0: the one graph replayed every time) and manual_capture.
    """
    from .reduce_overhead import count_recordings
    kept, errs, oks, follow, prev = [], [], [], [], None
    with count_recordings() as rec, torch.no_grad():
        for token_id, pos in REQUESTS:
            tok, p = decoder_inputs(device, token_id=token_id, pos=pos)
            kept.append(tok)  # keep every input alive, so each one lives at its own address
            got, want = compiled(tok, p).clone(), model(tok, p)
            errs.append(float((got - want).abs().max()))
            oks.append(close(got, want))
            if prev is not None:
                follow.append(not close(got, prev))
            prev = got
    return {"calls": len(REQUESTS), "max_abs_err": max(errs), "matches_eager": all(oks),
            "outputs_follow_inputs": all(follow), "distinct_input_addresses": len({t.data_ptr() for t in kept}),
            "recordings_during_calls": rec["recordings"], "graph_recorded": graph_recorded,
            "manual_capture": manual() if manual else None}


def kept_output(model, compiled, device: str) -> dict:
    """Keep step 1's output across step 2 (each call a new step, torch's default): the bug, then
    the clone that fixes it. Returns step1_read_ok, bug (read_later of the kept output) and
    clone (read_later of a clone taken before step 2)."""
    a = decoder_inputs(device, token_id=11, pos=50)
    b = decoder_inputs(device, token_id=900, pos=51)
    with torch.no_grad():
        want = model(*a)
        out1 = compiled(*a)
        step1_ok = close(out1, want)
        compiled(*b)
        bug = read_later(out1, want)
        kept = compiled(*a).clone()
        compiled(*b)
        clone = read_later(kept, want)
    return {"step1_read_ok": step1_ok, "bug": bug, "clone": clone}


def mark_step(model, compiled, device: str) -> dict:
    """cudagraph_mark_step_begin(): two calls inside one marked step, the next step, and a mark
    before every call. Returns same_step (the first call's output read after the second call),
    next_step (that output read after the next marked step), mark_every_call (an output read
    after a mark and another call), and recordings (graphs recorded meanwhile)."""
    from .reduce_overhead import count_recordings
    a = decoder_inputs(device, token_id=11, pos=50)
    b = decoder_inputs(device, token_id=900, pos=51)
    mark = torch.compiler.cudagraph_mark_step_begin
    with count_recordings() as rec, torch.no_grad():
        want = model(*a)
        mark()
        out_a = compiled(*a)
        compiled(*b)                      # same step: out_a must survive this call
        same_step = read_later(out_a, want)
        for _ in range(2):                # later steps with the same two calls
            mark()
            compiled(*a)
            compiled(*b)
        next_step = read_later(out_a, want)
        mark()
        out1 = compiled(*a)
        mark()
        compiled(*b)
        every_call = read_later(out1, want)
    return {"same_step": same_step, "next_step": next_step, "mark_every_call": every_call,
            "recordings": rec["recordings"]}
