"""tests/run_shards.py: make test's split of the test files over the cores."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_shards  # noqa: E402


def test_every_file_lands_in_exactly_one_shard_and_the_shards_weigh_about_the_same():
    files = [f"test_{i}.py" for i in range(30)] + list(run_shards.TOGETHER)
    weights = {f: float(i % 7 + 1) for i, f in enumerate(files)}
    shards = run_shards.split(files, weights, 2)
    assert sorted(f for s in shards for f in s) == sorted(files)
    loads = [sum(weights[f] for f in s) for s in shards]
    assert max(loads) - min(loads) <= max(weights.values())  # greedy, heaviest first
    together = [s for s in shards if set(run_shards.TOGETHER) & set(s)]
    assert len(together) == 1 and set(run_shards.TOGETHER) <= set(together[0])  # one warm AOT cache


def test_the_shipped_weights_name_real_test_files_and_split_the_suite_in_two_halves():
    import json
    weights = json.loads(run_shards.WEIGHTS.read_text())
    files = sorted(p.name for p in run_shards.TESTS.glob("test_*.py"))
    assert set(weights) <= set(files)
    assert len(weights) >= len(files) // 2   # a real table: an empty one weighs every file alike
    a, b = (sum(weights.get(f, run_shards.WEIGHT_DEFAULT) for f in s) for s in run_shards.split(files, weights, 2))
    assert abs(a - b) <= 0.1 * (a + b)


def test_the_shard_count_follows_the_cores_or_the_variable(monkeypatch):
    monkeypatch.setenv("RUNTIME_TEST_SHARDS", "3")
    assert run_shards.shard_count() == 3
    monkeypatch.setenv("RUNTIME_TEST_SHARDS", "two")
    with pytest.raises(SystemExit, match="RUNTIME_TEST_SHARDS='two': give a whole number of 1 or more"):
        run_shards.shard_count()
    monkeypatch.delenv("RUNTIME_TEST_SHARDS")
    assert 1 <= run_shards.shard_count() <= 4


def test_weigh_reads_make_tests_own_log_and_refuses_a_log_without_durations(tmp_path, monkeypatch):
    import json
    monkeypatch.setattr(run_shards, "WEIGHTS", tmp_path / "w.json")
    log = tmp_path / "make_test.log"
    log.write_text("[1] 2.50s call     tests/test_a.py::test_x\n[2] 0.50s setup    tests/test_b.py::test_y[p]\n"
                   "1.00s call     tests/test_a.py::test_z\n[1] 1087 passed in 311.59s\n")
    run_shards.weigh(str(log))
    w = json.loads(run_shards.WEIGHTS.read_text())
    assert w == {"test_a.py": round(3.5 + 2 * run_shards.PER_TEST_S, 1), "test_b.py": 0.5}
    log.write_text("[1] 1087 passed in 311.59s\n")
    with pytest.raises(SystemExit, match="no `--durations=0` lines"):
        run_shards.weigh(str(log))
    assert json.loads(run_shards.WEIGHTS.read_text()) == w   # unchanged
