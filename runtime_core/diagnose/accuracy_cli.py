"""`python -m runtime_core accuracy --recording DIAGNOSE_RECORDING`: a diagnose recording against its
targets (the command is model/cli.py's; this module judges the diagnose kind for it).

The zoo's: the speedup within ±15% at 90% of the points measured at 1.2x or more, and every
model's predicted crossover (the first batch of its fp32 sweep under 1.2x) within one grid step of
the measured one. The external
grid's: that, the verdict right at 95% of all points, the band holding the measurement at 90%
with a median half-width of at most 10%, and at least 12 fresh-process re-checks meeting the same
(every point of a grid recorded with --fresh-processes is one). An `info` line judges the graph step
alone (GPU-bound, it measures the same each time); two more say how often the
measurement agrees with itself: each re-check against its grid point, and the whole grid against
a second recording of it (the recording's "repeat", where one is merged in).
Every prediction is recomputed from the points' own counts first, never read from the summary.
"""
from __future__ import annotations


def diagnose_accuracy(rec, as_json: bool) -> int:
    """A diagnose recording judged from its points (recomputed here, never read from its summary)."""
    import json
    from .accuracy import external_accuracy, graph_step_accuracy, repeatability
    from .records import recording_set
    import copy
    external = recording_set(rec.data) == "external"
    if external:
        from .record_external import fresh_checks, snapshot
    else:
        from .record import snapshot
    doc = snapshot(copy.deepcopy(rec.data))  # every prediction from the code as it is now
    pts = doc["points"]
    acc = external_accuracy(pts) if external else doc["summary"]["accuracy"]
    again = None
    checks = {"speedups within ±15% (≥ 90% of points ≥ 1.2x)": (acc["within"], acc["eligible"], acc["share"],
                                                                 acc["meets_speedup_target"])}
    if not external:
        cross = acc["crossovers"]
        near = sum(c["within_one_step"] for c in cross.values())
        checks["crossover within one grid step (every model's fp32 batch sweep)"] = (
            near, len(cross), near / len(cross) if cross else 0.0, acc["meets_crossover_target"])
    if external:
        checks["verdict right (≥ 95% of points)"] = (acc["verdict_right"], acc["points"], acc["verdict_share"],
                                                     acc["meets_verdict_target"])
        checks[f"band holds the measurement (≥ 90%, at a median half-width ≤ 10%: "
               f"here {acc['band_median_half_width']:.1%})"] = (
            acc["band_holds"], acc["banded"], acc["band_share"], acc["meets_band_target"])
        rechecks = fresh_checks(doc)  # a --fresh-processes grid: every point is one
        racc = acc if rechecks is pts else (external_accuracy(rechecks) if rechecks else None)  # judged once
        checks["fresh-process re-checks (≥ 12, same targets)" + (_targets_line(racc) if racc else "")] = (
            len(rechecks), 12, None, bool(racc) and len(rechecks) >= 12 and racc["meets_all"])
        again = None if rechecks is pts or not rechecks else repeatability(pts, rechecks)
    if as_json:
        from ..cli_args import tidy_json
        print(json.dumps(tidy_json(acc), indent=2))  # 12 digits, as every --json
    else:
        which = "zoo" if not external else ("held-out networks" if doc["meta"].get("grid") == "heldout"
                                            else "external grid")
        print(f"{rec.label()} ({which}):")
        for name, (n, total, share, ok) in checks.items():
            count = f"{n} points" if share is None else f"{n}/{total} ({share:.1%})"  # share None: a count, at least `total`
            print(f"  {'ok  ' if ok else 'MISS'} {name}: {count}")
        if external:
            print(_graph_line(graph_step_accuracy(pts)))
        if again and again["pairs"]:
            print(_agree_line("the measurement against itself (a grid point and its fresh re-check, ≥ 1.2x)", again))
        regrid = (doc.get("repeat") or {}).get("points") if external else None
        if regrid:
            print(_agree_line(f"the grid against itself ({len(regrid)} of its points measured again in another "
                              f"process, {doc['repeat'].get('recorded_at')}; ≥ 1.2x)", repeatability(pts, regrid)))
        for m in acc["misses"]:
            print(f"    miss {m['model']} {m['dtype']} batch {m['batch']}: predicted {m['predicted_speedup']}x, "
                  f"measured {m['measured_speedup']}x ({_off(m['error_pct'])})")
    return 0 if all(ok for *_, ok in checks.values()) else 1


def _agree_line(what: str, r: dict) -> str:
    """One `info` line: how often two measurements of the same points agree (accuracy.repeatability)."""
    n = r["pairs"]
    return (f"  info {what}: speedups within ±15% at {r['speedup_within']}/{n}, eager steps {r['eager_within']}/{n}, "
            f"graph steps {r['graph_within']}/{n}")


def _graph_line(g: dict) -> str:
    """One `info` line: the graph step alone, which a GPU-bound replay measures the same each time."""
    lo, hi = g["range"] or (0.0, 0.0)
    return (f"  info the graph step alone: predicted within ±{g['tolerance']:.0%} at {g['within']}/{g['points']} "
            f"(median error {(g['median_error'] or 0):+.1%}, {lo:+.0%} to {hi:+.0%})")


def _targets_line(a: dict) -> str:
    """The re-checks' three targets in one bracket: speedups, verdicts, band (and its half-width)."""
    return (f" [speedups {a['within']}/{a['eligible']}, verdicts {a['verdict_right']}/{a['points']}, band "
            f"{a['band_holds']}/{a['banded']} at half-width {(a['band_median_half_width'] or 0):.1%}]")


def _off(error_pct: float) -> str:
    """A miss's signed error in words that never read as inside ±15% (+15.3%, not +15%)."""
    from ..words import percent_off
    from .accuracy import TOLERANCE
    return ("+" if error_pct > 0 else "-") + percent_off(abs(error_pct) / 100, TOLERANCE)
