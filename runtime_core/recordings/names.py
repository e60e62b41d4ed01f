"""Where `make record` writes a student's own recording: lessons/recordings/<device>-<torch>-<date>.json.

    python -m runtime_core.recordings.names            the path for this machine's GPU today
    python -m runtime_core.recordings.names --latest   the newest existing one for this GPU

The name never matches a shipped file (those are named sweep_*.json), so recording your own GPU
cannot write over what the app ships.
"""
from __future__ import annotations

import datetime as dt
import re
import sys
from pathlib import Path

from .store import recordings_dir


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def own_recording_path(device_name: str, torch_version: str, day: dt.date | None = None) -> Path:
    day = day or dt.datetime.now(dt.timezone.utc).date()
    return recordings_dir() / f"{slug(device_name)}-{slug(torch_version)}-{day.isoformat()}.json"


def _this_gpu() -> tuple[str, str]:
    try:
        import torch
    except ImportError:  # make record runs the machine's own python3 (no venv): it may lack torch
        print(f"runtime_core: error: make record needs torch with CUDA; {sys.executable} cannot import torch "
              "(PYTHON=.venv/bin/python uses the venv's)", file=sys.stderr)
        raise SystemExit(2) from None
    if not torch.cuda.is_available():
        print("runtime_core: error: make record needs a CUDA GPU; torch sees none here", file=sys.stderr)
        raise SystemExit(2)
    return torch.cuda.get_device_name(0), torch.__version__


def main(argv: list[str]) -> int:
    name, version = _this_gpu()
    if "--latest" in argv:
        prefix = f"{slug(name)}-{slug(version)}-"
        found = sorted(p for p in recordings_dir().glob(f"{prefix}*.json"))
        if not found:
            print(f"runtime_core: error: no recording of {name} yet; run `make record` first", file=sys.stderr)
            return 2
        print(found[-1])
        return 0
    print(own_recording_path(name, version))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
