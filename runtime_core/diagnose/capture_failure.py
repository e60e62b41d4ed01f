""""Cannot be captured" as a verdict: torch's reason in one line, the code that caused it, what to try.

Real networks often cannot be captured whole: a mixture-of-experts router copies a CPU tensor to
the GPU, a step reads a value back to the host (`.item()`, a data-dependent shape), or a library
synchronizes. When our capture fails, the diagnosis keeps its eager analysis and says so, with

    reason    the first line of torch's error (the capture is abandoned; the device stays usable)
    culprit   the user's line that made the call (the innermost frame outside torch and this
              package), and the profile's evidence where it names one (a pageable host copy)
    try       what usually fixes it, chosen by what the reason says

    failure = describe(capture_error, eager_profile)     # a dict, JSON as it is
"""
from __future__ import annotations

import os
import re
import traceback

from ..words import count

_LIBRARY_PARTS = (f"{os.sep}torch{os.sep}", f"{os.sep}runtime_core{os.sep}", f"{os.sep}site-packages{os.sep}",
                  f"{os.sep}dist-packages{os.sep}", "<frozen ")

PARTIAL = ("capture only the part that can be captured (torch.cuda.graph around the layers before and "
           "after the offending step, or torch.compile, which splits the graph there)")
ADVICE = (
    (("pinned", "cpu tensor", "pin_memory"),
     ["give the copy a source that outlives the capture: allocate one pinned CPU tensor once, outside the "
      "step (torch.empty(..., pin_memory=True)), keep it alive, copy it in with .to(device, non_blocking=True) "
      "(a blocking copy synchronizes, which capture forbids), and copy_() each step's values into it before "
      "each replay, once the previous replay has read them. A replay re-reads the address it captured, and "
      "nothing updates a tensor built inside the step. For a constant, build it on the GPU once instead",
      "move the host-side step (building that tensor) out of the captured region", PARTIAL]),
    (("synchron", "item", "not permitted when stream is capturing", "operation not permitted"),
     ["remove the host read-back (.item(), .cpu(), a data-dependent shape or branch) from the step, or keep "
      "the value on the GPU", "move the host-side step out of the captured region", PARTIAL]),
)
GENERIC = ["move the host-side work out of the captured region", PARTIAL]


def describe(error: BaseException, eager_profile=None) -> dict:
    """The verdict's facts about a failed capture: reason, culprit, evidence and what to try."""
    reason = one_line(error)
    return {"reason": reason, "culprit": culprit(error), "evidence": evidence(eager_profile), "try": advice(reason)}


def advice(reason: str) -> list[str]:
    """What to try for a capture that failed with torch's `reason` (its one line): the code's words,
    so a page showing an older recording gives today's advice."""
    low = str(reason).lower()
    return list(next((t for keys, t in ADVICE if any(k in low for k in keys)), GENERIC))


def known_advice(reason) -> list[str] | None:
    """advice() where the reason names a cause we know (None: only the generic advice fits, and a
    recording's own list says more)."""
    if not isinstance(reason, str):
        return None
    tries = advice(reason)
    return None if tries == GENERIC else tries


def one_line(error: BaseException) -> str:
    """torch's own message (the cause of our CaptureError where there is one), first line only."""
    inner = error.__cause__ or error
    text = str(inner).strip() or type(inner).__name__
    return text.splitlines()[0][:300]


def culprit(error: BaseException) -> str | None:
    """"path:line in function: source" of the innermost frame of the user's code in the error's
    traceback (its cause's, where it has one), or None when every frame is a library's."""
    for exc in (error.__cause__, error):
        if exc is None or exc.__traceback__ is None:
            continue
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if not any(p in f.filename for p in _LIBRARY_PARTS)]
        if frames:
            f = frames[-1]
            return f"{os.path.relpath(f.filename) if os.path.isabs(f.filename) else f.filename}:{f.lineno} in {f.name}: {(f.line or '').strip()}"[:300]
    return None


def evidence(profile) -> str | None:
    """What the eager profile shows that a capture refuses: host-to-device copies from pageable
    memory (the profiler names them "Memcpy HtoD (Pageable -> Device)")."""
    if profile is None:
        return None
    pageable = [r for r in getattr(profile, "ops", []) if r[0] == "memcpy" and "pageable" in str(r[4]).lower()]
    if not pageable:
        return None
    return (f"the eager step makes {count(len(pageable), 'copy', 'copies')} from pageable host memory "
            f"({pageable[0][4]}): a graph cannot record one")


def evidence_words(stored: str | None) -> str | None:
    """A recorded evidence line in the code's words: recordings made before words.count wrote
    "1 copy(ies)"; the count they hold is said as "1 copy" or "2 copies"."""
    if not stored:
        return stored
    return re.sub(r"\b(\d+) copy\(ies\)", lambda m: count(int(m.group(1)), "copy", "copies"), stored)


def headline(failure: dict) -> str:
    """The verdict's call; the reason, the culprit and what to try come beside it."""
    return "Cannot be captured whole: CUDA graphs won't help as is"
