"""The GPU side of the diagnosis, checked where no GPU is: every zoo model runs a step on the CPU
(fp32 and bf16), a padded request lands in the first rows, and a profiler trace is read right."""
import pytest
import torch

from runtime_core.diagnose.runners.cuda import TorchStep
from runtime_core.diagnose.profile_step import StepProfile, summarize
from runtime_core.diagnose.zoo import ZOO, build, example_inputs
from runtime_core.engine.device import Trace
from runtime_core.engine.profiler_trace import REGION, fill_from_chrome

OUT_SHAPE = {"decoder": (2, 1, 1024), "mlp": (2, 512), "cnn": (2, 10), "encoder": (2, 64, 256)}


@pytest.mark.parametrize("dtype", ["fp32", "bf16"])
@pytest.mark.parametrize("name", list(ZOO))
def test_every_zoo_model_runs_one_step_in_eval_mode_without_grads(name, dtype):
    model = build(name, max_batch=2, shape=None, dtype=dtype, device="cpu")
    inputs = example_inputs(name, 2, None, dtype, device="cpu")
    assert not model.training and not any(p.requires_grad for p in model.parameters())
    assert len(inputs) == len(ZOO[name].batched)
    out = TorchStep(model, inputs, ZOO[name].batched)(*inputs)
    assert tuple(out.shape) == OUT_SHAPE[name] and torch.isfinite(out.float()).all()
    assert out.dtype == (torch.float32 if dtype == "fp32" else torch.bfloat16)


def test_a_smaller_request_is_copied_into_the_first_rows():
    step = TorchStep(None, (torch.zeros(4, 3), torch.tensor([7])), (True, False))
    static = step.clone_inputs()
    step.copy_into(static[0], torch.ones(2, 3), True)
    step.copy_into(static[1], torch.tensor([9]), False)
    assert static[0].sum() == 6 and static[0][2:].sum() == 0 and static[1].item() == 9


def _chrome() -> dict:
    """A two-kernel eager step as torch.profiler exports it: nested ops, versioned launch names."""
    def x(name, cat, ts, dur):
        return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur}
    return {"traceEvents": [
        x(REGION, "user_annotation", 1000, 100),
        x("aten::linear", "cpu_op", 1005, 30), x("aten::addmm", "cpu_op", 1010, 20),
        x("cudaLaunchKernelExC", "cuda_runtime", 1020, 5),
        x("aten::gelu", "cpu_op", 1040, 20), x("cuLaunchKernelEx", "cuda_driver", 1050, 4),
        x("cudaMemsetAsync", "cuda_runtime", 1070, 2),
        x("gemm_kernel", "kernel", 1030, 8.0), x("gelu_kernel", "kernel", 1060, 2.0),
        x("Memset (Device)", "gpu_memset", 1072, 1.0),
        x("warm-up kernel", "kernel", 900, 50.0),  # before the region: not this step
    ]}


def test_each_gpu_operation_gets_the_time_its_launch_call_returned_through_the_correlation_id():
    from runtime_core.diagnose.profile_step import launch_offsets
    chrome = _chrome()
    corr = {"cudaLaunchKernelExC": 7, "gemm_kernel": 7, "cuLaunchKernelEx": 8, "gelu_kernel": 8,
            "cudaMemsetAsync": 9, "Memset (Device)": 9}
    for e in chrome["traceEvents"]:
        if e["name"] in corr:
            e["args"] = {"correlation": corr[e["name"]]}
    assert launch_offsets(chrome) == ([25.0, 54.0, 72.0], 100.0)  # call end − region start; region span
    tr = Trace()
    fill_from_chrome(tr, chrome)
    prof = summarize(tr)
    assert (prof.launch_us, prof.span_us) == ([25.0, 54.0, 72.0], 100.0)
    assert StepProfile.from_dict(prof.as_dict()).launch_us == prof.launch_us  # crosses the worker's pipe
    # a GPU operation whose call the trace lacks: no launch times at all (the prediction uses even shares)
    chrome["traceEvents"] = [e for e in chrome["traceEvents"] if e["name"] != "cudaMemsetAsync"]
    assert launch_offsets(chrome) == ([], None)
    assert launch_offsets(None) == ([], None) and launch_offsets(_chrome()) == ([], None)


