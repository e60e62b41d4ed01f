"""Issue 25's open question (not product code): what *is* the host's slow state? On the H200's
virtual machine Python runs in states up to 2x apart, for a fraction of a second to tens of
seconds (README, Known limits). Three causes would look alike on a wall clock:
- steal: the hypervisor runs another guest on our virtual core; our thread's CPU time stops while
  the wall clock runs on, and /proc/stat's steal column grows;
- a busy sibling or a lower clock: our thread runs, but slower; its CPU time grows with the wall;
- another process of our own machine on our core: /proc/self/schedstat's run-queue wait grows.

In one process, pinned to one core as the diagnosis times (engine.cores), blocks back to back for
SECONDS: each block times a pure-Python loop, H (enqueue only, 9 reps) and the synced eager step
(5 reps) of one network, each rep on both the wall clock and this thread's CPU clock, with the
core's /proc/stat row and /proc/self/schedstat before and after. Then SWEEP_S seconds of the loop
on every core in turn (is the slow state one core's, or every core's at once?).

    python3 tests/gpu_runs/steal_probe.py OUT.json SECONDS SWEEP_S name:batch:dtype ...
    python3 tests/gpu_runs/steal_probe.py --summary OUT.json      (here, no GPU: what it found)
"""
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SPIN = 20000   # interpreted additions in the pure-Python loop (~1 ms on a server core)
STAT_COLS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def spin() -> int:
    x = 0
    for i in range(SPIN):
        x += i
    return x


def clocks() -> tuple[int, int]:
    return time.perf_counter_ns(), time.thread_time_ns()


def cpu_row(cpu: int) -> list[int]:
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{cpu} "):
                return list(map(int, line.split()[1:9]))
    return []


def all_steal() -> dict[int, int]:
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                p = line.split()
                out[int(p[0][3:])] = int(p[8])
    return out


def schedstat() -> list[int]:
    try:
        return list(map(int, Path("/proc/thread-self/schedstat").read_text().split()))
    except OSError:
        return []


def timed(fn, reps, sync=None) -> list[list[float]]:
    """[wall µs, thread-CPU µs] per rep."""
    out = []
    for _ in range(reps):
        if sync:
            sync()
        w0, c0 = clocks()
        fn()
        if sync:
            sync()
        w1, c1 = clocks()
        out.append([round((w1 - w0) / 1e3, 1), round((c1 - c0) / 1e3, 1)])
    return out


