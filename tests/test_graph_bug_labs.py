"""The silent CUDA-graph bugs, each a lab: output overwrite, a frozen Python value, a broadcasting
copy into the static input, unmasked bucket padding, capture without warm-up. Each shows its
signal and its fix on the simulator; each test also shows the signal can come out False."""
import pytest

from runtime_core.labs import (broadcast_copy, frozen_scalar, no_warmup, output_overwrite, run_lab,
                               unmasked_padding)

GRAPH_BUG_LABS = ("output_overwrite", "frozen_scalar", "broadcast_copy", "unmasked_padding", "no_warmup")


@pytest.fixture(scope="module")
def sim():
    return {name: run_lab(name, "sim") for name in GRAPH_BUG_LABS}


def test_each_lab_shows_its_signal_and_its_fix(sim):
    for name, r in sim.items():
        assert (r["lab"], r["source"]) == (name, "simulated")
        assert r["signal"] is True, r["verdict"]
        if name != "no_warmup":
            assert r["fix_exact"] is True, name


def test_a_kept_output_is_overwritten_by_the_next_replay_and_a_clone_is_not(sim):
    r = sim["output_overwrite"]
    n = output_overwrite.N_KERNELS
    assert r["step1_value_read_at_step1"] == r["expected_step1_value"] == output_overwrite.FIRST_VALUE + n
    assert r["kept_reference_value"] == r["step2_value"] == output_overwrite.SECOND_VALUE + n
    assert r["kept_is_static_output"]
    assert r["cloned_value"] == r["expected_step1_value"]


def test_output_overwrite_signal_is_false_when_the_second_request_equals_the_first(monkeypatch):
    monkeypatch.setattr(output_overwrite, "SECOND_VALUE", output_overwrite.FIRST_VALUE)
    assert output_overwrite.run("sim")["signal"] is False


def test_a_python_value_is_frozen_at_capture(sim):
    r = sim["frozen_scalar"]
    start = frozen_scalar.START_VALUE
    assert r["frozen_replay_value"] == start + frozen_scalar.CAPTURED_K
    assert r["expected_value"] == r["tensor_input_value"] == r["recapture_value"] == start + frozen_scalar.NEW_K


def test_frozen_scalar_signal_is_false_when_the_value_does_not_change(monkeypatch):
    monkeypatch.setattr(frozen_scalar, "NEW_K", frozen_scalar.CAPTURED_K)
    r = frozen_scalar.run("sim")
    assert r["signal"] is False and r["frozen_replay_value"] == r["expected_value"]


def test_a_one_element_input_is_broadcast_and_a_wrong_shape_raises(sim):
    r = sim["broadcast_copy"]
    assert r["eager_output_numel"] == 1 and r["graph_output_numel"] == broadcast_copy.NUMEL
    assert r["graph_rows_all_equal"]
    assert r["graph_output_sum"] == broadcast_copy.NUMEL * r["eager_output_sum"]
    assert r["mismatch_raises"] and "must match the size" in r["mismatch_error"]
    assert r["guarded_path"] == "fallback (guard miss)"
    assert r["guarded_output_numel"] == 1 and r["guarded_output_sum"] == r["eager_output_sum"]


def test_broadcast_signal_needs_the_copy_to_broadcast(monkeypatch):
    """With a copy that refuses to broadcast (shapes must be equal), there is no silent bug."""
    from runtime_core.engine.sim.device import SimDevice

    def strict(self, dst, src):
        if dst.shape != src.shape:
            raise RuntimeError("shapes differ")
        self.copy(dst, src)
    monkeypatch.setattr(SimDevice, "copy_broadcast", strict)
    with pytest.raises(RuntimeError, match="shapes differ"):
        broadcast_copy.run("sim")


def test_padding_rows_are_summed_unless_masked(sim):
    r = sim["unmasked_padding"]
    n, valid, bucket = unmasked_padding.N_KERNELS, unmasked_padding.VALID_ROWS, unmasked_padding.BUCKET
    assert bucket > valid
    assert r["expected_sum"] == valid * (unmasked_padding.ROW_VALUE + n)
    assert r["padding_row_value"] == n  # zero padding, after n kernels that each add 1
    assert r["unmasked_sum"] == r["expected_sum"] + (bucket - valid) * n
    assert r["masked_sum"] == r["expected_sum"]


def test_padding_signal_is_false_without_padding(monkeypatch):
    monkeypatch.setattr(unmasked_padding, "VALID_ROWS", 8)
    monkeypatch.setattr(unmasked_padding, "BUCKET", 8)
    assert unmasked_padding.run("sim")["signal"] is False


def test_capture_without_warm_up_records_the_one_off_work(sim):
    r = sim["no_warmup"]
    good, bad = r["with_warmup"], r["without_warmup"]
    assert good["correct"] and good["replays_counted"] == r["replays"]
    assert not bad["correct"] and bad["count_after_replays"] == 1.0  # zeroed by every replay
    assert bad["replay_us"] - good["replay_us"] >= 0.9 * no_warmup.INIT_KERNEL_US  # the set-up, every time


def test_no_warmup_signal_is_false_for_a_module_without_lazy_state(monkeypatch):
    class Eager(no_warmup.LazyCounter):
        def __init__(self, dev):
            super().__init__(dev)
            dev.fill(self.count, 0.0)
            self.initialised = True  # initialised at construction, not on the first call
    monkeypatch.setattr(no_warmup, "LazyCounter", Eager)
    r = no_warmup.run("sim")
    assert r["signal"] is False and r["without_warmup"]["correct"]


@pytest.mark.gpu
@pytest.mark.parametrize("name", GRAPH_BUG_LABS)
def test_each_graph_bug_and_its_fix_on_a_real_gpu(name):
    r = run_lab(name, "cuda")
    assert (r["backend"], r["source"]) == ("cuda", "live")
    assert r["signal"] is True, r["verdict"]
    if name != "no_warmup":
        assert r["fix_exact"] is True, r["verdict"]


@pytest.mark.gpu
def test_on_a_gpu_torch_refuses_the_non_broadcastable_copy():
    r = run_lab("broadcast_copy", "cuda")
    assert r["mismatch_raises"] and "must match the size" in r["mismatch_error"]
    assert r["graph_output_numel"] == broadcast_copy.NUMEL and r["graph_rows_all_equal"]