def test_a_profiler_trace_gives_kernels_launches_busy_time_and_the_cpu_lane():
    tr = Trace()
    fill_from_chrome(tr, _chrome())
    prof = summarize(tr)
    assert (prof.kernels, prof.gpu_ops, prof.launch_calls, prof.copy_calls) == (2, 3, 2, 1)
    assert prof.busy_us == pytest.approx(11.0) and prof.kernel_mean_us == pytest.approx(5.0)
    cpu = [(s.kind, s.name) for s in prof.spans if s.lane == "cpu"]
    assert ("dispatch", "aten::linear") in cpu and ("dispatch", "aten::gelu") in cpu
    assert ("dispatch", "aten::addmm") not in cpu  # nested inside aten::linear: not top level
    assert sum(k == "launch" for k, _ in cpu) == 2
    assert prof.top_kernels[0] == {"name": "gemm_kernel", "count": 1, "total_us": 8.0}


def test_the_profile_worker_answers_in_profiles_and_passes_its_errors_on():
    """The worker protocol (JSON lines, spans, the trace file), driven with fake models."""
    from runtime_core.diagnose.profile_worker import ProfileWorker
    from runtime_core.diagnose.runners.sim import SimRunner
    from runtime_core.diagnose.spec import Spec
    worker = ProfileWorker(backend="sim")
    try:
        got = worker.profile(Spec("fake-mlp", 2))
        here = SimRunner().profile(Spec("fake-mlp", 2))
        for part in ("eager", "graph"):
            assert got[part].as_dict() == here[part].as_dict()
            assert len(got[part].spans) == len(here[part].spans)
        with pytest.raises(RuntimeError, match="needs a CUDA GPU"):
            worker.profile(Spec("cnn", 1))
        assert worker.profile(Spec("fake-cnn", 1))["eager"].kernels == 54  # still serving
    finally:
        worker.close()


def test_top_host_counts_each_host_microsecond_once():
    """A launch inside a framework op is that op's time (CUDA); a launch no op holds is time of its
    own (the simulator, where the model's host work and its launches follow one another): the
    simulator's ranking used to leave its launches out, 160 of a 256 µs H."""
    from runtime_core.diagnose.profile_step import top_host
    from runtime_core.result import Span
    nested = [Span("cpu", "dispatch", "aten::linear", 0, 10), Span("cpu", "launch", "cudaLaunchKernel", 2, 5),
              Span("cpu", "dispatch", "aten::gelu", 10, 16), Span("cpu", "launch", "cudaLaunchKernel", 11, 13)]
    assert {r["name"]: r["total_us"] for r in top_host(nested)} == {"aten::linear": 10, "aten::gelu": 6}
    serial = [Span("cpu", "dispatch", "dispatch (simulated)", 0, 10), Span("cpu", "launch", "cudaLaunchKernel", 10, 16),
              Span("cpu", "dispatch", "dispatch (simulated)", 16, 26), Span("cpu", "launch", "cudaLaunchKernel", 26, 32)]
    rows = top_host(serial)
    assert sum(r["total_us"] for r in rows) == 32 and {r["name"] for r in rows} == {"dispatch (simulated)", "cudaLaunchKernel"}


def test_the_simulated_diagnosis_ranks_all_of_its_host_time(capsys):
    import json

    from conftest import cli_here
    p = cli_here(capsys, "diagnose", "--model", "fake-mlp", "--batch", "8", "--backend", "sim", "--json")
    d = json.loads(p.stdout)
    assert p.returncode == 0 and abs(sum(r["total_us"] for r in d["top_host"]) - d["host_dispatch_us"]) < 0.01
