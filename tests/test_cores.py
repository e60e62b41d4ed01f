"""engine.cores: which core a timing runs on (RUNTIME_CORE_PIN), on this machine's real cores."""
import os

import pytest

from runtime_core.engine import cores
from runtime_core.errors import UsageError

affinity = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")


def test_pin_mode_reads_the_environment(monkeypatch):
    monkeypatch.delenv("RUNTIME_CORE_PIN", raising=False)
    assert cores.pin_mode() == "middle"
    monkeypatch.setenv("RUNTIME_CORE_PIN", "fastest")
    assert cores.pin_mode() == "fastest"
    monkeypatch.setenv("RUNTIME_CORE_PIN", "quickest")
    with pytest.raises(UsageError, match="RUNTIME_CORE_PIN='quickest'.*middle, fastest"):
        cores.pin_mode()


@affinity
def test_core_speeds_probe_every_core_and_fastest_picks_the_quickest(monkeypatch):
    before = os.sched_getaffinity(0)
    try:
        allowed = sorted(before)
        speeds = cores.core_speeds_us(allowed)
        assert sorted(speeds) == allowed and all(v > 0 for v in speeds.values())
        monkeypatch.setattr(cores, "core_speeds_us", lambda cs: {c: (5.0 if c == cs[-1] else 9.0) for c in cs})
        assert cores.choose_core([0, 1, 2, 3], "fastest") == 3
        assert cores.choose_core([0, 1, 2, 3], "middle") == 2
    finally:
        os.sched_setaffinity(0, before)


@affinity
def test_one_core_gives_the_cores_back(monkeypatch):
    before = os.sched_getaffinity(0)
    monkeypatch.setenv("RUNTIME_CORE_PIN", "fastest")
    with cores.one_core():
        inside = os.sched_getaffinity(0)
        assert len(inside) == (1 if len(before) > 2 else len(before))
    assert os.sched_getaffinity(0) == before
