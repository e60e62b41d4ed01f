"""Live GPU work started from a page (pages/ui/gpu_turn.py) waits in the GPU's one line: past its
cap the page gets a notice and None (and shows its recorded numbers), and a shared result is
measured once for every session."""
import threading

import pytest  # noqa: E402

pytest.importorskip("streamlit")  # the GPU machine has no streamlit unless its wheels are carried
from streamlit.testing.v1 import AppTest

from runtime_core.engine.gpu_queue import SharedResults, measure_in_turn


def _page():
    import streamlit as st

    from pages.ui.gpu_turn import in_turn
    r = in_turn(lambda: 42, fallback="Showing the recorded numbers instead.")
    st.write(f"result: {r}")


def _texts(at):
    return [m.value for m in at.markdown] + [m.value for m in at.info]


def test_a_free_gpu_runs_the_work_and_returns_its_result():
    at = AppTest.from_function(_page).run(timeout=30)
    assert not at.exception and "result: 42" in _texts(at) and not at.info


def test_past_the_cap_the_page_gets_a_notice_and_no_result(monkeypatch):
    monkeypatch.setenv("RUNTIME_QUEUE_CAP", "1")
    release, started = threading.Event(), threading.Event()

    def hold():
        started.set()
        release.wait()  # until the page has been checked (the finally below)
    t = threading.Thread(target=measure_in_turn, args=(hold,))
    t.start()
    try:
        assert started.wait(5)
        at = AppTest.from_function(_page).run(timeout=30)
    finally:
        release.set()
        t.join(5)
    texts = _texts(at)
    assert not at.exception and "result: None" in texts
    assert any("The GPU is busy" in s and "cap is 1" in s and "Showing the recorded numbers instead." in s
               for s in texts)


def test_a_shared_result_is_measured_once_for_every_session():
    from pages.ui.gpu_turn import in_turn
    shared, calls = SharedResults(), []

    def work():
        calls.append(1)
        return len(calls)
    import streamlit  # noqa: F401  (in_turn draws into a bare-mode placeholder outside a page)
    assert [in_turn(work, "", shared=shared, key="k") for _ in range(3)] == [1, 1, 1]
    assert calls == [1]
