"""`make test` on every core: the test files split into shards that run as pytest processes at
once, one per core (two on the 2-core CI machine), each with its own temporary folder and no
shared pytest cache. The suite is single-threaded, so one pytest process leaves a core idle.

    python tests/run_shards.py [pytest args, e.g. -m "not long"]
    python tests/run_shards.py --weigh DURATIONS_LOG     (rewrite tests/shard_weights.json)

Files go to shards by weight (tests/shard_weights.json: each file's seconds in make test, read
from a `pytest --durations=0` log, plus PER_TEST_S a test; a file not in it weighs WEIGHT_DEFAULT), heaviest first onto
the lightest shard. Files that share a session fixture that costs a real build stay together
(TOGETHER). Each shard's lines are printed as they come, prefixed with its number; the exit
status is the worst shard's. RUNTIME_TEST_SHARDS=1 (or one core) runs one plain pytest.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
WEIGHTS = TESTS / "shard_weights.json"
WEIGHT_DEFAULT = 1.0
# conftest's warm_aot_cache: one real CPU measurement per session, for whichever of these asks first
TOGETHER = ("test_aot_class.py", "test_aot_cli.py", "test_aot_prebuild.py", "test_serving_packages.py")


def shard_count() -> int:
    raw = os.environ.get("RUNTIME_TEST_SHARDS", "").strip()
    if raw:
        if not raw.isdigit() or int(raw) < 1:
            raise SystemExit(f"RUNTIME_TEST_SHARDS={raw!r}: give a whole number of 1 or more")
        return int(raw)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def split(files: list[str], weights: dict[str, float], n: int) -> list[list[str]]:
    """Files (names under tests/) in `n` shards of about equal weight; TOGETHER in one of them."""
    units = [[f] for f in files if f not in TOGETHER] + [[f for f in files if f in TOGETHER]]
    units = [u for u in units if u]
    units.sort(key=lambda u: -sum(weights.get(f, WEIGHT_DEFAULT) for f in u))
    shards, load = [[] for _ in range(n)], [0.0] * n
    for u in units:
        i = load.index(min(load))
        shards[i] += u
        load[i] += sum(weights.get(f, WEIGHT_DEFAULT) for f in u)
    return [sorted(s) for s in shards if s]


def _pump(k: int, stream, lock) -> None:
    for line in stream:
        with lock:
            sys.stdout.write(f"[{k}] {line}")
            sys.stdout.flush()


def run(args: list[str]) -> int:
    n = shard_count()
    if n == 1:
        return subprocess.call([sys.executable, "-m", "pytest", *args], cwd=ROOT)
    weights = json.loads(WEIGHTS.read_text()) if WEIGHTS.exists() else {}
    files = sorted(p.name for p in TESTS.glob("test_*.py"))
    shards = split(files, weights, n)
    base = Path(tempfile.mkdtemp(prefix="pytest-shards-"))
    procs, lock, pumps = [], threading.Lock(), []
    for k, shard in enumerate(shards, start=1):
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", f"--basetemp={base / str(k)}", *args,
               *(f"tests/{f}" for f in shard)]
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        t = threading.Thread(target=_pump, args=(k, p.stdout, lock), daemon=True)
        t.start()
        procs.append(p)
        pumps.append(t)
    codes = [p.wait() for p in procs]
    for t in pumps:
        t.join()
    codes = [0 if c == 5 else c for c in codes]  # 5: a shard whose files hold no selected test
    print(f"shards: {len(shards)} pytest processes, exit {codes}"
          f" ({', '.join(f'{len(s)} files' for s in shards)})")
    return max(codes)


PER_TEST_S = 0.01  # what a test costs beyond its timed phases (reporting, fixtures' glue; collection is one
# fixed cost a shard, ~12 s either way): a shard's wall less its timed phases was 11.6-12.7 s for 700 and for
# 1,190 tests alike (2026-12-04 logs); 0.08 a test put 30 s more real work on the shard of fewer tests


def weigh(log: str) -> None:
    """shard_weights.json from a `pytest --durations=0` log (plain, or make test's with each line
    prefixed by its shard): seconds per file, plus PER_TEST_S for each of its tests. A log with no
    duration line is refused: an empty table would put every file at the default weight."""
    agg = Counter()
    for line in Path(log).read_text().splitlines():
        m = re.match(r"(?:\[\d+\] +)?([\d.]+)s (call|setup|teardown)\s+tests/(\S+?\.py)::", line)  # make test's own log too
        if m:
            agg[m.group(3)] += float(m.group(1)) + (PER_TEST_S if m.group(2) == "call" else 0.0)
    if not agg:
        sys.exit(f"run_shards: no `--durations=0` lines in {log}; {WEIGHTS.name} is unchanged")
    WEIGHTS.write_text(json.dumps({k: round(v, 1) for k, v in sorted(agg.items())}, indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--weigh"]:
        weigh(sys.argv[2])
    else:
        sys.exit(run(sys.argv[1:]))
