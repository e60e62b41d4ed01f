"""One Knobs type with one set of bounds, and one CLI tree that catches only bad input."""
import argparse
import json

import pytest

from runtime_core import cli
from runtime_core.errors import UsageError
from runtime_core.knobs import LIMITS, Backend, Knobs, Mode, Policy


def test_knobs_take_enum_names_and_reject_unknown_ones():
    k = Knobs("graph", 120, 2.0, dynamic=True, policy="bucket")
    assert k.mode is Mode.GRAPH and k.policy is Policy.BUCKET and k.effective_policy is Policy.BUCKET
    assert Knobs("eager", 120, 2.0, policy="bucket").effective_policy is Policy.FALLBACK
    with pytest.raises(UsageError, match="mode must be one of eager, streams, graph"):
        Knobs("warp", 120, 2.0)
    with pytest.raises(UsageError, match="policy"):
        Knobs("graph", 120, 2.0, policy="retry")


@pytest.mark.parametrize("scope,field,bad", [
    ("model", "n", 0), ("model", "n", 100_001), ("model", "n", 2.5), ("model", "work_us", float("nan")),
    ("measure", "n", 20_001), ("measure", "work_us", 10_001), ("widget", "n", 2001), ("widget", "tax_us", 0.1)])
def test_each_scope_has_one_set_of_bounds(scope, field, bad):
    k = Knobs("eager", 10, 2.0, tax_us=6.0).replace(**{field: bad})
    with pytest.raises(UsageError, match=field):
        k.validate(scope)


def test_validate_returns_whole_numbers_and_floats():
    k = Knobs("streams", 10.0, 2, tax_us=6).validate("measure")
    assert isinstance(k.n, int) and isinstance(k.work_us, float) and isinstance(k.tax_us, float)


def test_every_bound_is_spelled_in_knobs_py():
    assert set(LIMITS) == {"model", "measure", "widget"}
    assert LIMITS["widget"]["n"].hi <= LIMITS["measure"]["n"].hi <= LIMITS["model"]["n"].hi
    assert {b.value for b in Backend} == {"auto", "cuda", "sim"}


def test_every_subcommand_is_registered_by_its_subpackage():
    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == {"model", "accuracy", "measure", "bench", "sweep", "alloc", "lab", "aot", "diagnose",
                                "node-costs"}
    for name, parser in sub.choices.items():
        assert parser.get_default("func") is not None, name


def test_bad_input_exits_2_with_one_line(capsys):
    assert cli.main(["model", "--mode", "eager", "--n", "0", "--tax-us", "6", "--work-us", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("runtime_core model: error:") and len(err.strip().splitlines()) == 1


def test_a_bug_in_our_code_keeps_its_traceback(monkeypatch):
    """Only UsageError becomes exit 2; anything else is our bug and must surface."""
    import runtime_core.model.cli as model_cli

    def broken(k, c=None):
        raise RuntimeError("a bug in the model")
    monkeypatch.setattr(model_cli, "predict", broken)
    with pytest.raises(RuntimeError, match="a bug in the model"):
        cli.main(["model", "--mode", "eager", "--n", "10", "--tax-us", "6", "--work-us", "2"])


def test_json_flag_is_accepted_everywhere_design_md_lists_it(capsys):
    assert cli.main(["model", "--mode", "graph", "--n", "10", "--tax-us", "6", "--work-us", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["driver_calls"] == 1
    parser = cli.build_parser()
    for argv in (["measure", "--mode", "eager", "--n", "1", "--work-us", "0", "--json"],
                 ["alloc", "--json"], ["lab", "sync", "--json"], ["aot", "--json"], ["bench", "--json"]):
        assert parser.parse_args(argv).json is True
