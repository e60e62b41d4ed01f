"""The reduce-overhead lab without a GPU: the shipped recording's numbers (the newest of the
reduce-overhead, labs and decoder recordings that holds them)."""
from __future__ import annotations

from .points import RECORD_COMMAND, finish, points_from_decoder


def run() -> dict:
    """The simulator has no torch.compile to run: the shipped GPU recording, labelled recorded."""
    from ...recordings import store
    for kind in ("reduce_overhead", "labs"):
        rec = store.best(kind)
        lab = rec.labs.get("reduce_overhead") if rec else None
        if lab:
            return finish(lab, backend="sim", source="recorded", device_name=rec.label(), recording=rec.meta.file)
    rec = store.best("decoder")
    if rec is None:  # nothing to replay: owed, no numbers, and the command that records it
        from ..gpu_recorded import owed
        return owed("reduce_overhead", "what torch.compile's reduce-overhead mode does",
                    record_command=f"{RECORD_COMMAND}   # on a CUDA GPU, minutes", merge_command="")
    return finish(points_from_decoder(rec), backend="sim", source="recorded", device_name=rec.label(),
                  recording=rec.meta.file)
