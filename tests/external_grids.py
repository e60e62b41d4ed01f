"""A one-process external grid with its fresh re-checks merged beside it, built from the H200's
results as tests/gpu_runs/merge_external.py builds it: the shape the shipped external recording
had before the fresh-process grid replaced it (2026-12-02), for the code paths that read it."""
import contextlib
import io
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "tests" / "gpu_runs" / "results"


def one_process_grid(folder: Path) -> Path:
    """`folder`/diagnose_external_h200.json: the one-process grid of 2026-12-01 (middle core) with
    its 12 fresh re-checks (rechecks_s17) and the capture-failure example merged in.

    merge_external.py's own main() runs in this process (its command line in sys.argv for the
    while), as test_torch_labs.py runs merge_labs28.py's: the same file, byte for byte, as the
    script run as a child writes, without a second interpreter importing torch (seconds)."""
    path = Path(folder) / "diagnose_external_h200.json"
    shutil.copy(RESULTS / "diagnose_external_spread_h200.json", path)
    path.chmod(0o644)
    checks = sorted((RESULTS / "rechecks_s17").glob("*.json"))
    if str(ROOT / "tests" / "gpu_runs") not in sys.path:
        sys.path.insert(0, str(ROOT / "tests" / "gpu_runs"))
    import merge_external
    argv = sys.argv
    sys.argv = [str(ROOT / "tests" / "gpu_runs" / "merge_external.py"), str(path),
                "--failure", str(RESULTS / "capture_failure_h200_2026-12-01.json"), "--rechecks", *map(str, checks)]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            merge_external.main()
    finally:
        sys.argv = argv
    return path
