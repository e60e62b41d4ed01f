"""The checkpoint exercise ("Try it"): six steps, each ticked only on evidence the student made.

The student records results (a `Run`: the knobs one result was taken at) into a notebook. A step
names the runs it needs (`Need`); it ticks when the notebook holds them, the prediction it asks
for (if any) has been entered, and every relation it checks holds. Relations carry both sides'
values, so a page can show what was compared, not just a verdict.

Exact numbers (720 µs and the like) are checked on the textbook model only. Measured numbers
(live, recorded or simulated) are checked as relations, because a real GPU adds a sync round
trip, launch latency and noise: on an H200 eager overhead at the defaults is ~1.6 ms, not 720 µs.

`numbers(run)` must return {"model": metrics, "measured": metrics or None} for one run.
The notebook and the predictions round-trip through short text (`encode_*`/`decode_*`) so a page
can keep progress in its URL.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..errors import UsageError
from ..knobs import LIMITS, SEED_N, SEED_TAX_US, Mode, Policy, choices
from .prediction import box_text, read_typed

CATCH_UP_TOLERANCE = 0.05  # step "work_40": streams counts as caught up within this fraction of graph
MAX_RUNS = 40              # the notebook keeps this many runs: every step's evidence, then the latest
PREDICTION_MAX = 1e9       # a prediction above this is a typo, not a guess (typed or read from the URL)


@dataclass(frozen=True)
class Run:
    """One result the student recorded: the setting it was taken at."""

    mode: str
    n: int
    tax_us: float
    work_us: float
    dynamic: bool = False
    policy: str = "fallback"

    def token(self) -> str:
        """A short URL-safe name: g120t6w2, g120t6p5w2 at a tax of 6.5 µs (the URL joins tokens
        with dots, so a decimal point is a p), or g120t6w2df with dynamic shapes (fallback)."""
        tail = f"d{self.policy[0]}" if self.dynamic else ""
        return f"{self.mode[0]}{self.n}t{_url_number(self.tax_us)}w{_url_number(self.work_us)}{tail}"

    @classmethod
    def parse(cls, token: str) -> "Run":
        """The run a token names; UsageError saying why when it is not one."""
        m = _TOKEN.fullmatch(token)
        if not m:
            raise UsageError(f"{token!r} is not a recorded result (expected e.g. g120t6w2)")
        mode = _MODE_OF[m["mode"]]
        widget = LIMITS["widget"]
        n = int(widget["n"].parse("N", m["n"]))
        tax = float(widget["tax_us"].parse("tax", m["tax"].replace("p", ".")))
        work = float(widget["work_us"].parse("work", m["work"].replace("p", ".")))
        policy = _POLICY_OF[m["policy"]] if m["policy"] else "fallback"
        return cls(mode, n, tax, work, bool(m["dyn"]), policy)

    def describe(self) -> str:
        dyn = f", dynamic shapes ({self.policy})" if self.dynamic else ""
        return f"{self.mode}, N={self.n}, tax {self.tax_us:g} µs, work {self.work_us:g} µs{dyn}"


_MODE_OF = {m[0]: m for m in choices(Mode)}
_POLICY_OF = {p[0]: p for p in choices(Policy)}
_TOKEN = re.compile(r"(?P<mode>[egs])(?P<n>\d{1,5})t(?P<tax>\d{1,3}(?:p\d{1,6})?)"
                    r"w(?P<work>\d{1,4}(?:p\d{1,6})?)(?:(?P<dyn>d)(?P<policy>[fbr]))?")


def _url_number(x: float) -> str:
    """A knob's value in a token: to six decimals, trailing zeros dropped, the point written p
    (6.5 → 6p5, 0.00001 → 0p00001; never 1e-05)."""
    return f"{x:.6f}".rstrip("0").rstrip(".").replace(".", "p")


@dataclass(frozen=True)
class Need:
    """A result a step needs: a mode and work at the seed's N and tax."""

    mode: str
    work_us: float
    dynamic: bool = False

    def run(self) -> Run:
        return Run(self.mode, SEED_N, SEED_TAX_US, self.work_us, self.dynamic)

    def label(self) -> str:
        dyn = ", dynamic shapes on (policy fallback)" if self.dynamic else ""
        return f"{self.mode} at N={SEED_N}, tax {SEED_TAX_US:g} µs, work {self.work_us:g} µs{dyn}"

    def changes(self, run: Run) -> list[str]:
        """The knobs `run` would have to change to be this result: "N 121 → 120", ... (none: it is).
        A number is shown to as many digits as it takes to tell the two apart (tax 6.0000001 → 6)."""
        want = self.run()
        out = [f"{name} {a} → {b}" for name, a, b in (
            ("mode", run.mode, want.mode), ("N", run.n, want.n),
            ("tax", *_apart(run.tax_us, want.tax_us, " µs")), ("work", *_apart(run.work_us, want.work_us, " µs")),
            ("dynamic shapes", "on" if run.dynamic else "off", "on" if want.dynamic else "off")) if a != b]
        if want.dynamic and run.dynamic and run.policy != want.policy:
            out.append(f"policy {run.policy} → {want.policy}")
        return out

    def matches(self, run: Run) -> bool:
        return run == self.run()