def facts() -> dict:
    def read(p):
        try:
            return Path(p).read_text().strip()[:400]
        except OSError:
            return None
    info = read("/proc/cpuinfo") or ""
    flags = next((l for l in (Path("/proc/cpuinfo").read_text().splitlines() if info else []) if l.startswith("flags")), "")
    return {"uname": platform.uname()._asdict(), "cpus": os.cpu_count(), "affinity": sorted(os.sched_getaffinity(0)),
            "model_name": next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines()
                                if l.startswith("model name")), None),
            "hypervisor_flag": " hypervisor" in flags,
            "clocksource": read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
            "cpufreq": os.path.exists("/sys/devices/system/cpu/cpu0/cpufreq"),
            "siblings": {c: read(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list") for c in range(os.cpu_count() or 1)},
            "loadavg": read("/proc/loadavg")}


def probe(name, batch, dtype, seconds) -> dict:
    import torch
    from tests.gpu_runs.repeat_probe import warm_steps
    from runtime_core.diagnose.runners import get_runner
    runner = get_runner("cuda")
    step, _, eager, _ = warm_steps(runner, name, batch, dtype)
    cores = sorted(os.sched_getaffinity(0))
    core = cores[len(cores) // 2]
    os.sched_setaffinity(0, {core})
    rows, t0 = [], time.monotonic()
    while time.monotonic() - t0 < seconds:
        s0, q0, st0 = cpu_row(core), schedstat(), time.monotonic() - t0
        sp = timed(spin, 3)
        eager(), eager()
        h = _enqueue(eager, 9, torch.cuda.synchronize)
        e = timed(eager, 5, torch.cuda.synchronize)
        s1, q1 = cpu_row(core), schedstat()
        rows.append({"t": round(st0, 3), "spin": sp, "h": h, "e": e,
                     "stat": [b - a for a, b in zip(s0, s1)], "sched": [b - a for a, b in zip(q0, q1)]})
    os.sched_setaffinity(0, set(cores))
    step = None
    runner.cleanup()
    return {"name": name, "batch": batch, "dtype": dtype, "core": core, "rows": rows}


def _enqueue(fn, reps, sync) -> list[list[float]]:
    """H's reps: sync first, then time only the enqueue (as timing.host_dispatch_us)."""
    out = []
    for _ in range(reps):
        sync()
        w0, c0 = clocks()
        fn()
        w1, c1 = clocks()
        out.append([round((w1 - w0) / 1e3, 1), round((c1 - c0) / 1e3, 1)])
    sync()
    return out


def sweep(seconds) -> dict:
    cores = sorted(os.sched_getaffinity(0))
    rows, steal, t0 = [], [], time.monotonic()
    while time.monotonic() - t0 < seconds:
        steal.append([round(time.monotonic() - t0, 3), all_steal()])
        for c in cores:
            os.sched_setaffinity(0, {c})
            r = timed(spin, 3)
            best = min(r, key=lambda x: x[0])
            rows.append([round(time.monotonic() - t0, 3), c, best[0], best[1]])
    steal.append([round(time.monotonic() - t0, 3), all_steal()])
    os.sched_setaffinity(0, set(cores))
    return {"rows": rows, "columns": ["t_s", "core", "wall_us", "cpu_us"], "steal": steal}


def main(out, seconds, sweep_s, points):
    import torch
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
           "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "facts": facts(),
           "stat_columns": STAT_COLS, "sched_columns": ["run_ns", "wait_ns", "slices"],
           "steal_start": all_steal(), "points": []}
    for p in points:
        name, batch, dtype = p.split(":")
        res["points"].append(probe(name, int(batch), dtype, seconds))
        print(f"{p}: {len(res['points'][-1]['rows'])} blocks", flush=True)
    res["sweep"] = sweep(sweep_s)
    res["steal_end"] = all_steal()
    Path(out).write_text(json.dumps(res))
    summary(res)


def _med(v):
    return statistics.median(v)


def summary(res) -> None:
    f = res["facts"]
    print(f"{res['device']} torch {res['torch']} {res['recorded_at']}; {f['model_name']}; {f['cpus']} cpus; "
          f"hypervisor {f['hypervisor_flag']}; clocksource {f['clocksource']}; siblings of 0: {f['siblings'].get('0') or f['siblings'].get(0)}")
    st0, st1 = res["steal_start"], res["steal_end"]
    print("steal ticks over the run, per cpu:", {c: st1[c] - st0[c] for c in st0} if isinstance(st0, dict) else st0)
    for p in res["points"]:
        rows = p["rows"]
        hw = [_med([r[0] for r in x["h"]]) for x in rows]
        hc = [_med([r[1] for r in x["h"]]) for x in rows]
        ew = [_med([r[0] for r in x["e"]]) for x in rows]
        ec = [_med([r[1] for r in x["e"]]) for x in rows]
        sw = [min(r[0] for r in x["spin"]) for x in rows]
        sc = [min(r[1] for r in x["spin"]) for x in rows]
        steal = [x["stat"][7] for x in rows]
        wait = [x["sched"][1] / 1e3 if len(x["sched"]) > 1 else 0 for x in rows]
        q = lambda v, a: sorted(v)[int(a * (len(v) - 1))]
        print(f"{p['name']} b{p['batch']} {p['dtype']} on core {p['core']}: {len(rows)} blocks")
        for lab, v in (("H wall", hw), ("H cpu", hc), ("eager wall", ew), ("eager cpu", ec), ("spin wall", sw), ("spin cpu", sc)):
            print(f"  {lab:10s} p10 {q(v, .1):8.0f}  p50 {q(v, .5):8.0f}  p90 {q(v, .9):8.0f}  p90/p10 {q(v, .9) / q(v, .1):.2f}")
        slow = [i for i in range(len(rows)) if hw[i] > 1.3 * q(hw, .1)]
        fast = [i for i in range(len(rows)) if hw[i] <= 1.1 * q(hw, .1)]
        for lab, idx in (("fast blocks", fast), ("slow blocks", slow)):
            if idx:
                print(f"  {lab}: {len(idx)}; H cpu/wall {_med([hc[i] / hw[i] for i in idx]):.2f}; spin wall {_med([sw[i] for i in idx]):.0f} us"
                      f" cpu {_med([sc[i] for i in idx]):.0f}; steal ticks/block {statistics.mean([steal[i] for i in idx]):.2f};"
                      f" runqueue wait {_med([wait[i] for i in idx]):.0f} us/block")
    sw = res["sweep"]["rows"]
    by_core = {}
    for t, c, w, cpu in sw:
        by_core.setdefault(c, []).append(w)
    print("sweep: per core spin wall p10/p50/p90 us:",
          {c: [round(sorted(v)[int(a * (len(v) - 1))]) for a in (.1, .5, .9)] for c, v in by_core.items()})


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        d = json.loads(Path(sys.argv[2]).read_text())
        d["steal_start"] = {int(k): v for k, v in d["steal_start"].items()}
        d["steal_end"] = {int(k): v for k, v in d["steal_end"].items()}
        summary(d)
    else:
        main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4:])
