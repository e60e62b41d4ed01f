"""A lab's panel and its verdict print the same numbers, with the same rounding."""
import re

from pages.ui.safe_text import unescape


def test_the_sync_panel_and_its_verdict_print_the_same_numbers():
    """The stored fields are rounded to 0.001 µs; the verdict once rounded the unrounded values,
    so a metric could read 2.0 beside a verdict of 2.1. Both now print the stored ones."""
    from runtime_core.labs import run_lab
    from runtime_core.labs import sync
    r = run_lab("sync", "sim")
    edge = dict(r, gpu_idle_us_per_step=2.05, step_us=14.25, slowdown=2.05)  # ties, where rounding twice differs
    for res in (r, edge):
        n = sync.numbers(res)
        text = sync.verdict(res)
        for key in ("step", "step_with_sync", "slowdown", "idle", "idle_with_sync"):
            assert n[key] in text, (key, n[key], text)
    assert r["verdict"] == sync.verdict(r)  # what the lab returns is the same sentence


def test_the_sync_panel_shows_in_its_metrics_the_numbers_of_its_verdict():
    from conftest import open_page
    at = open_page("pages/2_Streams_and_async.py")
    at = at.button(key="lab_run_sync_s2").click().run()
    assert not at.exception
    labels = ("µs per step, no sync", "µs per step, sync every step", "GPU idle µs per step, no sync",
              "GPU idle µs per step, with sync")
    values = [m.value for m in at.metric if m.label in labels]
    verdicts = [unescape(w.value) for w in at.warning if "A sync in every step" in w.value]  # escaped: text
    # the simulated run, then the same lab recorded on a GPU (in its expander): four metrics each
    assert len(values) == 4 * len(verdicts) and verdicts
    for i, verdict in enumerate(verdicts):
        printed = set(re.findall(r"\d+(?:\.\d+)?", verdict))
        for value in values[4 * i: 4 * i + 4]:
            assert value in printed, (value, verdict)