def _apart(a: float, b: float, unit: str) -> tuple[str, str]:
    """`a` and `b` as text, equal only where the numbers are: 6 and 6, or 6.0000001 and 6."""
    if a == b:
        return f"{a:g}{unit}", f"{b:g}{unit}"
    for digits in (6, 9, 12, 17):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y:
            return x + unit, y + unit
    return repr(a) + unit, repr(b) + unit


def nearest_change(step: str, runs: list[Run], cur: Run) -> list[str]:
    """The fewest knob changes that make `cur` a result step `step` still lacks (any result it
    takes, where it has them all): what to say when a record is refused."""
    found, _ = _evidence_index(step, runs)
    needs = [n for n, i in zip(STEP_NEEDS[step], found) if i is None] or STEP_NEEDS[step]
    return min((n.changes(cur) for n in needs), key=len)


STEP_NEEDS: dict[str, list[Need]] = {
    "defaults_graph": [Need("graph", 2.0)],
    "eager": [Need("eager", 2.0)],
    "streams": [Need("streams", 2.0), Need("eager", 2.0)],
    "work_40": [Need("streams", 40.0), Need("graph", 40.0)],
    "work_back_2": [Need("streams", 2.0), Need("graph", 2.0)],  # recorded after step work_40's
    "dynamic_graph": [Need("graph", 2.0, dynamic=True), Need("streams", 2.0)],
}
ORDER = list(STEP_NEEDS)
NEAR_STREAMS = (0.8, 1.5)  # a graph's fallback overhead "near streams'": between these multiples of it
AFTER = {"work_back_2": "work_40"}  # a step whose runs must come after another step's runs


@dataclass(frozen=True)
class Relation:
    """One checked statement with both sides: `left_value op right_value` on `source`."""

    source: str        # "textbook model" or "measured"
    claim: str         # what it says, in words
    left: str
    left_value: float | bool | None
    op: str            # "=", "<", "≥", "within 5% of", ...
    right: str
    right_value: float | bool | None
    holds: bool

    def values(self) -> str:
        parts = (self.left, fmt(self.left_value), self.op, self.right, fmt(self.right_value))
        return " ".join(p for p in parts if p)


def fmt(x) -> str:
    """A value in a relation: TRUE/FALSE, counts as integers, times in µs."""
    if x is None:
        return "not counted"
    if isinstance(x, bool):
        return "TRUE" if x else "FALSE"
    if isinstance(x, int):
        return f"{x:,}"
    return f"{x:,.1f} µs"


@dataclass
class StepCheck:
    """done: the step ticks. todo: what the student must still do. relations: what was checked
    (empty until the runs are there). evidence: per need, the run used and its numbers."""

    done: bool
    todo: list[str] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    evidence: list[tuple[Need, Run | None, dict | None]] = field(default_factory=list)

    @property
    def failed(self) -> list[Relation]:
        return [r for r in self.relations if not r.holds]

    @property
    def recorded(self) -> bool:
        """Every run the step needs is in the notebook (its evidence is recorded)."""
        return bool(self.evidence) and all(run is not None for _, run, _ in self.evidence)


