"""The lesson's models on the CPU: the decoder step's shapes, masking, and its graph-break variant."""
import torch

from runtime_core.aot.models import TwoHalvesStep, decoder_inputs, make_decoder


def test_decoder_step_maps_one_token_to_logits():
    model = make_decoder("cpu")
    token, pos = decoder_inputs("cpu", batch=2)
    with torch.no_grad():
        assert model(token, pos).shape == (2, 1, 1024)


def test_position_is_data_so_it_changes_logits_without_recompiling():
    torch._dynamo.reset()
    from torch._dynamo.utils import counters
    counters.clear()
    model = make_decoder("cpu")
    compiled = torch.compile(model, backend="eager")
    token, pos = decoder_inputs("cpu", pos=10)
    with torch.no_grad():
        a, b = compiled(token, pos), compiled(token, pos + 30)
    assert not torch.allclose(a, b)                     # later positions see more of the cache
    assert counters["stats"]["unique_graphs"] == 1      # but it is the same graph


def test_two_halves_step_matches_and_compiles_into_two_regions():
    torch._dynamo.reset()
    from torch._dynamo.utils import counters
    counters.clear()
    whole, halves = make_decoder("cpu"), make_decoder("cpu", TwoHalvesStep)
    token, pos = decoder_inputs("cpu")
    with torch.no_grad():
        got = torch.compile(halves, backend="eager")(token, pos)
        assert torch.equal(got, whole(token, pos))
    assert counters["stats"]["unique_graphs"] == 2      # one region before the break, one after
