"""The memory plan: a real model's forward traced with torch.fx, planned, and realized."""
import pytest
import torch

from runtime_core.allocator.plan import Buffer, TinyBlock, assign_offsets, make_plan, peak_live_bytes
from runtime_core.allocator.plan_report import plan_report
from runtime_core.allocator.plan_run import PlannedForward
from runtime_core.allocator.torch_memory import cpu_memory


@pytest.fixture(scope="module")
def planned():
    torch.manual_seed(0)
    model, x = TinyBlock().eval(), torch.randn(64, 128)
    gm, plan = make_plan(model, x)
    return model, x, gm, plan


def test_plan_has_at_least_five_buffers_and_an_arena_smaller_than_their_sum(planned):
    _, _, _, plan = planned
    assert len(plan.buffers) >= 5
    assert plan.arena_bytes < plan.sum_bytes
    assert plan.arena_bytes >= peak_live_bytes(plan.buffers)  # no plan beats the live peak


def test_buffers_alive_together_never_share_bytes(planned):
    bufs = planned[3].buffers
    for a in bufs:
        assert a.offset_bytes % 512 == 0 and a.offset_bytes + a.nbytes <= planned[3].arena_bytes
        for b in bufs:
            if a is not b and a.overlaps_in_time(b):
                assert not a.overlaps_in_space(b), (a.name, b.name)


def test_sizes_and_lifetimes_come_from_the_traced_graph(planned):
    by_name = {b.name: b for b in planned[3].buffers}
    assert by_name["up"].shape == (64, 512) and by_name["up"].nbytes == 64 * 512 * 4
    assert by_name["up"].last_use == by_name["gelu"].first_use  # gelu is up's only reader
    assert by_name["add"].last_use == by_name["mul"].first_use  # the residual lives to the gate


def test_greedy_assignment_reuses_space_of_dead_buffers():
    bufs = [Buffer("a", (), torch.float32, 1024, 0, 1), Buffer("b", (), torch.float32, 1024, 1, 2),
            Buffer("c", (), torch.float32, 1024, 2, 3)]
    assert assign_offsets(bufs) == 2048
    assert bufs[0].offset_bytes == bufs[2].offset_bytes == 0  # a and c never live together


def test_realized_plan_matches_the_normal_forward(planned):
    model, x, gm, plan = planned
    run = PlannedForward(gm, plan)
    with torch.no_grad():
        expected = model(x)
    for _ in range(3):
        x2 = torch.randn_like(x)
        with torch.no_grad():
            assert torch.allclose(run(x2), model(x2), atol=1e-6)
    assert torch.allclose(run(x), expected, atol=1e-6)


def test_realized_plan_allocates_nothing_per_step(planned):
    model, x, gm, plan = planned
    run = PlannedForward(gm, plan)
    run(x)
    ptr_range = (run.arena.data_ptr(), run.arena.data_ptr() + plan.arena_bytes)
    assert ptr_range[0] <= run(x).data_ptr() < ptr_range[1]  # the output is a view in the arena
    assert cpu_memory(lambda: [run(x) for _ in range(5)]).allocations == 0
    with torch.no_grad():  # the check can fail: eager allocates every intermediate
        assert cpu_memory(lambda: model(x)).allocations >= len(plan.buffers)


def test_plan_report_numbers():
    r = plan_report("cpu")
    assert r["buffers"] >= 5 and r["arena_bytes"] < r["sum_bytes"]
    assert r["allocations_per_step"] == 0 and r["output_matches_eager"]
    assert r["torch_peak_allocated_bytes"] >= r["arena_bytes"]
    assert r["caching_pool_peak_reserved_bytes"] >= r["caching_pool_peak_allocated_bytes"]


@pytest.mark.gpu
def test_cuda_realized_plan_allocates_nothing_per_step():
    r = plan_report("cuda")
    assert r["allocations_per_step"] == 0 and r["output_matches_eager"]
    assert r["arena_bytes"] < r["sum_bytes"]
