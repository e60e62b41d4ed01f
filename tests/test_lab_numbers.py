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


def test_the_simulated_pair_says_where_each_wall_comes_from_and_its_sums_add_up():
    """§2's simulated pair: streams' wall is N launches plus one closing sync, eager's N round
    trips; the caption's parts add up to the metrics beside it (to their rounding), at every N."""
    from conftest import open_page
    at = open_page("pages/2_Streams_and_async.py")
    for n in (2, 8, 24):
        at.slider(key="s2_n").set_value(n).run()
        line = next(c.value for c in at.caption if "Where the two walls" in c.value)
        nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", line)]
        launches, sync, streams = nums[2], nums[3], nums[4]
        floor, eager = nums[-2], nums[-1]
        # as a student checks it: n × the round trip shown comes out at the wall shown, within their roundings
        assert nums[0] == n and abs(launches + sync - streams) <= 1 and abs(n * floor - eager) <= 0.5 + n * 0.005
        assert abs(sync - (floor - nums[1])) <= 0.11        # the round trip less one launch's tax
        walls = [m.value for m in at.metric if "wall / step" in m.label][:2]
        assert walls == [f"{eager:.0f} µs", f"{streams:.0f} µs"], (walls, line)
