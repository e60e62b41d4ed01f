"""A one-process external grid with its fresh re-checks merged beside it, built from the H200's
results as tests/gpu_runs/merge_external.py builds it: the shape the shipped external recording
had before the fresh-process grid replaced it (2026-12-02), for the code paths that read it."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "tests" / "gpu_runs" / "results"


def one_process_grid(folder: Path) -> Path:
    """`folder`/diagnose_external_h200.json: the one-process grid of 2026-12-01 (middle core) with
    its 12 fresh re-checks (rechecks_s17) and the capture-failure example merged in."""
    path = Path(folder) / "diagnose_external_h200.json"
    shutil.copy(RESULTS / "diagnose_external_spread_h200.json", path)
    path.chmod(0o644)
    checks = sorted((RESULTS / "rechecks_s17").glob("*.json"))
    subprocess.run([sys.executable, str(ROOT / "tests" / "gpu_runs" / "merge_external.py"), str(path),
                    "--failure", str(RESULTS / "capture_failure_h200_2026-12-01.json"),
                    "--rechecks", *map(str, checks)], cwd=ROOT, check=True, capture_output=True, timeout=300)
    return path