def complete(check: StepCheck, asks: bool, predicted: bool) -> bool:
    """A step is complete once its evidence is recorded and, where it asks for one, its prediction
    was entered first: how close the prediction was, and whether every relation held, is reported
    (the step's verdict, the page's summary), not a gate that could leave the next step locked."""
    return check.recorded and (predicted or not asks)


def open_step(done: dict[str, bool]) -> str | None:
    """The first step in ORDER that is not complete (steps unlock in order); None when all are."""
    return next((s for s in ORDER if not done.get(s)), None)


def telling_needs(step: str) -> list[Need]:
    """The settings whose numbers would give `step`'s prediction away: the one it asks about,
    and every other it needs that no earlier step needed (graph at 40 µs tells step work_40's
    streams answer, since the two are equal there; eager at 2 µs, seen in step eager, tells
    step streams nothing new)."""
    seen = {n for s in ORDER[:ORDER.index(step)] for n in STEP_NEEDS[s]}
    first, *rest = STEP_NEEDS[step]
    return [first, *(n for n in rest if n not in seen)]


def tells(need: Need, run: Run) -> bool:
    """Whether `run`'s numbers show what `need`'s setting would: the setting itself, or, for a need
    with dynamic shapes on, any run of its mode with dynamic shapes on (at any N, tax, work or
    policy, "graph valid? FALSE" and the launches of a missed shape are what the step asks for)."""
    return need.matches(run) or (need.dynamic and run.dynamic and run.mode == need.mode)


def hidden_by(run: Run, waiting: list[str]) -> str | None:
    """The first step in `waiting` (steps whose prediction can still change: not yet recorded)
    whose telling settings include `run` (tells), so `run`'s numbers wait with it; None when none.
    A page also keeps back every setting but the done steps' while the open step's prediction is
    typed and unrecorded: a rule that hid only settings near its answer would tell the answer by
    where the hiding began."""
    return next((s for s in waiting if any(tells(n, run) for n in telling_needs(s))), None)


def hides(run: Run, waiting: list[str]) -> bool:
    """True when some step in `waiting` keeps `run`'s numbers hidden (hidden_by)."""
    return hidden_by(run, waiting) is not None


def _find(runs: list[Run], need: Need, after: int) -> int | None:
    """Index of the latest run matching `need` recorded after index `after`."""
    for i in range(len(runs) - 1, after, -1):
        if need.matches(runs[i]):
            return i
    return None


def _evidence_index(step: str, runs: list[Run]) -> tuple[list[int | None], list[str]]:
    """Per need the run that serves as its evidence, and what is missing."""
    todo, after = [], -1
    if step in AFTER:
        prior, _ = _evidence_index(AFTER[step], runs)
        if any(i is None for i in prior):
            return [None] * len(STEP_NEEDS[step]), [f"first do the step '{AFTER[step]}' (40 µs of work)"]
        after = max(prior)
    found = [_find(runs, need, after) for need in STEP_NEEDS[step]]
    for need, i in zip(STEP_NEEDS[step], found):
        if i is None:
            todo.append(f"record a result with {need.label()}"
                        + (" after the 40 µs step" if step in AFTER else ""))
    return found, todo


def _rel(source, claim, left, lv, op, right, rv, holds) -> Relation:
    return Relation(source, claim, left, lv, op, right, rv, bool(holds))


