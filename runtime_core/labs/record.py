"""Record every failure-mode lab on a device, for students without one.

    python -m runtime_core.labs.record --out lessons/recordings/labs_h200.json [--backend cuda] [--force]

The recording has meta.kind "labs" and each lab's result dict under labs.<name>; the pages show
it beside the simulated run of the same lab.
"""
from __future__ import annotations

import sys

from ..cli_args import Parser, one_line_errors, path
from . import LABS, run_lab


def record(out: str, backend: str = "cuda", force: bool = False) -> dict:
    """Run every lab on `backend` and write the recording to `out` (checked before the runs)."""
    import torch

    from ..recordings.shipped import get_device
    from ..recordings import store
    store.check_target(out, force)
    dev = get_device(backend)
    labs = {name: run_lab(name, backend) for name in LABS}
    doc = {"meta": store.new_meta("labs", dev.name, torch.__version__, str(dev.backend)), "points": [],
           "labs": labs}
    store.write_own(out, doc)
    return doc


def main(argv: list[str]) -> int:
    """The command line; a bad argument or target is one line on stderr and exit status 2."""
    return one_line_errors("runtime_core.labs.record", _main, argv)


def _main(argv: list[str]) -> int:
    ap = Parser(prog="python -m runtime_core.labs.record", description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=path, required=True)
    ap.add_argument("--backend", default="cuda", choices=("auto", "cuda", "sim"))
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    doc = record(a.out, a.backend, a.force)
    print(f"{a.out}: {len(doc['labs'])} labs, signal in {sum(r['signal'] for r in doc['labs'].values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
