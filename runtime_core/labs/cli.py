"""`python -m runtime_core lab NAME`: run one failure-mode lab and print its result as JSON."""
from __future__ import annotations

from ..cli_args import add_backend_arg, add_json_flag
from . import LABS, run_lab


def register(sub) -> None:
    p = sub.add_parser("lab", help="a failure-mode lab")
    p.add_argument("name", choices=list(LABS), metavar="NAME", help="one of: " + ", ".join(LABS))
    add_backend_arg(p, ". A lab the simulator cannot run (trees_lifecycle, d2h_hazard, ...) replays the shipped "
                       "GPU recording instead: its JSON keeps \"backend\": \"sim\" (what ran here) and says "
                       "\"source\": \"recorded\", with the recording's GPU in device_name")
    add_json_flag(p)
    p.set_defaults(func=lambda a: run_lab(a.name, a.backend))
