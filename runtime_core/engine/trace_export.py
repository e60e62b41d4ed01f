"""Export a timeline as CSV rows or as a Chrome trace (JSON that Perfetto and chrome://tracing open)."""
from __future__ import annotations

import csv
import io
import json


def _get(s, name):
    return s[name] if isinstance(s, dict) else getattr(s, name)


def spans_to_csv(spans) -> str:
    """CSV with lane, kind, name, start_us, end_us, dur_us: one row per span."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["lane", "kind", "name", "start_us", "end_us", "dur_us"])
    for s in spans:
        a, b = _get(s, "start_us"), _get(s, "end_us")
        w.writerow([_get(s, "lane"), _get(s, "kind"), _get(s, "name"), f"{a:.3f}", f"{b:.3f}", f"{b - a:.3f}"])
    return buf.getvalue()


def spans_to_chrome_trace(spans, label: str) -> str:
    """Chrome-trace JSON: complete ("X") events, CPU on thread 1 and GPU on thread 2 of one process."""
    tid = {"cpu": 1, "gpu": 2}
    events = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": label}},
              {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "CPU (host)"}},
              {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "GPU"}}]
    for s in spans:
        a, b = _get(s, "start_us"), _get(s, "end_us")
        events.append({"ph": "X", "pid": 1, "tid": tid.get(_get(s, "lane"), 3), "name": _get(s, "name"),
                       "cat": _get(s, "kind"), "ts": round(a, 3), "dur": round(max(b - a, 0.0), 3)})
    return json.dumps({"traceEvents": events, "displayTimeUnit": "ns"})