def _relations(step: str, model: list[dict], meas: list[dict | None]) -> list[Relation]:
    """The statements a step checks, on the textbook model and on the measured numbers of its runs
    (model[i] and meas[i] belong to STEP_NEEDS[step][i])."""
    M, T = "measured", "textbook model"
    m, x = model[0], meas[0]
    out: list[Relation] = []
    if step == "defaults_graph":
        out.append(_rel(T, "one driver call", "driver calls", m["driver_calls"], "=", "", 1, m["driver_calls"] == 1))
        if x:
            if x["driver_calls"] is not None:
                out.append(_rel(M, "one driver call", "driver calls", x["driver_calls"], "=", "", 1,
                                x["driver_calls"] == 1))
            out.append(_rel(M, "launch overhead smaller than the kernel work", "overhead",
                            x["launch_overhead_us"], "<", "kernel work", x["kernel_work_us"],
                            x["launch_overhead_us"] < x["kernel_work_us"]))
    elif step == "eager":
        out.append(_rel(T, "120 launches × 6 µs of tax", "overhead", m["launch_overhead_us"], "=",
                        "120 × 6 µs =", 720.0, abs(m["launch_overhead_us"] - 720) < 0.5))
        out.append(_rel(T, "one driver call per kernel", "driver calls", m["driver_calls"], "=", "N =", SEED_N,
                        m["driver_calls"] == SEED_N))
        if x:
            out.append(_rel(M, "overhead several times the kernel work", "overhead", x["launch_overhead_us"],
                            "≥", "2 × kernel work =", 2 * x["kernel_work_us"],
                            x["launch_overhead_us"] >= 2 * x["kernel_work_us"]))
    elif step == "streams":
        e_m, e_x = model[1], meas[1]
        out.append(_rel(T, "less overhead than eager", "streams overhead", m["launch_overhead_us"], "<",
                        "eager overhead", e_m["launch_overhead_us"],
                        0 < m["launch_overhead_us"] < e_m["launch_overhead_us"]))
        if x and e_x:
            out.append(_rel(M, "less overhead than eager", "streams overhead", x["launch_overhead_us"], "<",
                            "eager overhead", e_x["launch_overhead_us"],
                            x["launch_overhead_us"] < e_x["launch_overhead_us"]))
    elif step == "work_40":
        g_m, g_x = model[1], meas[1]
        tol = f"within {CATCH_UP_TOLERANCE:.0%} of"
        out.append(_rel(T, "streams caught up with graph", "streams wall", m["wall_us"], tol, "graph wall",
                        g_m["wall_us"], _close(m["wall_us"], g_m["wall_us"])))
        if x and g_x:
            out.append(_rel(M, "streams caught up with graph", "streams wall", x["wall_us"], tol, "graph wall",
                            g_x["wall_us"], _close(x["wall_us"], g_x["wall_us"])))
    elif step == "work_back_2":
        g_m, g_x = model[1], meas[1]
        out.append(_rel(T, "streams at least 2× slower than graph", "streams wall", m["wall_us"], "≥",
                        "2 × graph wall =", 2 * g_m["wall_us"], m["wall_us"] >= 2 * g_m["wall_us"]))
        if x and g_x:
            out.append(_rel(M, "streams well behind graph again", "streams wall", x["wall_us"], "≥",
                            "1.5 × graph wall =", 1.5 * g_x["wall_us"], x["wall_us"] >= 1.5 * g_x["wall_us"]))
    elif step == "dynamic_graph":
        # The textbook (the seed's widget) snaps back to eager; a real runtime, and ours, falls
        # back to asynchronous dispatch: each source is checked against its own fallback.
        s_x = meas[1]
        out.append(_rel(T, "the graph can't be replayed", "graph-capture valid reads", m["graph_valid"],
                        "— the step expects", "", False, not m["graph_valid"]))
        out.append(_rel(T, "overhead back to eager's (the seed's fallback)", "overhead", m["launch_overhead_us"],
                        "=", "120 × 6 µs =", 720.0, abs(m["launch_overhead_us"] - 720) < 0.5))
        if x:
            out.append(_rel(M, "the graph can't be replayed", "graph-capture valid reads", x["graph_valid"],
                            "— the step expects", "", False, not x["graph_valid"]))
        if x and s_x:
            # near, both ways: blocking eager's overhead is several times streams', so a fallback
            # that blocked would pass a floor alone
            lo, hi = NEAR_STREAMS[0] * s_x["launch_overhead_us"], NEAR_STREAMS[1] * s_x["launch_overhead_us"]
            out.append(_rel(M, "overhead back near streams' (the async fallback)", "overhead",
                            x["launch_overhead_us"], "within",
                            f"{NEAR_STREAMS[0]:g}–{NEAR_STREAMS[1]:g} × streams overhead = {fmt(lo)} –", hi,
                            lo <= x["launch_overhead_us"] <= hi))
    return out


def _close(a: float, b: float) -> bool:
    return b > 0 and abs(a - b) / b <= CATCH_UP_TOLERANCE


