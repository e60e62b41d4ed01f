"""The external validation grid (validation/external.py): 48 points of public networks, each a
package.module:factory that `diagnose --model` accepts. Each factory builds and runs at batch 1 on
this CPU when its library is installed (requirements-validation.txt), and skips saying why otherwise."""
import importlib

import pytest
import torch

from runtime_core.diagnose.user_model import resolve
from validation import external, heldout

FACTORIES = {"resnet18": "torchvision", "mobilenet_v3_small": "torchvision", "efficientnet_b0": "torchvision",
             "bert_base": "transformers", "gpt2_prompt": "transformers", "gpt2_decode": "transformers"}
HELDOUT = dict({name: "torchvision" for name in heldout.VISION},
               distilbert="transformers", t5_encoder="transformers", smollm_prompt="transformers")


def _library(name: str):
    try:
        return importlib.import_module(name)
    except Exception as e:  # torchvision's wheel can fail to load its ops against another torch build
        pytest.skip(f"{name} is not usable here ({type(e).__name__}: {str(e)[:120]}); "
                    "pip install -r requirements-validation.txt")


def test_the_grid_is_fixed_and_every_entry_resolves_as_a_factory():
    points = external.grid()
    assert len(points) == 48 and {p["dtype"] for p in points} == {"fp32", "bf16"}
    assert {p["batch"] for p in points} == {1, 4, 16, 64}
    for name in FACTORIES:
        assert resolve(f"validation.external:{name}").name == f"validation.external:{name}"


@pytest.mark.parametrize("module, name", [("external", n) for n in sorted(FACTORIES)]
                         + [("heldout", n) for n in sorted(HELDOUT)])
def test_each_factory_builds_and_runs_at_batch_1_on_the_cpu(module, name):
    """Every factory of the grid and of the held-out set, before it costs GPU time."""
    _library({**FACTORIES, **HELDOUT}[name])
    grid = {"external": external, "heldout": heldout}[module]
    model, inputs = getattr(grid, name)(batch=1, seq=None, dtype=torch.float32, device="cpu")
    with torch.no_grad():
        out = model(*inputs)
        again = model(*inputs)  # a step runs many times (the decode step rewrites one cache slot)
    assert isinstance(out, torch.Tensor) and out.shape[0] == 1 and torch.isfinite(out).all()
    assert again.shape == out.shape


def test_the_decode_step_gives_the_same_logits_however_often_it_runs():
    """A diagnosis runs one step hundreds of times. transformers 5's StaticCache advances its own
    counter each step and ran past the cache's end on the ninth (a device-side assert on the
    H200): the factory's step resets it, so the twelfth run writes the same slot as the first."""
    _library("transformers")
    model, inputs = external.gpt2_decode(batch=2, seq=None, dtype=torch.float32, device="cpu")
    with torch.no_grad():
        first = model(*inputs)
        for _ in range(11):
            last = model(*(x.clone() for x in inputs))
    assert torch.allclose(first, last, atol=1e-5)



def test_the_held_out_set_shares_no_network_with_the_grid_and_spans_every_network_first():
    """validation/heldout.py: public networks outside the external grid, two settings each, listed
    setting by setting (a recording cut short still holds every network once)."""
    points = heldout.grid()
    names = [p["model"].split(":")[1] for p in points]
    assert len(points) == 20 and set(names) == set(HELDOUT) and not set(names) & set(FACTORIES)
    assert len(set(names[:10])) == 10 and {(p["dtype"], p["batch"]) for p in points} == {("fp32", 1), ("bf16", 16)}
    for name in HELDOUT:
        assert resolve(f"validation.heldout:{name}").name == f"validation.heldout:{name}"
        assert getattr(heldout, name).__doc__  # the recording's `about` line


def test_the_held_out_set_is_recorded_only_in_fresh_processes_and_resumed_only_as_itself(tmp_path):
    from runtime_core.diagnose.record_external import run_external
    from runtime_core.diagnose.runners.sim import SimRunner
    from runtime_core.errors import UsageError
    from runtime_core.recordings import store
    grid = [{"model": "fake-mlp", "batch": 1, "seq": None, "dtype": "fp32"}]
    out = tmp_path / "heldout.json"
    with pytest.raises(UsageError, match="add --fresh-processes"):
        run_external(SimRunner(), out, 300, only=grid, grid="heldout")
    run_external(SimRunner(), out, 300, only=grid, fresh=True, grid="heldout")
    meta = store.load(out, kind="diagnose").data["meta"]
    assert meta["grid"] == "heldout" and meta["set"] == "external"   # judged by the external grid's targets
    with pytest.raises(UsageError, match="resume it with --set heldout"):
        run_external(SimRunner(), out, 300, resume=True, only=grid, fresh=True)
    from runtime_core.diagnose.records import best_recording
    assert best_recording(tmp_path, grid="external") is None   # the page's external grid is never the held-out set
    run_external(SimRunner(), tmp_path / "external.json", 300, only=grid, fresh=True)
    assert best_recording(tmp_path, grid="external").meta.file == "external.json"
    assert best_recording(tmp_path, grid="heldout").meta.file == "heldout.json"   # page 7's held-out panel
