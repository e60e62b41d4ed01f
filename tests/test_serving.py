"""The serving loop: guard check, then dispatch; recompile, pad or reject on a miss (no compiling)."""
import pytest
import torch

from runtime_core.aot.serving import (Artifact, Guard, RequestRejected, ServingLoop,
                                      bucket_artifacts)

FEATURES = (4,)


def double(x):
    return x * 2


def engine(policy, compile_fn=None, buckets=(1, 2, 4, 8)):
    return ServingLoop(bucket_artifacts(double, buckets, FEATURES), policy, compile_fn)


def test_hit_dispatches_to_the_matching_artifact():
    loop = engine("reject")
    r = loop.serve(torch.ones(4, 4))
    assert (r.path, r.artifact) == ("hit", "aot batch 4")
    assert torch.equal(r.output, torch.full((4, 4), 2.0))
    assert loop.counters.as_dict()["hits"] == 1 and loop.counters.misses == 0


def test_reject_raises_a_clear_error_and_counts_it():
    loop = engine("reject")
    with pytest.raises(RequestRejected) as e:
        loop.serve(torch.ones(5, 4))
    msg = str(e.value)
    assert "guard miss: batch 5 outside batch 1" in msg
    assert "cannot recompile" in msg and "batch 8" in msg
    c = loop.counters
    assert (c.requests, c.hits, c.misses, c.rejects, c.pads, c.recompiles) == (1, 0, 1, 1, 0, 0)


def test_pad_runs_the_next_bucket_and_drops_the_padding():
    seen = []
    arts = bucket_artifacts(lambda x: seen.append(x.shape[0]) or x * 2, (1, 2, 4, 8), FEATURES)
    loop = ServingLoop(arts, "pad")
    x = torch.arange(20.0).view(5, 4)
    r = loop.serve(x)
    assert seen == [8]                       # the batch-8 artifact ran on a padded input
    assert (r.path, r.artifact, r.padded_from) == ("miss -> pad", "aot batch 8", 5)
    assert torch.equal(r.output, x * 2)      # the 3 padded rows were dropped
    assert (loop.counters.misses, loop.counters.pads, loop.counters.padded_rows) == (1, 1, 3)


def test_pad_rejects_a_request_larger_than_every_bucket():
    loop = engine("pad")
    with pytest.raises(RequestRejected, match="padding cannot fix it: batch 9 is larger than every package"):
        loop.serve(torch.ones(9, 4))
    assert (loop.counters.pads, loop.counters.rejects) == (0, 1)


def test_pad_cannot_fix_a_wrong_dtype():
    loop = engine("pad")
    with pytest.raises(RequestRejected, match="dtype torch.float64"):
        loop.serve(torch.ones(3, 4, dtype=torch.float64))


COMPILE_S = 0.05  # what the fake compiler below takes
RUN_S = 0.2       # what one call of a compiled artifact takes


def slow_compiler(compiled: list):
    """A compile_fn that takes COMPILE_S and returns an artifact whose every call takes RUN_S."""
    import time

    def compile_fn(x):
        compiled.append(tuple(x.shape))
        time.sleep(COMPILE_S)

        def artifact(y):
            time.sleep(RUN_S)
            return y * 3
        return artifact
    return compile_fn


def test_recompile_counts_once_then_hits_the_new_artifact():
    compiled = []
    loop = engine("recompile", slow_compiler(compiled))
    r1 = loop.serve(torch.ones(5, 4))
    after_one = loop.counters.recompile_s
    r2 = loop.serve(torch.ones(5, 4))
    assert compiled == [(5, 4)]
    assert (r1.path, r2.path, r2.artifact) == ("miss -> recompile", "hit", "jit batch 5")
    assert torch.equal(r2.output, torch.full((5, 4), 3.0))
    c = loop.counters
    assert (c.requests, c.hits, c.misses, c.recompiles, c.pads, c.rejects) == (2, 1, 1, 1, 0, 0)
    # recompile_s is the compile's own time: at least what compiling took, not the artifact's
    # first run (RUN_S) that served the request, and a hit adds nothing to it.
    assert COMPILE_S <= after_one < COMPILE_S + RUN_S
    assert c.recompile_s == after_one


def test_recompile_time_adds_up_over_recompiles():
    compiled = []
    loop = engine("recompile", slow_compiler(compiled))
    for b in (5, 6, 7):
        loop.serve(torch.ones(b, 4))
    assert compiled == [(5, 4), (6, 4), (7, 4)] and loop.counters.recompiles == 3
    assert 3 * COMPILE_S <= loop.counters.recompile_s < 3 * COMPILE_S + RUN_S


def test_a_dynamic_range_artifact_serves_every_batch_in_range():
    loop = ServingLoop([Artifact("aot batch 1..1024", Guard(1, 1024, FEATURES), double)], "reject")
    for b in (1, 7, 1024):
        assert loop.serve(torch.ones(b, 4)).path == "hit"
    with pytest.raises(RequestRejected, match="batch 1025 outside batch 1..1024"):
        loop.serve(torch.ones(1025, 4))


def test_bad_policy_and_recompile_without_compiler_are_clear_errors():
    with pytest.raises(ValueError, match="miss policy must be one of"):
        engine("retry")
    with pytest.raises(ValueError, match="needs a compile_fn"):
        engine("recompile")


def test_jit_compile_fn_compiles_for_the_new_shape():
    from runtime_core.aot.models import make_mlp, mlp_input
    from runtime_core.aot.serving import jit_compile_fn
    model = make_mlp()
    loop = ServingLoop(bucket_artifacts(model, (8,), (64,)), "recompile", jit_compile_fn(model))
    x = mlp_input(3)
    r = loop.serve(x)
    assert r.path == "miss -> recompile" and loop.counters.recompiles == 1
    with torch.no_grad():
        assert torch.allclose(r.output, model(x), rtol=1e-5, atol=1e-6)


def test_a_miss_names_every_artifacts_range_not_the_newest_alone():
    """After a recompile at batch 200, batch 100 read "outside batch 200", as if the ranged
    package were not there."""
    arts = [Artifact("ranged", Guard(2, 64, FEATURES), lambda x: x)]
    loop = ServingLoop(arts, "recompile", compile_fn=lambda x: (lambda y: y))
    loop.serve(torch.ones(200, 4))
    r = loop.serve(torch.ones(100, 4))
    assert r.miss_reason == "batch 100 outside batch 2..64, batch 200"  # smallest first, not newest first
    loop.serve(torch.ones(1, 4)), loop.serve(torch.ones(65, 4))  # a student review: "batch 65, batch 1, batch 2..64"
    assert loop.serve(torch.ones(129, 4)).miss_reason == "batch 129 outside batch 1, batch 2..64, batch 65, batch 100, batch 200"
    many = ServingLoop(bucket_artifacts(lambda x: x, range(1, 11), FEATURES), "reject")
    with pytest.raises(RequestRejected, match=r"batch 11 outside batch 1, batch 2, batch 3, batch 4, batch 5, … 5 more"):
        many.serve(torch.ones(11, 4))


def test_a_range_two_artifacts_share_is_named_once():
    arts = [Artifact("a", Guard(8, 8, FEATURES), lambda x: x), Artifact("b", Guard(8, 8, FEATURES), lambda x: x),
            Artifact("c", Guard(2, 4, FEATURES), lambda x: x)]
    with pytest.raises(RequestRejected, match=r"guard miss: batch 5 outside batch 2\.\.4, batch 8\. "):
        ServingLoop(arts, "reject").serve(torch.ones(5, 4))
