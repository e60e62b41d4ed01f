"""Stand-ins for the two slow compilers of the AOT cache, so races run in seconds.

- FAKE_CXX: a "C++ compiler" (set as $CXX) that takes the arguments of cpp_extension's ninja
  file (compile with a depfile, then link), logs each link, writes the linked output slowly in
  chunks and without the execute bit (the cache must set it), and can be told to fail half-way. What it writes is a working runner: a Python script that speaks
  runner.cpp's protocol (args: package device in.bin out.bin dims...; JSON report on stdout)
  and returns the input times two.
- fake_compile_package: AOTInductor's place in export.compile_package: writes a ".pt2" slowly.

Environment: FAKE_CXX_LOG (a file each build appends a line to), FAKE_CXX_SLEEP_S (how long a
build takes), FAKE_CXX_FAIL=1 (write half the output, then fail).
"""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

RUNNER = f'''#!{sys.executable}
import json, sys
import numpy as np
package, device, in_path, out_path, *dims = sys.argv[1:]
x = np.fromfile(in_path, dtype="<f4").reshape([int(d) for d in dims])
(2 * x).astype("<f4").tofile(out_path)
print(json.dumps({{"load_s": 0.001, "first_run_s": 0.001, "run_s": 0.001, "output_shape": list(x.shape)}}))
'''

FAKE_CXX = f'''#!{sys.executable}
import os, sys, time
args = sys.argv[1:]
if "-o" not in args:                 # cpp_extension asks the compiler's version (-dumpfullversion)
    print("12.2.0")
    sys.exit(0)
out = args[args.index("-o") + 1]
if "-MF" in args:                    # ninja reads the dependencies of the object file
    open(args[args.index("-MF") + 1], "w").write(out + ": \\n")
if "-c" in args:                     # ninja's compile step: an object file nobody runs
    open(out, "wb").write(b"object")
    sys.exit(0)
with open(os.environ["FAKE_CXX_LOG"], "a") as log:   # one line per link: one per build
    log.write(f"{{os.getpid()}} {{out}}\\n")
text = {RUNNER!r}.encode()
sleep_s = float(os.environ.get("FAKE_CXX_SLEEP_S", "0.5"))
with open(out, "wb") as f:           # written in pieces, like a linker: a reader could catch it half-done
    for i in range(10):
        f.write(text[i * len(text) // 10:(i + 1) * len(text) // 10])
        f.flush()
        time.sleep(sleep_s / 10)
        if os.environ.get("FAKE_CXX_FAIL") == "1" and i == 5:
            print("runner.cpp:1:1: error: this build was told to fail", file=sys.stderr)
            sys.exit(1)
'''


def install_fake_cxx(folder: Path, monkeypatch, sleep_s: float = 0.5) -> Path:
    """Write the fake compiler into `folder`, point $CXX at it; returns the build log path."""
    cxx = folder / "fake-g++"  # a name cpp_extension accepts as gcc without asking `-v`
    cxx.write_text(FAKE_CXX)
    cxx.chmod(0o755)
    log = folder / "cxx.log"
    log.touch()
    monkeypatch.setenv("CXX", str(cxx))
    monkeypatch.setenv("FAKE_CXX_LOG", str(log))
    monkeypatch.setenv("FAKE_CXX_SLEEP_S", str(sleep_s))
    return log


def builds(log: Path) -> int:
    return len(log.read_text().splitlines())


class FakePackager:
    """export.compile_package's stand-in: counts calls, takes `sleep_s`, may fail half-way."""

    def __init__(self, sleep_s: float = 0.5, fail: bool = False):
        self.sleep_s, self.fail = sleep_s, fail
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, exported, package_path: str) -> None:
        assert package_path.endswith(".pt2")  # AOTInductor insists on the suffix
        with self._lock:
            self.calls += 1
        with open(package_path, "wb") as f:
            for i in range(10):
                f.write(b"PK" + bytes(1000))
                f.flush()
                time.sleep(self.sleep_s / 10)
                if self.fail and i == 5:
                    raise RuntimeError("AOTInductor failed half-way (fake)")


def install_fake_packager(monkeypatch, **kw) -> FakePackager:
    from runtime_core.aot import export
    fake = FakePackager(**kw)
    monkeypatch.setattr(export, "compile_package", fake)
    monkeypatch.setattr(export, "export_mlp", lambda device="cpu", example_batch=8, dynamic=True: "exported")
    return fake


def temps(folder: Path) -> list[str]:
    """Temporary files and folders left in `folder` (anything but the real files and locks)."""
    from runtime_core.cached_build import is_temp
    return sorted(p.name for p in folder.iterdir() if is_temp(p.name)) if folder.exists() else []


def environ_for_child(extra: dict | None = None) -> dict:
    return {**os.environ, **(extra or {})}
