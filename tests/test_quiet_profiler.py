"""torch.profiler's native start/stop lines ("USDT: ... profiler_start") never reach the server's
terminal, while the profiled code's own stderr still does."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import sys, torch
from runtime_core.allocator.torch_memory import cpu_memory
def body():
    print("an error the profiled code prints", file=sys.stderr, flush=True)
    return torch.ones(1000) * 2
cpu_memory(body)
print("done")
"""


def test_profiling_prints_no_native_profiler_lines_but_keeps_the_bodys_stderr():
    r = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "done" in r.stdout, r.stderr
    assert "USDT" not in r.stderr and "profiler_start" not in r.stderr, r.stderr
    assert "an error the profiled code prints" in r.stderr
