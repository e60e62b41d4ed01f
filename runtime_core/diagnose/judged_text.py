"""A point's judgement in figures that cannot contradict it: a band printed with enough digits
that the measurement visibly falls inside it (or outside), and an error printed with enough
digits that it visibly lands within the tolerance (or past it). Two decimals and whole percents
are the default; more only where rounding would make "misses 3.78x" sit beside "3.46–3.78x"."""
from __future__ import annotations

from ..words import percent_off


def band_figures(band: list[float] | tuple[float, float], meas: float, holds: bool) -> tuple[str, str, str]:
    """(lo, hi, measured) as text, with the fewest decimals (2 to 8) at which the printed
    measurement sits where `holds` says: inside [lo, hi] or outside it, and a band of some width
    never prints as one number ("1.01–1.01")."""
    lo, hi = band
    for d in range(2, 9):
        a, b, m = (round(x, d) for x in (lo, hi, meas))
        if (a <= m <= b) == holds and (a < b or lo == hi):
            return f"{lo:.{d}f}", f"{hi:.{d}f}", f"{meas:.{d}f}"
    return f"{lo:.8f}", f"{hi:.8f}", f"{meas:.8f}"   # within 1e-8: beyond what any reader compares


def error_figure(err: float, tolerance: float, within: bool | None) -> str:
    """The signed error (predicted / measured − 1) as a percent: whole where that agrees with
    `within` (None: not judged, whole), else with the decimals percent_off needs (a miss by 15.04%
    against ±15% reads "+15.04%", never "+15%"); a point judged within never reads above the
    tolerance, and none reads "-0%"."""
    sign = "+" if err >= 0 else "-"
    if f"{abs(err):.0%}" == "0%" and within is not False:   # never "-0%" or "+0%"
        return "under 1%"
    if within is None:
        return f"{err:+.0%}"
    if within is False:
        off = percent_off(abs(err), tolerance)
        return off if off.startswith("just over") else sign + off
    for d in (0, 1, 2):
        text = f"{abs(err) * 100:.{d}f}"
        if float(text) <= tolerance * 100:
            return sign + text + "%"
    return sign + f"{abs(err) * 100:.2f}%"
