"""`python -m runtime_core sweep`: measure a grid of widget points into a recording."""
from __future__ import annotations

import json
from pathlib import Path

from ..cli_args import add_backend_arg, number, path, refuse_unused
from ..errors import UsageError
from ..knobs import Range
from . import store


def register(sub) -> None:
    p = sub.add_parser("sweep", help="record a grid of measured points (JSON)")
    p.add_argument("--out", type=path, required=True)
    add_backend_arg(p)
    p.add_argument("--budget-s", type=number(Range(1, 86_400), "budget_s"), default=480.0)
    mode = p.add_mutually_exclusive_group()  # one way to open an existing --out (--force with --resume lost it)
    mode.add_argument("--resume", action="store_true", help="continue a partial recording at --out")
    mode.add_argument("--force", action="store_true", help="replace an existing file at --out")
    p.add_argument("--quick", action="store_true", help="a small grid (for tests)")
    mode.add_argument("--retrace", action="store_true",
                   help="trace the shipped timelines of an existing recording again (needs the device)")
    mode.add_argument("--refresh", action="store_true",
                   help="recompute the derived fields of an existing recording (no device needed)")
    p.add_argument("--passes", type=number(Range(1, 10, integer=True), "passes"), default=None,
                   help="timing passes over the grid (default: 5 on a GPU, 1 simulated)")
    p.set_defaults(func=run, parser=p)


def run(a) -> int:
    from .sweep import refresh, retrace, run_sweep
    # a flag the chosen call would not read exits 2 and names itself (--refresh --backend cuda --passes 9)
    if a.retrace:
        refuse_unused(a, a.parser, {"out", "backend", "retrace"}, "with --retrace (it times nothing)")
    elif a.refresh:
        refuse_unused(a, a.parser, {"out", "refresh"}, "with --refresh (it runs no device)")
    out = Path(a.out)
    edits_in_place = a.resume or a.refresh or a.retrace
    store.check_target(out, force=a.force or edits_in_place)  # fail before any measuring
    if (a.retrace or a.refresh) and not out.exists():
        raise UsageError(f"--{'retrace' if a.retrace else 'refresh'} needs an existing recording, "
                         f"and {out} does not exist")
    if a.retrace:
        rec = retrace(out, a.backend)
        print(json.dumps({"out": str(out), "timelines": len(rec["timelines"]), "retraced": True}))
        return 0
    if a.refresh:
        rec = refresh(out)
        print(json.dumps({"out": str(out), "points": len(rec["points"]), "refreshed": True}))
        return 0
    rec = run_sweep(out, a.backend, a.budget_s, a.resume, a.quick, a.passes)
    from .grid import grid, low_tax_grid
    print(json.dumps({"out": str(out), "points": len(rec["points"]),
                      "of": len(grid(a.quick)) + len(low_tax_grid(a.quick)),
                      "complete": rec["meta"]["complete"], "written": out.exists()}))
    return 0
