"""Record every failure-mode lab on a device, for students without one.

    python -m runtime_core.labs.record --out lessons/recordings/labs_h200.json [--backend cuda] [--force]

The recording has meta.kind "labs" and each lab's result dict under labs.<name>; the pages show
it beside the simulated run of the same lab.
"""
from __future__ import annotations

import argparse
import sys

from ..errors import UsageError
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
    store.write(out, doc)
    return doc


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m runtime_core.labs.record", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--backend", default="cuda", choices=("auto", "cuda", "sim"))
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    try:
        doc = record(a.out, a.backend, a.force)
    except UsageError as e:
        print(f"runtime_core: error: {e}", file=sys.stderr)
        return 2
    print(f"{a.out}: {len(doc['labs'])} labs, signal in {sum(r['signal'] for r in doc['labs'].values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
