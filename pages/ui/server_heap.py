"""The server's heap, kept out of the cyclic garbage collector's way (issue 21 item 9).

With torch, streamlit and plotly loaded the server holds about 300,000 long-lived objects, and
each of Python's full (generation 2) collections walks all of them: about 60 ms on the 2-core
development machine, which a widget setting at N=2,000 (tens of thousands of short-lived spans)
set off every second knob change. `settle()` runs at the start of every page's script run: when
modules were imported since it last ran (a page's first visit on this server, or its first
simulation), it collects once and freezes what is alive (gc.freeze), so later full collections
walk only what the sessions create. It costs one collection per new set of modules.

RUNTIME_GC_FREEZE=0 switches it off (the tests do: pytest imports modules all session long);
runtime_core/env_check.py reads it.
"""
from __future__ import annotations

import gc
import sys
import threading

_lock = threading.Lock()
_modules_seen = 0


def enabled() -> bool:
    from runtime_core.env_check import gc_freeze
    return gc_freeze()[0]


def settle() -> bool:
    """Collect and freeze the heap if modules were imported since the last time; True if it did."""
    global _modules_seen
    if len(sys.modules) <= _modules_seen or not enabled():
        return False
    with _lock:
        n = len(sys.modules)
        if n <= _modules_seen:
            return False
        gc.collect()
        gc.freeze()
        _modules_seen = n
    return True
