"""engine.cores: which core a timing runs on (RUNTIME_CORE_PIN), on this machine's real cores."""
import os

import pytest

from runtime_core import env_check
from runtime_core.engine import cores

affinity = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")


def test_pin_mode_reads_the_environment_and_a_junk_value_says_so(monkeypatch):
    monkeypatch.delenv("RUNTIME_CORE_PIN", raising=False)
    assert cores.pin_mode() == "middle" and env_check.core_pin() == ("middle", None)
    monkeypatch.setenv("RUNTIME_CORE_PIN", " Fastest ")
    assert cores.pin_mode() == "fastest" and env_check.core_pin()[1] is None
    monkeypatch.setenv("RUNTIME_CORE_PIN", "quickest")
    assert cores.pin_mode() == "middle"
    notice = env_check.core_pin()[1]
    assert notice == "RUNTIME_CORE_PIN='quickest' is not one of middle/fastest: timings run on the middle core"
    assert notice in env_check.notices()


def test_diagnose_says_when_it_ignores_a_junk_pin(monkeypatch, capsys):
    from runtime_core.cli import main
    monkeypatch.setenv("RUNTIME_CORE_PIN", "quickest")
    assert main(["diagnose", "--backend", "sim", "--model", "fake-mlp", "--batch", "1", "--json"]) == 0
    err = capsys.readouterr().err
    assert "diagnose: note: RUNTIME_CORE_PIN='quickest' is not one of middle/fastest" in err


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


def test_runtime_core_cpus_reads_numbers_and_ranges_and_refuses_junk(monkeypatch):
    from runtime_core.errors import UsageError
    assert cores.parse_cpus("0-3,8") == {0, 1, 2, 3, 8} and cores.parse_cpus(" 5 ") == {5}
    assert cores.cpus_arg({8, 0, 1}) == "0,1,8" and cores.parse_cpus(cores.cpus_arg({8, 0, 1})) == {0, 1, 8}
    for junk in ("a-b", "3-", ",", "-2"):
        with pytest.raises(UsageError, match="RUNTIME_CORE_CPUS=.* is not a list of CPU cores"):
            cores.parse_cpus(junk)
    monkeypatch.delenv("RUNTIME_CORE_CPUS", raising=False)
    assert cores.allowed_cpus() is None
    monkeypatch.setenv("RUNTIME_CORE_CPUS", "  ")
    assert cores.allowed_cpus() is None


@affinity
def test_a_process_given_runtime_core_cpus_runs_there_and_its_children_stay_there(monkeypatch, capsys):
    """The external grid's recorder gives each fresh process it runs at once a share of the cores:
    the CLI moves onto them before anything is timed, and all_cores() (a worker child's reset)
    stays inside them. A value the machine cannot honour is one usage line, exit 2."""
    from runtime_core.cli import main
    before = os.sched_getaffinity(0)
    one = min(before)
    try:
        monkeypatch.setenv("RUNTIME_CORE_CPUS", str(one))
        assert main(["diagnose", "--backend", "sim", "--model", "fake-mlp", "--batch", "1", "--json"]) == 0
        assert os.sched_getaffinity(0) == {one}
        cores.all_cores()
        assert os.sched_getaffinity(0) == {one}
        monkeypatch.setenv("RUNTIME_CORE_CPUS", "60000")
        capsys.readouterr()
        assert main(["diagnose", "--backend", "sim", "--model", "fake-mlp", "--batch", "1", "--json"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "RUNTIME_CORE_CPUS=60000: this process cannot run on those cores" in err[0]
        monkeypatch.delenv("RUNTIME_CORE_CPUS")
        cores.all_cores()
        assert os.sched_getaffinity(0) >= before
    finally:
        os.sched_setaffinity(0, before)
