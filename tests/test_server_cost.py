"""What a new widget setting costs the server at large N (issue 21 item 9), and that the cuts change
no number: the simulated column is still measure() with its traced step, the copy-cost row's
untraced numbers are measure()'s, and the load test's spread mode gives every session new settings."""
import sys
from pathlib import Path

import pytest

pytest.importorskip("streamlit")

from pages.ui import widget_sources as src  # noqa: E402
from runtime_core.engine.measure import measure  # noqa: E402
from runtime_core.knobs import Knobs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = [Knobs("graph", 700, 3.3, tax_us=6.0), Knobs("graph", 64, 2.2, tax_us=6.0, graph_input="zero-copy"),
            Knobs("graph", 50, 2.1, tax_us=6.0, dynamic=True, policy="bucket"),
            Knobs("eager", 300, 1.7, tax_us=7.0), Knobs("streams", 90, 40.5, tax_us=6.0, extra_tax_us=2.0)]


@pytest.mark.parametrize("k", SETTINGS, ids=lambda k: f"{k.mode.value}-{k.n}")
def test_the_simulated_column_is_measure_with_its_trace(k):
    want = src.result_dict(measure(src.sim_device(k), k.replace(extra_tax_us=0.0), trace=True))
    assert src.simulated(k) == want
    untraced = src.result_dict(measure(src.sim_device(k), k.replace(extra_tax_us=0.0), trace=False))
    assert src.simulated_numbers(k) == untraced  # kept from the traced run
    assert src.simulated(k, timeline=False) == untraced


def test_the_copy_cost_row_reuses_the_traced_run(monkeypatch):
    k = Knobs("graph", 333, 4.4, tax_us=6.0)
    src.simulated(k)
    calls = []
    import runtime_core.engine.measure as m
    real = m.measure
    monkeypatch.setattr(m, "measure", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    src.simulated_numbers(k)
    assert calls == []


def test_the_load_tests_spread_mode_gives_every_session_new_settings():
    sys.path.insert(0, str(ROOT / "tests" / "load"))
    import loadtest
    from runtime_core.recordings import store
    rec = store.best("sweep")
    plan = loadtest.spread_settings(20)
    ns = [row[0][0] for row in plan]
    assert ns[0] == 10 and ns[-1] == 2000 and len(set(ns)) >= 15
    assert len({s for row in plan for s in row}) == 20 * (loadtest.ROUNDS + 1)
    for row in plan:  # each round shows other numbers, so a browser waits for the new ones
        shown = [loadtest.expected(rec, n, w) for n, w in row]
        assert all(a != b for a, b in zip(shown, shown[1:])), row