def check_step(step: str, runs: list[Run], numbers, predicted: bool = True) -> StepCheck:
    """Check one step against the student's notebook `runs` (oldest first). `predicted` is whether
    the prediction the step asks for has been entered (True for a step that asks none)."""
    if step not in STEP_NEEDS:
        raise ValueError(f"unknown checkpoint step {step!r}")
    found, todo = _evidence_index(step, runs)
    if not predicted:
        todo.insert(0, "enter your prediction")
    evidence = []
    for need, i in zip(STEP_NEEDS[step], found):
        run = runs[i] if i is not None else None
        evidence.append((need, run, numbers(run) if run else None))
    if any(run is None for _, run, _ in evidence):
        return StepCheck(False, todo=todo, evidence=evidence)
    rel = _relations(step, [e[2]["model"] for e in evidence], [e[2]["measured"] for e in evidence])
    return StepCheck(predicted and all(r.holds for r in rel), todo=todo, relations=rel, evidence=evidence)


def evidence_runs(runs: list[Run]) -> set[int]:
    """Indexes of the runs some step uses as its evidence (_evidence_index, over every step)."""
    return {i for step in STEP_NEEDS for i in _evidence_index(step, runs)[0] if i is not None}


def add_run(runs: list[Run], run: Run) -> list[Run]:
    """The notebook after recording `run`: unchanged when `run` is already its latest result (a
    second press of Record adds nothing), else with `run` appended and trimmed by keep_runs."""
    if runs and runs[-1] == run:
        return list(runs)
    return keep_runs([*runs, run])


def keep_runs(runs: list[Run]) -> list[Run]:
    """At most MAX_RUNS of `runs`, in order: past the cap the oldest go first, but never a run that
    a step uses as its evidence (each step takes the latest runs that match its needs, so keeping
    those keeps every step's check as it was: a finished step never comes undone)."""
    extra = len(runs) - MAX_RUNS
    if extra <= 0:
        return list(runs)
    keep = evidence_runs(runs)
    drop = set([i for i in range(len(runs)) if i not in keep][:extra])
    return [r for i, r in enumerate(runs) if i not in drop]


def encode_runs(runs: list[Run]) -> str:
    return ".".join(r.token() for r in keep_runs(runs))


def decode_runs(text: str) -> tuple[list[Run], list[str]]:
    """The runs in `text`, and a line for each token that is not one (skipped, the rest kept)."""
    runs, bad = [], []
    for token in filter(None, (text or "").split(".")):
        try:
            runs.append(Run.parse(token))
        except UsageError as e:
            bad.append(str(e))
    return keep_runs(runs), bad


def encode_predictions(pred: dict[str, float]) -> str:
    return ",".join(f"{step}:{box_text(value)}" for step, value in pred.items() if step in STEP_NEEDS)  # as typed


def prediction_in_range(v: float) -> bool:
    """Whether `v` is a prediction the checkpoint keeps (typed, or read back from the URL); NaN is not."""
    return 0 <= v <= PREDICTION_MAX


def decode_predictions(text: str) -> tuple[dict[str, float], list[str]]:
    """{step: value} from "eager:720,streams:722"; a line for each entry that is not one."""
    pred, bad, seen = {}, [], {}
    for item in filter(None, (text or "").split(",")):
        step, _, value = item.partition(":")
        try:
            if step not in STEP_NEEDS:
                raise ValueError(f"no step called {step!r}")
            v, why = read_typed(value)  # read as the box reads it: no "٢٤٦", "1_000" or "nan"
            if v is None:
                raise ValueError("not a number" if why != "too_large" else
                                 f"out of range (0 to {PREDICTION_MAX:,.0f})")
            if not prediction_in_range(v):
                raise ValueError(f"out of range (0 to {PREDICTION_MAX:,.0f})")
            if step in seen:  # the later entry wins, and the one it replaces is named
                bad.append(f"prediction {seen[step]!r} ignored: {item!r} later in the link is the same step's")
            pred[step], seen[step] = v, item
        except ValueError as e:
            bad.append(f"prediction {item!r} ignored: {e}")
    return pred, bad
