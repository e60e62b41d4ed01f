"""Shipped GPU recordings (lessons/recordings/*.json): load them and find the nearest point.

Format (design.md): {"meta": {device_name, torch_version, recorded_at, calibration},
"points": [...], "timelines": {...}, "labs": {...}}. Points are keyed by the *requested* knobs
(mode, n, work_us, extra_tax_us, dynamic, dynamic_policy).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

RECORDINGS_DIR = Path(__file__).resolve().parents[2] / "lessons" / "recordings"
SWEEP_PREFIX = "sweep_"


def load(path: str | Path) -> dict:
    """Read one recording; raise ValueError with the reason if it isn't one."""
    path = Path(path)
    try:
        rec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path.name}: not a readable recording ({e})") from None
    if not isinstance(rec, dict) or "meta" not in rec or "points" not in rec:
        raise ValueError(f"{path.name}: a recording needs 'meta' and 'points'")
    return rec


def latest_recording(directory: Path = RECORDINGS_DIR, prefix: str = SWEEP_PREFIX) -> dict | None:
    """The newest sweep recording shipped with the app (by meta.recorded_at), or None."""
    best = None
    for p in sorted(directory.glob(f"{prefix}*.json")):
        try:
            rec = load(p)
        except ValueError:
            continue
        rec["meta"].setdefault("file", p.name)
        if best is None or rec["meta"].get("recorded_at", "") > best["meta"].get("recorded_at", ""):
            best = rec
    return best


def point_key(p: dict) -> tuple:
    return (p["mode"], bool(p["dynamic"]), p.get("dynamic_policy", "fallback"))


def nearest_point(rec: dict, mode: str, n: int, work_us: float, dynamic: bool = False,
                  extra_tax_us: float = 0.0, policy: str = "fallback") -> dict | None:
    """The recorded point closest to the knobs: same mode/dynamic/policy, nearest N, work, tax.

    Distance is on a log scale (N 120 vs 300 is as far as 300 vs 750), so a student at N=150
    is shown N=120, not N=300. Returns None when no point has that mode and policy.
    """
    policy = policy if (mode == "graph" and dynamic) else "fallback"
    same = [p for p in rec["points"] if point_key(p) == (mode, bool(dynamic), policy)]
    if not same:
        return None

    def dist(p: dict) -> float:
        return (abs(math.log((p["n"] + 1) / (n + 1)))
                + abs(math.log((p["work_us"] + 1) / (work_us + 1)))
                + abs(math.log((p.get("extra_tax_us", 0) + 1) / (extra_tax_us + 1))))
    return min(same, key=dist)


def timeline_for(rec: dict, mode: str, n: int, work_us: float, dynamic: bool) -> list[dict] | None:
    """The recorded timeline spans for exactly this setting (fallback policy), if recorded."""
    return (rec.get("timelines") or {}).get(timeline_key(mode, n, work_us, dynamic))


def timeline_key(mode: str, n: int, work_us: float, dynamic: bool) -> str:
    return f"{mode}|n={n}|work={work_us:g}|dynamic={int(bool(dynamic))}"
