"""How a diagnosis point was timed, in words for page 7: H read as the host's floor or as a
median (host_floor.py), the band's H interval, the measured floors beside their medians, and the
warning where the host changed speed while it was measured."""
from __future__ import annotations

from runtime_core.diagnose import host_floor
from runtime_core.lesson.page_text import text as prose


def _us(x: float) -> str:
    return f"{x:,.1f} µs" if abs(x) < 100 else f"{x:,.0f} µs"


HOST_MOVED = 1.25  # H rounds whose highest is this far above their lowest: the host changed speed


def _floor(p: dict) -> bool:
    """Whether the point was timed by the host's floor (host_floor.py), not by medians."""
    return host_floor.statistic(p) == host_floor.FLOOR


def _window(seconds) -> str:
    """A timing window in words: "15 seconds", or back to back on a virtual clock (0 s)."""
    s = float(seconds or 0.0)
    if s <= 0:
        return "back to back, on a virtual clock"
    words = {1.0: "one second", 2.0: "two seconds", 5.0: "five seconds", 10.0: "ten seconds", 15.0: "15 seconds"}
    return words.get(s, f"{s:g} seconds")


def h_how(points: list[dict]) -> str:
    """How a recording's points timed H and the steps, in words (from its first point's `timing`)."""
    p = points[0] if points else {}
    if not _floor(p):
        return prose("diagnose", "h_how_recent")
    t = p["timing"]
    return prose("diagnose", "h_how_floor", rounds=t["host_rounds"], window=_window(t["host_window_s"]),
                 m_rounds=t["measure_rounds"], m_window=_window(t["measure_window_s"]))


def _measured_help(p: dict) -> str | None:
    """What the measured speedup is: for a floor point, the floors and the medians beside them."""
    variants = p.get("variants") or {}
    eager, graph = variants.get("eager") or {}, variants.get("our_graph") or {}
    if not _floor(p) or not eager.get("median_us") or not graph.get("median_us"):
        return None
    t = p["timing"]
    return prose("diagnose", "measured_help_floor", rounds=t["measure_rounds"], window=_window(t["measure_window_s"]),
                 median=_us(eager["median_us"]), slower=f"{eager['median_us'] / eager['us']:.2f}",
                 g_median=_us(graph["median_us"]))


def host_moved(p: dict) -> str | None:
    """A warning where the point's own H rounds show the host changing speed while it ran (None
    where they agree): one timing of such a step can land anywhere in the band, not at the point.
    For a floor point it says what the floor reads and how much slower one timing can be."""
    rounds = p.get("host_rounds_us") or []
    if not rounds and len(p.get("passes") or []) >= 2:  # recorded before rounds: the H of each pass
        return _passes_moved(p)
    if len(rounds) < 2 or min(rounds) <= 0 or max(rounds) / min(rounds) < HOST_MOVED:
        return None
    eager = (p.get("variants") or {}).get("eager") or {}
    gpu_us = (p.get("verdict") or {}).get("gpu_us") or 0.0
    if gpu_us > max(rounds) and eager.get("median_us") and eager.get("us"):  # the host's speed hardly counts
        return prose("diagnose", "host_moved_gpu_bound", lo=_us(min(rounds)), hi=_us(max(rounds)),
                     ratio=f"{max(rounds) / min(rounds):.1f}", rounds=len(rounds), gpu=_us(gpu_us),
                     median=_us(eager["median_us"]), slower=f"{eager['median_us'] / eager['us']:.2f}")
    if _floor(p) and eager.get("median_us") and eager.get("us"):
        return prose("diagnose", "host_moved_floor", lo=_us(min(rounds)), hi=_us(max(rounds)),
                     ratio=f"{max(rounds) / min(rounds):.1f}", rounds=len(rounds), median=_us(eager["median_us"]),
                     slower=f"{eager['median_us'] / eager['us']:.2f}")
    from runtime_core.diagnose.accuracy import band_holds
    held = band_holds(p)
    tail = "" if held is None else " " + prose("diagnose", "host_moved_" + ("held" if held else "missed"))
    return prose("diagnose", "host_moved", lo=_us(min(rounds)), hi=_us(max(rounds)),
                 ratio=f"{max(rounds) / min(rounds):.1f}", rounds=len(rounds)) + tail


def _passes_moved(p: dict) -> str | None:
    """host_moved for a point recorded before rounds: its passes, minutes apart, each timed its own
    H; the point keeps the median pass, so its H per operation reads the host's state then."""
    from runtime_core.diagnose.diagnosis import pass_hs
    hs = pass_hs(p)
    if min(hs) <= 0 or max(hs) / min(hs) < HOST_MOVED:
        return None
    return prose("diagnose", "host_moved_passes", passes=len(hs), lo=_us(min(hs)), hi=_us(max(hs)),
                 ratio=f"{max(hs) / min(hs):.1f}", kept=_us(p["host_dispatch_us"]))


def band_odds(p: dict) -> float | None:
    """The probability the band's own H interval holds a new round, where its rounds say (a
    recording's passes, or rounds by the median); None for the floor's band, which the targets judge."""
    from runtime_core.diagnose.diagnosis import band_holds, pass_hs
    if p.get("host_rounds_us") and _floor(p):
        return None
    return band_holds(len(p.get("host_rounds_us") or pass_hs(p)))


def _band_help(p: dict) -> str:
    """What the band is worth for this point: how many H rounds made it, and how they were timed."""
    from runtime_core.diagnose.diagnosis import band_holds, pass_hs
    rounds = p.get("host_rounds_us")
    if not rounds:  # a recording made before rounds: the band's H is that of its passes (diagnosis.with_band)
        rounds = pass_hs(p)
        return prose("diagnose", "band_help", rounds=len(rounds), how="one per pass, the passes minutes apart",
                     holds=f"{band_holds(len(rounds)):.0%}")
    n = len(rounds)
    if _floor(p):
        lo, hi = host_floor.floor_interval(rounds)
        f = host_floor.floor_us(rounds)
        return prose("diagnose", "band_help_floor", rounds=n, window=_window(p["timing"]["host_window_s"]),
                     moved=f"{(hi - f) / f:.1%}" if f > 0 else "0%", lo=_us(lo), hi=_us(hi))
    how = ("spread over two seconds" if n >= 19 else
           "back to back, and every round gave the same H: a virtual clock" if len(set(rounds)) == 1 else
           "back to back: recorded before the rounds were spread out")
    return prose("diagnose", "band_help", rounds=n, how=how, holds=f"{band_holds(n):.0%}")
